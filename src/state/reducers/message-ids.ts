// Deterministic ids for messages written without one. Not a reducer: a helper of messages.ts.
//
// LangGraph's add-messages reducer gives an id-less message a random uuid. That is fine when the
// reduced value is what gets stored (full mode), but a delta channel stores the WRITES and replays
// them on every read: a random id would change from one read to the next, and a later
// RemoveMessage(id) aimed at it would then fail. So the id is derived from what precedes the message
// (the id of the last message already in state, its position in the write) and from the message
// itself: the same sequence of writes always yields the same ids, however it is batched.
import { createHash } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";

function uuidFromHex(hex: string): string {
  // Shape a sha-256 digest like an RFC 4122 name-based uuid (version 5 nibble, variant 10xx).
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function fingerprint(message: BaseMessage): string {
  const m = message as BaseMessage & { tool_call_id?: unknown; tool_calls?: unknown };
  try {
    return JSON.stringify([m.content, m.name ?? null, m.tool_call_id ?? null, m.tool_calls ?? null]);
  } catch {
    return String(m.content);
  }
}

function setId(message: BaseMessage, id: string): void {
  message.id = id;
  const kwargs = (message as { lc_kwargs?: Record<string, unknown> }).lc_kwargs;
  if (kwargs != null) kwargs.id = id;
}

/**
 * Give every message in `messages` that has no id a deterministic one (in place, like LangGraph's
 * reducer does), unique among `taken`, which is extended with every id assigned. `anchor` is the id
 * of the message that precedes them ("" when none).
 */
export function assignMissingIds(messages: readonly BaseMessage[], anchor: string, taken: Set<string>): void {
  messages.forEach((message, ordinal) => {
    if (message.id != null && message.id !== "") return;
    const base = createHash("sha256")
      .update(`${anchor}\u0000${ordinal}\u0000${message.getType()}\u0000${fingerprint(message)}`)
      .digest("hex");
    let id = uuidFromHex(base);
    for (let n = 1; taken.has(id); n += 1) id = uuidFromHex(createHash("sha256").update(`${base}/${n}`).digest("hex"));
    taken.add(id);
    setId(message, id);
  });
}
