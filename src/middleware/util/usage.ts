// Token usage of an AI message, shared by TokenUsage and TokenBudget; the state schema of the usage totals; the sink
// a run's side calls (title, subagents) report their tokens to.
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";
import { type TokenUsage, USAGE_SOURCES, type UsageSource, addUsage, zeroUsage } from "../../vocabulary/token-usage.js";

export { addUsage, zeroUsage, type UsageSource };
export type UsageTotals = TokenUsage;

const CountsSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  estimated: z.boolean().optional(),
});

export const UsageTotalsSchema = CountsSchema.extend({
  by_source: z.partialRecord(z.enum(USAGE_SOURCES), CountsSchema).optional(),
});

/**
 * Where a model call made outside the lead's own loop reports its tokens: the runtime's ledger of the current run
 * (found per run: the compiled graph is shared). `sideTokens`: what the run spent so far outside the lead's calls.
 */
export interface UsageSink {
  add(source: UsageSource, usage: UsageTotals): void;
  sideTokens(): number;
  /** Tokens counted in the run but not yet written to the thread's totals (subagents'); taking them clears them. */
  takeUnsaved(): UsageTotals | null;
}

/** `usage_metadata` of `message` as totals (total defaults to input + output), or null when it has none. */
export function usageOf(message: unknown): UsageTotals | null {
  if (!message || !AIMessage.isInstance(message)) return null;
  const u = message.usage_metadata;
  if (!u) return null;
  const input_tokens = Number(u.input_tokens) || 0;
  const output_tokens = Number(u.output_tokens) || 0;
  const total_tokens = Number.isFinite(Number(u.total_tokens)) && u.total_tokens !== undefined ? Number(u.total_tokens) : input_tokens + output_tokens;
  const estimated = message.response_metadata?.usage_estimated === true;
  return { input_tokens, output_tokens, total_tokens, ...(estimated && { estimated }) };
}
