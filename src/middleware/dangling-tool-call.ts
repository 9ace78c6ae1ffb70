// DanglingToolCall — WHY beforeModel (+ wrapModelCall): every provider rejects a history in which an AI tool call
// has no result, or a tool result answers no call; a crash or Ctrl-C between the model turn and the tool results
// leaves exactly that in the checkpoint. So before EVERY model call we repair the history:
//   • beforeModel persists the repair to state, so the thread stays valid for every later call and run;
//   • wrapModelCall re-applies the same pure repair to the request only, as a safety net for anything the
//     beforeModel hooks after us (or outer wrappers) did to the messages. It is a no-op on a valid history.
// WHY its position (after Sandbox, before Guardrail/ToolErrorHandling/Summarization…): its beforeModel runs early,
// so every later hook sees a valid history; its wrapModelCall is outer to theirs.
//
// Persisting an insertion in the middle of the `messages` channel: add-messages semantics can only append,
// replace in place (same id) or delete; they cannot insert "right after message k". Replace-by-id cannot move the
// messages after k either (a RemoveMessage followed by the same id replaces in place, it does not move). So the
// repair writes `RemoveMessage(REMOVE_ALL_MESSAGES)` followed by the whole rebuilt list: `messagesStateReducer`
// (and the project's `mergeMessages` / the delta reducer) clear then rebuild, keeping every message's id.
// It only happens when something is actually broken, so the full rewrite is rare.
import { AIMessage, type BaseMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";

export const INTERRUPTED_TOOL_CALL_TEXT = "[Tool call was interrupted and did not return a result.] The tool call was interrupted and did not return a result; do not assume it ran.";

export interface DanglingToolCallOptions {
  /** Content of the placeholder result (must stay meaningful to the model). */
  placeholder?: string;
}

export interface RepairResult {
  messages: BaseMessage[];
  /** Placeholders inserted (one per tool call without a result). */
  inserted: number;
  /** Tool results dropped (answering no earlier tool call, or a second answer to the same call). */
  dropped: number;
}

/**
 * Pure repair of a message list:
 * - after each AI message come the results of ITS tool calls (in the order they appeared), then a placeholder
 *   ToolMessage (status "error") for each of its calls that has no result;
 * - a ToolMessage is kept only if it answers a still-unanswered call of an EARLIER AI message (a result that was
 *   separated from its AI message, e.g. by a user message, moves back next to it); others are orphans: dropped.
 * A valid history comes back unchanged (same array order, same objects), `inserted === dropped === 0`.
 * `marks` go into each placeholder's additional_kwargs (an interrupted run marks the ones it wrote).
 */
export function repairToolCallHistory(messages: readonly BaseMessage[], placeholder = INTERRUPTED_TOOL_CALL_TEXT, marks?: Record<string, unknown>): RepairResult {
  // Pass 1: assign each ToolMessage to the AI message whose call it answers.
  const open = new Map<string, number>(); // unanswered call id → index of its AI message
  const results = new Map<number, ToolMessage[]>(); // AI index → its results, in order of appearance
  const keptTool = new Set<BaseMessage>();
  let dropped = 0;
  messages.forEach((m, i) => {
    if (AIMessage.isInstance(m)) {
      for (const call of m.tool_calls ?? []) if (call.id) open.set(call.id, i);
      results.set(i, []);
    } else if (ToolMessage.isInstance(m)) {
      const owner = open.get(m.tool_call_id);
      if (owner === undefined) {
        dropped += 1;
        return;
      }
      open.delete(m.tool_call_id);
      results.get(owner)!.push(m);
      keptTool.add(m);
    }
  });

  // Pass 2: rebuild. Tool results are emitted in their AI message's block, never where they stood.
  const out: BaseMessage[] = [];
  let inserted = 0;
  messages.forEach((m, i) => {
    if (ToolMessage.isInstance(m)) return;
    out.push(m);
    if (!AIMessage.isInstance(m)) return;
    const answered = results.get(i) ?? [];
    out.push(...answered);
    const answeredIds = new Set(answered.map((t) => t.tool_call_id));
    for (const call of m.tool_calls ?? []) {
      if (!call.id || answeredIds.has(call.id)) continue;
      answeredIds.add(call.id);
      inserted += 1;
      out.push(
        new ToolMessage({
          // Deterministic: the persisted repair and the request-only repair produce the same message.
          id: `dangling-${m.id ?? i}-${call.id}`,
          tool_call_id: call.id,
          name: call.name,
          status: "error",
          content: placeholder,
          ...(marks ? { additional_kwargs: { ...marks } } : {}),
        }),
      );
    }
  });

  // A moved (misplaced) result changes the order without inserting or dropping anything: still a repair.
  return { messages: out, inserted, dropped };
}

function changed(before: readonly BaseMessage[], after: readonly BaseMessage[]): boolean {
  return before.length !== after.length || after.some((m, i) => m !== before[i]);
}

export function danglingToolCallMiddleware(options: DanglingToolCallOptions = {}) {
  const placeholder = options.placeholder ?? INTERRUPTED_TOOL_CALL_TEXT;
  return createMiddleware({
    name: "DanglingToolCall",
    beforeModel: (state) => {
      const repaired = repairToolCallHistory(state.messages, placeholder);
      if (!changed(state.messages, repaired.messages)) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...repaired.messages] };
    },
    wrapModelCall: (request, handler) => {
      const repaired = repairToolCallHistory(request.messages, placeholder);
      if (!changed(request.messages, repaired.messages)) return handler(request);
      return handler({ ...request, messages: repaired.messages });
    },
  });
}
