// ToolCallIds — WHY: the agent's tool node skips every call whose id already has a ToolMessage in the thread, so a
// model that reuses an id from an earlier turn (some local servers count "call_0", "call_1"… per answer) had that
// call silently dropped: `tool.started`, no `tool.completed`, the command never ran, and DanglingToolCall then told
// the model it was "interrupted". A reused id is renamed in the model's answer before anything reads it
// ("call_0" → "call_0-2"), so the call runs normally; the next request carries the new id on both the call and its
// result, which every provider accepts (ids are opaque to them). Ids repeated inside one answer are already made
// unique (and answered as an error) by the model layer, src/model/tool-call-check.ts.
// WHY wrapModelCall (right after DanglingToolCall): the renamed answer is the model node's own output, so the stream
// events, the checkpoint and the tool node all see one id.
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";

/** Every tool-call id a thread already used (calls and results). */
function usedIds(messages: readonly BaseMessage[]): Set<string> {
  const used = new Set<string>();
  for (const m of messages) {
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) if (c.id) used.add(c.id);
    if (ToolMessage.isInstance(m) && m.tool_call_id) used.add(m.tool_call_id);
  }
  return used;
}

/** `answer` with each call id already in `used` renamed to a fresh one; the same object when none was. */
export function renameReusedToolCallIds(answer: AIMessage, used: ReadonlySet<string>): AIMessage {
  const calls = answer.tool_calls ?? [];
  const renamed = new Map<string, string>();
  const taken = new Set([...used, ...calls.map((c) => c.id).filter((id): id is string => !!id)]);
  for (const c of calls) {
    if (!c.id || !used.has(c.id)) continue;
    let n = 2;
    while (taken.has(`${c.id}-${n}`)) n++;
    const fresh = `${c.id}-${n}`;
    taken.add(fresh);
    renamed.set(c.id, fresh);
  }
  if (renamed.size === 0) return answer;
  const rename = (id: string | undefined) => (id !== undefined && renamed.has(id) ? renamed.get(id)! : id);
  const wire = answer.additional_kwargs?.tool_calls;
  return new AIMessage({
    id: answer.id,
    content: answer.content,
    name: answer.name,
    response_metadata: answer.response_metadata,
    usage_metadata: answer.usage_metadata,
    additional_kwargs: Array.isArray(wire) ? { ...answer.additional_kwargs, tool_calls: wire.map((w) => ({ ...w, id: rename(w.id) ?? w.id })) } : answer.additional_kwargs,
    tool_calls: calls.map((c) => ({ ...c, id: rename(c.id) })),
    invalid_tool_calls: (answer.invalid_tool_calls ?? []).map((c) => ({ ...c, id: rename(c.id) })),
  });
}

export function toolCallIdsMiddleware() {
  return createMiddleware({
    name: "ToolCallIds",
    wrapModelCall: async (request, handler) => {
      const result = await handler(request);
      if (!AIMessage.isInstance(result) || !result.tool_calls?.length) return result;
      const state = (request.state as { messages?: BaseMessage[] } | undefined)?.messages;
      return renameReusedToolCallIds(result, usedIds(state ?? request.messages));
    },
  });
}
