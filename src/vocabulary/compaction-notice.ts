// The one-line notice of a compaction, the same words in the TUI and on stderr (package-free: the TUI imports it).

export interface CompactionNoticeFacts {
  messages: number;
  tokens_before: number;
  tokens_after: number;
  summary_failed?: string;
}

const k = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export function compactionNotice(e: CompactionNoticeFacts): string {
  const base = `Context compacted: ${e.messages} older message${e.messages === 1 ? "" : "s"} summarized and archived, ~${k(e.tokens_before)} → ~${k(e.tokens_after)} tokens`;
  return e.summary_failed ? `${base} (${e.summary_failed}; the originals stay readable with read_history)` : base;
}
