// Token usage of an AI message, shared by TokenUsage and TokenBudget.
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Some of it is the model layer's estimate (the provider reported none). */
  estimated?: boolean;
}

export const UsageTotalsSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  estimated: z.boolean().optional(),
});

export const zeroUsage = (): UsageTotals => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });

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
