// Token counts and where they were spent: one home for the sum and the per-source breakdown, used by the middleware
// that writes the thread's totals, the runtime's run ledger, the run result and the TUI.

/**
 * Who spent the tokens (`usage.by_source` keys; docs/events.md): the lead agent's own calls, its subagents', and the
 * side calls — the thread's title, a compaction summary, `run --goal`'s evaluator, memory extraction.
 */
export const USAGE_SOURCES = ["lead", "subagents", "title", "summary", "goal", "memory"] as const;
export type UsageSource = (typeof USAGE_SOURCES)[number];

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Some of it was estimated from text length: the provider reported no usage (the model layer's estimate). */
  estimated?: boolean;
}

export interface TokenUsage extends TokenCounts {
  /** The same counts per source; a source that spent nothing is absent. */
  by_source?: Partial<Record<UsageSource, TokenCounts>>;
}

export const zeroUsage = (): TokenUsage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });

function plusCounts(a: TokenCounts | null | undefined, b: TokenCounts): TokenCounts {
  const estimated = a?.estimated || b.estimated;
  return {
    input_tokens: (a?.input_tokens ?? 0) + b.input_tokens,
    output_tokens: (a?.output_tokens ?? 0) + b.output_tokens,
    total_tokens: (a?.total_tokens ?? 0) + b.total_tokens,
    ...(estimated && { estimated: true }),
  };
}

/**
 * `a` plus `b` (a new object). `source`: `b` is one source's spending (its counts go under it in `by_source`);
 * without it `b` is itself a total, and its breakdown is merged.
 */
export function addUsage(a: TokenUsage | null | undefined, b: TokenUsage, source?: UsageSource): TokenUsage {
  const sum: TokenUsage = plusCounts(a, b);
  const parts: Partial<Record<UsageSource, TokenCounts>> = { ...a?.by_source };
  if (source) parts[source] = plusCounts(parts[source], { input_tokens: b.input_tokens, output_tokens: b.output_tokens, total_tokens: b.total_tokens, ...(b.estimated && { estimated: true }) });
  else for (const [s, c] of Object.entries(b.by_source ?? {}) as [UsageSource, TokenCounts][]) parts[s] = plusCounts(parts[s], c);
  if (Object.keys(parts).length > 0) sum.by_source = parts;
  return sum;
}

/**
 * A model answer's `usage_metadata` as counts (total defaults to input + output), or null when it has none.
 * `estimated`: the model layer estimated it (`response_metadata.usage_estimated`).
 */
export function countsOf(meta: { input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown } | null | undefined, estimated = false): TokenCounts | null {
  if (!meta) return null;
  const input_tokens = Number(meta.input_tokens) || 0;
  const output_tokens = Number(meta.output_tokens) || 0;
  const total_tokens = meta.total_tokens !== undefined && Number.isFinite(Number(meta.total_tokens)) ? Number(meta.total_tokens) : input_tokens + output_tokens;
  return { input_tokens, output_tokens, total_tokens, ...(estimated && { estimated }) };
}

/** Whether any token was counted. */
export function spentAny(u: TokenCounts | null | undefined): boolean {
  return !!u && (u.total_tokens > 0 || u.input_tokens > 0 || u.output_tokens > 0);
}
