// Shared by the guards that take tool calls out of an AI message: those that end a run by removing all of them
// (LoopDetection, TokenBudget, TurnLimit, the finish-reason guards) and SubagentLimit, which keeps some. The message
// is replaced by id, so the history stays valid; provider-format copies of removed calls (additional_kwargs,
// tool_use content blocks) go too, so no serializer can resurrect them.
import { AIMessage, type ToolCall } from "@langchain/core/messages";

const TOOL_BLOCK_TYPES = ["tool_use", "tool_call", "function_call", "tool_call_chunk"];

function isToolBlock(block: unknown): block is { type: string; id?: unknown } {
  return typeof block === "object" && block !== null && TOOL_BLOCK_TYPES.includes(String((block as { type?: unknown }).type));
}

/** `msg` rebuilt with `note` appended to its text, the content blocks `drop` selects removed, and these calls. */
function rebuild(
  msg: AIMessage,
  note: string,
  drop: (block: unknown) => boolean,
  fields: { additional_kwargs: Record<string, unknown>; tool_calls: ToolCall[]; invalid_tool_calls: AIMessage["invalid_tool_calls"] },
): AIMessage {
  let content: AIMessage["content"];
  if (typeof msg.content === "string") {
    content = msg.content.trim() ? `${msg.content}\n\n${note}` : note;
  } else {
    content = [...msg.content.filter((b) => !drop(b)), { type: "text", text: note }] as AIMessage["content"];
  }
  return new AIMessage({ id: msg.id, name: msg.name, content, response_metadata: msg.response_metadata, usage_metadata: msg.usage_metadata, ...fields });
}

/** The same AI message (same id) without tool calls, with `note` appended to its text. */
export function stripToolCalls(msg: AIMessage, note: string): AIMessage {
  const { tool_calls: _tc, function_call: _fc, ...kwargs } = (msg.additional_kwargs ?? {}) as Record<string, unknown>;
  return rebuild(msg, note, isToolBlock, { additional_kwargs: kwargs, tool_calls: [], invalid_tool_calls: [] });
}

/** The same AI message (same id) keeping only `keep` of its tool calls (their original order), with `note` appended. */
export function keepToolCalls(msg: AIMessage, keep: readonly ToolCall[], note: string): AIMessage {
  const keptIds = new Set(keep.map((c) => c.id).filter((id): id is string => typeof id === "string"));
  const droppedIds = new Set((msg.tool_calls ?? []).map((c) => c.id).filter((id): id is string => typeof id === "string" && !keptIds.has(id)));
  const kwargs: Record<string, unknown> = { ...((msg.additional_kwargs ?? {}) as Record<string, unknown>) };
  if (Array.isArray(kwargs.tool_calls)) {
    const kept = (kwargs.tool_calls as { id?: unknown }[]).filter((c) => !(typeof c?.id === "string" && droppedIds.has(c.id)));
    if (kept.length > 0) kwargs.tool_calls = kept;
    else delete kwargs.tool_calls;
  }
  const dropBlock = (b: unknown) => isToolBlock(b) && typeof b.id === "string" && droppedIds.has(b.id);
  return rebuild(msg, note, dropBlock, { additional_kwargs: kwargs, tool_calls: [...keep], invalid_tool_calls: msg.invalid_tool_calls ?? [] });
}
