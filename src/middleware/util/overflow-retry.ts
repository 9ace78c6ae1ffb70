// The request a model call is retried with after the provider refused it as too long for the context window: the
// request as sent (what outer wrappers made of the messages), minus the messages the compaction archived, with the
// new summary where the kept conversation starts (replacing an earlier summary). Pure.
import type { BaseMessage } from "@langchain/core/messages";
import { ProviderError } from "../../errors.js";
import { errorChain } from "../../vocabulary/error-chain.js";
import { SUMMARY_KIND, hiddenKind } from "../../vocabulary/message-markers.js";

/** The provider's "does not fit the context window" refusal (LLMErrorHandling's verdict), however it was wrapped. */
export function contextOverflowOf(err: unknown): ProviderError | undefined {
  return errorChain(err).find((e): e is ProviderError => e instanceof ProviderError && e.contextOverflow);
}

export function compactedRequestMessages(sent: readonly BaseMessage[], removed: readonly BaseMessage[], kept: readonly BaseMessage[], summary: BaseMessage): BaseMessage[] {
  const gone = new Set(removed.map((m) => m.id).filter((id): id is string => typeof id === "string"));
  const keptIds = new Set(kept.map((m) => m.id));
  const out = sent.filter((m) => !(m.id && gone.has(m.id)) && hiddenKind(m) !== SUMMARY_KIND);
  const at = out.findIndex((m) => keptIds.has(m.id));
  out.splice(at < 0 ? out.length : at, 0, summary);
  return out;
}
