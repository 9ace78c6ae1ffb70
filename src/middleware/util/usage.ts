// Token usage of an AI message, shared by TokenUsage and TokenBudget; the state schema of the usage totals; the sink
// a run's side calls (title, subagents) report their tokens to.
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";
import { type TokenUsage, USAGE_SOURCES, type UsageSource, addUsage, countsOf, zeroUsage } from "../../vocabulary/token-usage.js";

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
  /** Tokens the thread spent outside any run (memory extraction) for its totals only; taking them clears them. */
  takeCarried(): UsageTotals | null;
}

/** `usage_metadata` of `message` as totals (total defaults to input + output), or null when it has none. */
export function usageOf(message: unknown): UsageTotals | null {
  if (!message || !AIMessage.isInstance(message)) return null;
  return countsOf(message.usage_metadata, message.response_metadata?.usage_estimated === true);
}
