// The one-line notice of a compaction, the same words in the TUI and on stderr (package-free: the TUI imports it).

/** What one compaction did: the middleware reports it, the run event carries it, the notice words it. */
export interface CompactionInfo {
  messages: number;
  tokens_before: number;
  tokens_after: number;
  /** The archived range (read_history numbers) that holds the originals. */
  archived_from: number;
  archived_to: number;
  /** Why the summary call failed, when it did (compaction went ahead without a summary). */
  summary_failed?: string;
  /** The summary call's tokens (counted in the run's and the thread's usage). */
  summary_usage?: { input_tokens: number; output_tokens: number; total_tokens: number; estimated?: boolean };
}

const k = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export function compactionNotice(e: Pick<CompactionInfo, "messages" | "tokens_before" | "tokens_after" | "summary_failed">): string {
  const base = `Context compacted: ${e.messages} older message${e.messages === 1 ? "" : "s"} summarized and archived, ~${k(e.tokens_before)} → ~${k(e.tokens_after)} tokens`;
  return e.summary_failed ? `${base} (${e.summary_failed}; the originals stay readable with read_history)` : base;
}
