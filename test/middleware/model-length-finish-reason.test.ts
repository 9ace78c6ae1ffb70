import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { type AgentMiddleware, createAgent, fakeModel, tool } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loopDetectionMiddleware } from "../../src/middleware/loop-detection.js";
import { LENGTH_NOTE, LENGTH_NOTE_WITH_CALLS, modelLengthFinishReasonMiddleware } from "../../src/middleware/model-length-finish-reason.js";
import { MODEL_LENGTH_CAPPED } from "../../src/vocabulary/stop-reasons.js";
import { finishReasonOf } from "../../src/middleware/util/finish-reason-guard.js";
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

/**
 * Non-streaming: `invoke` on a non-streaming model. Streaming: a streaming model driven by `agent.stream` with a
 * "messages" stream (what the TUI does) — NOT `invoke` on a streaming model, whose _generate fetches a tokenizer.
 */
async function run(streaming: boolean, middleware: AgentMiddleware[], input: string, config: Record<string, unknown> = {}): Promise<Out> {
  const agent = createAgent({ model: chat(streaming), tools: [bash], middleware, ...(config.checkpointer ? { checkpointer: config.checkpointer as MemorySaver } : {}) });
  const cfg = { recursionLimit: 20, ...(config.thread_id ? { configurable: { thread_id: config.thread_id } } : {}) };
  if (!streaming) return (await agent.invoke({ messages: [new HumanMessage(input)] }, cfg)) as unknown as Out;
  let last: Out | undefined;
  const stream = await agent.stream({ messages: [new HumanMessage(input)] }, { ...cfg, streamMode: ["values", "messages"] });
  for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) if (mode === "values") last = chunk as Out;
  return last!;
}

const lastAi = (out: Out) => out.messages.filter(AIMessage.isInstance).at(-1)!;

describe.each([
  { mode: "non-streaming", streaming: false },
  { mode: "streaming", streaming: true },
])("ModelLengthFinishReason against the real ChatOpenAI ($mode)", ({ streaming }) => {
  it("a length-truncated tool call never runs: stripped everywhere, explained, stop_reason model_length_capped", async () => {
    server.push({ content: "Let me write it", toolCalls: [{ name: "bash", args: { command: "rm -rf build && echo hal" } }], finishReason: "length" });
    const out = await run(streaming, [modelLengthFinishReasonMiddleware()], "go");
    expect(executed).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.stream ?? false).toBe(streaming);
    expect(out.stop_reason).toBe(MODEL_LENGTH_CAPPED);
    const ai = lastAi(out);
    expect(out.messages.filter(AIMessage.isInstance)).toHaveLength(1); // replaced by id, not appended
    expect(out.messages.some(ToolMessage.isInstance)).toBe(false);
    expect(ai.tool_calls).toEqual([]);
    expect(ai.invalid_tool_calls ?? []).toEqual([]);
    expect((ai.additional_kwargs as { tool_calls?: unknown }).tool_calls).toBeUndefined();
    expect(ai.content).toBe(`Let me write it\n\n${LENGTH_NOTE_WITH_CALLS}`);
    expect(finishReasonOf(ai)).toBe("length");
  });

  it("a truncated, unparsable tool call (invalid_tool_calls) is stripped too", async () => {
    server.push({ toolCalls: [{ name: "bash", args: '{"command": "echo hel' }], finishReason: "length" });
    const out = await run(streaming, [modelLengthFinishReasonMiddleware()], "go");
    expect(executed).toEqual([]);
    const ai = lastAi(out);
    expect(ai.tool_calls).toEqual([]);
    expect(ai.invalid_tool_calls ?? []).toEqual([]);
    expect((ai.additional_kwargs as { tool_calls?: unknown }).tool_calls).toBeUndefined();
    expect(ai.content).toBe(LENGTH_NOTE_WITH_CALLS);
    expect(out.stop_reason).toBe(MODEL_LENGTH_CAPPED);
  });

  it("a length-truncated text answer keeps its text, gets the note and the stop_reason", async () => {
    server.push({ content: "The answer is forty", finishReason: "length" });
    const out = await run(streaming, [modelLengthFinishReasonMiddleware()], "go");
    expect(lastAi(out).content).toBe(`The answer is forty\n\n${LENGTH_NOTE}`);
    expect(out.stop_reason).toBe(MODEL_LENGTH_CAPPED);
  });

  it("normal finish reasons pass through: the tool runs, no stop_reason", async () => {
    server.push({ toolCalls: [{ name: "bash", args: { command: "ls" } }] }, { content: "done" });
    const out = await run(streaming, [modelLengthFinishReasonMiddleware()], "go");
    expect(executed).toEqual(["ls"]);
    expect(lastAi(out).content).toBe("done");
    expect(out.stop_reason).toBeNull();
  });

  it("content_filter is not its business", async () => {
    server.push({ content: "no", finishReason: "content_filter" });
    const out = await run(streaming, [modelLengthFinishReasonMiddleware()], "go");
    expect(lastAi(out).content).toBe("no");
    expect(out.stop_reason).toBeNull();
  });

  it("listed after LoopDetection, it acts first: LoopDetection never counts the stripped calls (5 runs, same call)", async () => {
    const checkpointer = new MemorySaver();
    const stack = [loopDetectionMiddleware({ warnThreshold: 1, hardLimit: 1 }), modelLengthFinishReasonMiddleware()];
    for (let i = 0; i < 5; i++) {
      server.push({ toolCalls: [{ name: "bash", args: { command: "make" }, id: `call_${i}` }], finishReason: "length" });
      const out = await run(streaming, stack, `try ${i}`, { checkpointer, thread_id: "t-order" });
      expect(out.stop_reason).toBe(MODEL_LENGTH_CAPPED);
      expect(out.loop_window).toEqual([]);
      expect(out.tool_call_counts).toEqual({});
      expect(JSON.stringify(out.messages.map((m) => m.content))).not.toContain("FORCED STOP");
    }
    expect(executed).toEqual([]);
  });
});

describe("ModelLengthFinishReason with a fake model", () => {
  const capped = (n: number) =>
    new AIMessage({
      id: `ai-${n}`,
      content: "",
      tool_calls: [{ name: "bash", args: { command: "make" }, id: `c-${n}`, type: "tool_call" }],
      response_metadata: { finish_reason: "length" },
    });

  it("listed BEFORE LoopDetection it would be too late: LoopDetection has already counted the call (the reason for the rule)", async () => {
    const model = fakeModel().respond(capped(1));
    const agent = createAgent({ model, tools: [bash], middleware: [modelLengthFinishReasonMiddleware(), loopDetectionMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as Out;
    expect(executed).toEqual([]);
    expect(out.tool_call_counts).toEqual({ bash: 1 });
  });

  it("Anthropic-style stop_reason max_tokens counts as length; stop_reason is reset at the next run", async () => {
    const model = fakeModel()
      .respond(new AIMessage({ id: "a1", content: "cut", response_metadata: { stop_reason: "max_tokens" } }))
      .respond(new AIMessage({ id: "a2", content: "fine", response_metadata: { stop_reason: "end_turn" } }));
    const agent = createAgent({ model, tools: [bash], middleware: [modelLengthFinishReasonMiddleware()], checkpointer: new MemorySaver() });
    const cfg = { configurable: { thread_id: "t1" } };
    const first = (await agent.invoke({ messages: [new HumanMessage("a")] }, cfg)) as unknown as Out;
    expect(first.stop_reason).toBe(MODEL_LENGTH_CAPPED);
    expect(lastAi(first).content).toBe(`cut\n\n${LENGTH_NOTE}`);
    const second = (await agent.invoke({ messages: [new HumanMessage("b")] }, cfg)) as unknown as Out;
    expect(second.stop_reason).toBeNull();
    expect(lastAi(second).content).toBe("fine");
  });

  it("finishReasonOf reads the usual places", () => {
    expect(finishReasonOf(new AIMessage({ content: "", response_metadata: { finish_reason: "LENGTH" } }))).toBe("length");
    expect(finishReasonOf(new AIMessage({ content: "", response_metadata: { finishReason: "MAX_TOKENS" } }))).toBe("max_tokens");
    expect(finishReasonOf(new AIMessage({ content: "", response_metadata: { done_reason: "length" } }))).toBe("length");
    expect(finishReasonOf(new AIMessage({ content: "" }))).toBeUndefined();
  });
});
