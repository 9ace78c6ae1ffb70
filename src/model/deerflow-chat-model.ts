// Our chat model: ChatOpenAI over a guarded transport (guarded-fetch.ts), plus one step after every call that
// turns whatever came back into the message the agent may act on. WHY `invoke`: LangChain reaches the provider by
// three internal paths (_generate, _streamResponseChunks when a streaming callback listens, and stream events);
// `invoke` is where they meet again, with the final message — the one point where a check of the whole answer
// (tool calls complete and valid, usage present) sees exactly what the agent will see. WHY `withConfig`:
// bindTools builds the tool-bound model through it, and ChatOpenAI's version would return a plain ChatOpenAI.
import { AIMessage, AIMessageChunk, type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { ChatOpenAI, type ChatOpenAIFields } from "@langchain/openai";
import { withReasoning } from "./reasoning-context.js";
import { checkToolCalls } from "./tool-call-check.js";
import { estimatedUsage, hasReportedUsage } from "./usage-estimate.js";

type InvokeInput = Parameters<ChatOpenAI["invoke"]>[0];
type InvokeOptions = Parameters<ChatOpenAI["invoke"]>[1];

function textLength(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (Array.isArray(content)) return content.reduce((n, b) => n + (typeof b === "string" ? b.length : typeof b?.text === "string" ? b.text.length : 0), 0);
  return 0;
}

function inputChars(input: InvokeInput): number {
  if (typeof input === "string") return input.length;
  if (!Array.isArray(input)) return JSON.stringify(input ?? "").length;
  return input.reduce((n: number, m: unknown) => n + (isBaseMessage(m) ? textLength(m.content) : JSON.stringify(m ?? "").length), 0);
}

/** The message the agent may act on: a plain AIMessage with our id, checked tool calls and usage. */
export function finalizeMessage(out: BaseMessage, promptChars: number): AIMessage {
  const isAi = AIMessage.isInstance(out) || AIMessageChunk.isInstance(out);
  const ai = out as AIMessage;
  const { tool_calls, invalid_tool_calls } = isAi ? checkToolCalls(ai) : { tool_calls: [], invalid_tool_calls: [] };
  const { tool_calls: _wire, ...additional_kwargs } = out.additional_kwargs ?? {};
  let usage_metadata = isAi ? ai.usage_metadata : undefined;
  const response_metadata: Record<string, unknown> = { ...(out.response_metadata ?? {}) };
  if (!hasReportedUsage(usage_metadata)) {
    const outChars = textLength(out.content) + tool_calls.reduce((n, tc) => n + tc.name.length + JSON.stringify(tc.args).length, 0);
    usage_metadata = estimatedUsage(promptChars, outChars);
    response_metadata.usage_estimated = true;
  }
  return new AIMessage({
    id: out.id ?? `msg_${randomUUID().replace(/-/g, "")}`,
    content: out.content,
    additional_kwargs,
    response_metadata,
    tool_calls,
    invalid_tool_calls,
    usage_metadata,
  });
}

export class DeerflowChatModel extends ChatOpenAI {
  constructor(fields: ChatOpenAIFields) {
    super(fields);
  }

  /** Typed as ChatOpenAI's AIMessageChunk; it is a plain AIMessage, so nothing re-derives tool calls from fragments. */
  override async invoke(input: InvokeInput, options?: InvokeOptions): Promise<AIMessageChunk> {
    const reasoning = Array.isArray(input)
      ? input
          .filter((m): m is AIMessage => AIMessage.isInstance(m))
          .map((m) => {
            const r = m.additional_kwargs?.reasoning_content;
            return typeof r === "string" ? r : undefined;
          })
      : [];
    const out = await withReasoning(reasoning, () => super.invoke(input, options));
    return finalizeMessage(out, inputChars(input)) as unknown as AIMessageChunk;
  }

  override withConfig(config: Partial<InvokeOptions> & Record<string, unknown>): DeerflowChatModel {
    const m = new DeerflowChatModel(this.fields as ChatOpenAIFields);
    m.defaultOptions = { ...this.defaultOptions, ...config };
    return m;
  }
}
