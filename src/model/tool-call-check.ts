// A tool call runs only when it is complete and valid. WHY on the raw argument string: @langchain/core "repairs"
// partial JSON (parsePartialJson), so `{"command": "echo partial > marker.txt` arrives in `tool_calls` as a
// complete-looking object and would run a prefix of what the model meant. Invalid calls stay in `tool_calls` (so
// the agent still routes to the tools and every call gets its ToolMessage) with empty arguments, and are listed in
// `invalid_tool_calls` with the reason; the InvalidToolCall middleware answers them without running anything.
import { randomUUID } from "node:crypto";
import type { AIMessage, AIMessageChunk, InvalidToolCall, ToolCall } from "@langchain/core/messages";

interface RawCall {
  id?: string;
  name?: string;
  args: string;
}

/** The calls as the provider sent them: argument strings untouched. */
function rawCalls(msg: AIMessage | AIMessageChunk): RawCall[] {
  const wire = msg.additional_kwargs?.tool_calls;
  if (Array.isArray(wire) && wire.length > 0) {
    return wire.map((tc: any) => ({
      id: tc?.id || undefined,
      name: tc?.function?.name || undefined,
      args: typeof tc?.function?.arguments === "string" ? tc.function.arguments : tc?.function?.arguments == null ? "" : JSON.stringify(tc.function.arguments),
    }));
  }
  const chunks = (msg as AIMessageChunk).tool_call_chunks;
  if (Array.isArray(chunks) && chunks.length > 0) return chunks.map((c) => ({ id: c.id || undefined, name: c.name || undefined, args: c.args ?? "" }));
  const parsed = [
    ...(msg.tool_calls ?? []).map((tc) => ({ id: tc.id || undefined, name: tc.name, args: JSON.stringify(tc.args ?? {}) })),
    ...(msg.invalid_tool_calls ?? []).map((tc) => ({ id: tc.id || undefined, name: tc.name || undefined, args: tc.args ?? "" })),
  ];
  return parsed;
}

function tail(s: string): string {
  const t = s.length > 40 ? `…${s.slice(-40)}` : s;
  return JSON.stringify(t);
}

/** Why these arguments cannot run, or undefined when they are a complete JSON object. */
function argumentProblem(args: string): { problem?: string; value?: Record<string, unknown> } {
  if (args.trim() === "") return { value: {} }; // no-parameter tools: several servers send "" rather than "{}"
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (e) {
    return { problem: `arguments were not valid JSON: ${(e as Error).message} (received ${args.length} characters ending ${tail(args)}); nothing was run, resend the complete call` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problem: `arguments must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}; nothing was run, resend the call` };
  }
  return { value: value as Record<string, unknown> };
}

export interface CheckedToolCalls {
  tool_calls: ToolCall[];
  invalid_tool_calls: InvalidToolCall[];
}

/** Every call of `msg`, checked; ids are unique and present (minted when the provider sent none or a duplicate). */
export function checkToolCalls(msg: AIMessage | AIMessageChunk): CheckedToolCalls {
  const seen = new Set<string>();
  const tool_calls: ToolCall[] = [];
  const invalid_tool_calls: InvalidToolCall[] = [];
  for (const raw of rawCalls(msg)) {
    const problems: string[] = [];
    let id = raw.id;
    if (!id) problems.push("the call had no id");
    else if (seen.has(id)) problems.push(`the call id ${JSON.stringify(id)} was used twice in one answer`);
    if (!id || seen.has(id)) id = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    seen.add(id);
    if (!raw.name) problems.push("the call had no tool name");
    const { problem, value } = argumentProblem(raw.args);
    if (problem) problems.push(problem);
    const name = raw.name ?? "";
    if (problems.length === 0) {
      tool_calls.push({ type: "tool_call", id, name, args: value! });
      continue;
    }
    const error = problems.length === 1 && problem ? problem : `${problems.join("; ")}${problem ? "" : "; nothing was run, resend the call"}`;
    tool_calls.push({ type: "tool_call", id, name, args: {} });
    invalid_tool_calls.push({ type: "invalid_tool_call", id, name, args: raw.args, error });
  }
  return { tool_calls, invalid_tool_calls };
}

/** The reason a call (by id) of `msg` must not run, if it is one of the invalid ones. */
export function invalidCallReason(msg: { invalid_tool_calls?: InvalidToolCall[] }, id: string | undefined): string | undefined {
  if (!id) return undefined;
  return msg.invalid_tool_calls?.find((c) => c.id === id)?.error;
}
