// A message with every piece of its text (content blocks, tool-call arguments, passed-back reasoning) put through a
// string function: the request-only rewrites (PII masking, artifact handles) and their reverse on answers.
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";

type Content = BaseMessage["content"];

function mapContent(content: Content, f: (s: string) => string): Content {
  if (typeof content === "string") return f(content);
  if (!Array.isArray(content)) return content;
  return content.map((b) =>
    b && typeof b === "object" && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string" ? { ...b, text: f((b as { text: string }).text) } : b,
  ) as Content;
}

/** Every string leaf of a tool call's arguments through `f` (keys and structure untouched). */
export function mapStrings<T>(value: T, f: (s: string) => string): T {
  if (typeof value === "string") return f(value) as T;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T;
  return value;
}

/** `m` with its text (content, tool-call arguments, passed-back reasoning) through `f`; the same message when nothing changed. */
export function mapMessageText<M extends BaseMessage>(m: M, fn: (s: string) => string): M {
  let changed = false;
  const f = (s: string) => {
    const out = fn(s);
    if (out !== s) changed = true;
    return out;
  };
  const out = rebuild(m, f);
  return changed ? out : m;
}

function rebuild<M extends BaseMessage>(m: M, f: (s: string) => string): M {
  const content = mapContent(m.content, f);
  const fields = { id: m.id, name: m.name, content, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata };
  const reasoning = m.additional_kwargs?.reasoning_content;
  if (typeof reasoning === "string") fields.additional_kwargs = { ...m.additional_kwargs, reasoning_content: f(reasoning) };
  if (AIMessage.isInstance(m)) {
    const tool_calls = (m.tool_calls ?? []).map((c) => ({ ...c, args: mapStrings(c.args, f) }));
    const invalid_tool_calls = (m.invalid_tool_calls ?? []).map((c) => ({ ...c, args: typeof c.args === "string" ? f(c.args) : c.args }));
    return new AIMessage({ ...fields, tool_calls, invalid_tool_calls, usage_metadata: m.usage_metadata }) as unknown as M;
  }
  if (ToolMessage.isInstance(m)) return new ToolMessage({ ...fields, tool_call_id: m.tool_call_id, status: m.status, artifact: m.artifact }) as unknown as M;
  if (HumanMessage.isInstance(m)) return new HumanMessage(fields) as unknown as M;
  if (SystemMessage.isInstance(m)) return new SystemMessage(fields) as unknown as M;
  return m;
}
