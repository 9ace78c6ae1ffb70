// Ollama and several vLLM set-ups send no usage. Zero would tell the token budget that nothing was spent; an
// estimate from the text length (about 4 characters a token for English and code) keeps it acting, and the
// message says it is an estimate (`response_metadata.usage_estimated`).
import type { UsageMetadata } from "@langchain/core/messages";

const CHARS_PER_TOKEN = 4;

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** True when the provider reported real numbers. */
export function hasReportedUsage(u: Partial<UsageMetadata> | undefined): boolean {
  return !!u && (typeof u.input_tokens === "number" || typeof u.output_tokens === "number") && (u.input_tokens ?? 0) + (u.output_tokens ?? 0) > 0;
}

export function estimatedUsage(inputChars: number, outputChars: number): UsageMetadata {
  const input_tokens = estimateTokens(inputChars);
  const output_tokens = estimateTokens(outputChars);
  return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens };
}
