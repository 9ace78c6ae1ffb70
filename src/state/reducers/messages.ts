// Invariant: add-messages semantics (ids assigned, same id replaces in place, RemoveMessage deletes,
// REMOVE_ALL_MESSAGES clears then rebuilds) and a RemoveMessage for an unknown id THROWS.
import { type BaseMessage, RemoveMessage, coerceMessageLikeToMessage, type BaseMessageLike } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES, messagesStateReducer, type Messages } from "@langchain/langgraph";
import { MessageRemovalError } from "../errors.js";
import { assignMissingIds } from "./message-ids.js";

/** What may be written to `messages`; `null`/`undefined` is no write. */
export type MessagesUpdate = Messages | null | undefined;

function toMessages(value: MessagesUpdate): BaseMessage[] {
  if (value == null) return [];
  const items = (Array.isArray(value) ? value : [value]) as BaseMessageLike[];
  return items.map((item) => coerceMessageLikeToMessage(item));
}

const isRemoveAll = (m: BaseMessage) => RemoveMessage.isInstance(m) && m.id === REMOVE_ALL_MESSAGES;

/**
 * The messages reducer: LangGraph's `messagesStateReducer`, plus
 * - deterministic ids for id-less messages (see message-ids.ts), so the reducer is pure and a delta
 *   channel replays to the same ids every time;
 * - a typed `MessageRemovalError` for a RemoveMessage whose id is not in state (LangGraph throws a
 *   plain Error there; we check first so the failure is ours and names the id);
 * - REMOVE_ALL_MESSAGES applies the messages after it to an empty list (LangGraph returns them raw,
 *   so duplicates or later RemoveMessages in the same write would end up in state).
 */
export function mergeMessages(existing: MessagesUpdate, update: MessagesUpdate): BaseMessage[] {
  const left = toMessages(existing);
  if (update == null) return left;
  const right = toMessages(update);

  const taken = new Set<string>();
  for (const m of [...left, ...right]) if (m.id != null && !RemoveMessage.isInstance(m)) taken.add(m.id);
  assignMissingIds(left, "", taken);
  assignMissingIds(right, left.at(-1)?.id ?? "", taken);

  let lastClear = -1;
  right.forEach((m, i) => {
    if (isRemoveAll(m)) lastClear = i;
  });
  if (lastClear >= 0) return mergeMessages([], right.slice(lastClear + 1));

  const known = new Set(left.map((m) => m.id as string));
  for (const m of right) {
    const id = m.id as string;
    if (!RemoveMessage.isInstance(m)) known.add(id);
    else if (!known.has(id)) throw new MessageRemovalError(id);
  }
  return messagesStateReducer(left, right);
}
