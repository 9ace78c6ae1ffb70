// Shared by the guards that end a run by removing an AI message's tool calls (LoopDetection, TokenBudget, the
// finish-reason guards): the message is replaced by id, so the history stays valid and the run ends normally.
import { AIMessage } from "@langchain/core/messages";

/** The same AI message (same id) without tool calls, with `note` appended to its text. */
export function stripToolCalls(msg: AIMessage, note: string): AIMessage {
  const { tool_calls: _tc, function_call: _fc, ...kwargs } = (msg.additional_kwargs ?? {}) as Record<string, unknown>;
  let content: AIMessage["content"];
  if (typeof msg.content === "string") {
    content = msg.content.trim() ? `${msg.content}\n\n${note}` : note;
  } else {
    const kept = msg.content.filter(
      (b) => !(typeof b === "object" && b !== null && ["tool_use", "tool_call", "function_call", "tool_call_chunk"].includes(String((b as { type?: unknown }).type))),
    );
    content = [...kept, { type: "text", text: note }] as AIMessage["content"];
  }
  return new AIMessage({
    id: msg.id,
    name: msg.name,
    content,
    additional_kwargs: kwargs,
    response_metadata: msg.response_metadata,
    usage_metadata: msg.usage_metadata,
    tool_calls: [],
    invalid_tool_calls: [],
  });
}
