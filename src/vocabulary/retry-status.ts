// How a model retry is said, in the TUI's transient status line and on `run`'s stderr: one home for the words.

export interface RetryFacts {
  /** The attempt that failed (1-based). */
  attempt: number;
  max_attempts: number;
  delay_ms: number;
  reason: string;
}

/** Whole seconds, rounded up, so a countdown never shows "0 s" while it still waits. */
function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** "retrying in 4 s, attempt 2 of 4"; once the wait is over, "attempt 2 of 4…". */
export function retryStatus(facts: Pick<RetryFacts, "attempt" | "max_attempts">, remainingMs: number): string {
  const next = `attempt ${facts.attempt + 1} of ${facts.max_attempts}`;
  return remainingMs > 0 ? `retrying in ${seconds(remainingMs)} s, ${next}` : `${next}…`;
}

/** One line for a log: "model endpoint: HTTP 500 from …; retrying in 4 s, attempt 2 of 4". */
export function retryLine(facts: RetryFacts): string {
  return `model endpoint: ${facts.reason}; ${retryStatus(facts, facts.delay_ms)}`;
}
