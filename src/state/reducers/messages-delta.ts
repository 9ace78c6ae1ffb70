// Invariant: folding a batch of writes equals applying mergeMessages write by write, so the result is
// batching-invariant: f(f(s, xs), ys) = f(s, xs ++ ys) (what a DeltaChannel's replay requires).
import type { BaseMessage } from "@langchain/core/messages";
import { mergeMessages, type MessagesUpdate } from "./messages.js";

/** Batch reducer for the delta-mode messages channel (`DeltaValue`). */
export function mergeMessageWrites(state: BaseMessage[], writes: readonly MessagesUpdate[]): BaseMessage[] {
  let messages = state;
  for (const write of writes) messages = mergeMessages(messages, write);
  return messages;
}
