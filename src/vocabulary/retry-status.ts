// How a model retry is said, in the TUI's transient status line and on `run`'s stderr: one home for the words.

export interface RetryFacts {
  /** The attempt about to be made (1-based: 2 is the first retry), as `model.retry` carries it. */
  attempt: number;
  max_attempts: number;
  delay_ms: number;
  reason: string;
}

/** The step model retries wait in (the middleware rounds every wait up to it), so each wait is said exactly. */
export const RETRY_STEP_MS = 100;

/**
 * A wait or a duration: tenths of a second below 10 s ("0.3 s", "2 s"), whole seconds above, always rounded up, so
 * a countdown never shows "0 s" while it still waits and waits said one by one never add up to more than a total
 * said the same way. WHY not whole seconds: three 0.3 s waits read "retrying in 1 s" three times, then "0.8 s in
 * total".
 */
export function formatWait(ms: number): string {
  const ms0 = Math.max(0, ms);
  if (ms0 >= 10_000) return `${Math.ceil(ms0 / 1000)} s`;
  const tenths = Math.ceil(Math.round(ms0) / 100) / 10;
  return Number.isInteger(tenths) ? `${tenths} s` : `${tenths.toFixed(1)} s`;
}

/** "retrying in 0.4 s, attempt 2 of 4"; once the wait is over, "attempt 2 of 4…". */
export function retryStatus(facts: Pick<RetryFacts, "attempt" | "max_attempts">, remainingMs: number): string {
  const next = `attempt ${facts.attempt} of ${facts.max_attempts}`;
  return remainingMs > 0 ? `retrying in ${formatWait(remainingMs)}, ${next}` : `${next}…`;
}

/** One line for a log: "model endpoint: HTTP 500 from …; retrying in 4 s, attempt 2 of 4" ("retrying now" for no wait). */
export function retryLine(facts: RetryFacts): string {
  const status = facts.delay_ms > 0 ? retryStatus(facts, facts.delay_ms) : `retrying now, attempt ${facts.attempt} of ${facts.max_attempts}`;
  return `model endpoint: ${facts.reason}; ${status}`;
}
