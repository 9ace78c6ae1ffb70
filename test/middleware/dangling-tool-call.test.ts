import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { INTERRUPTED_TOOL_CALL_TEXT, danglingToolCallMiddleware, repairToolCallHistory } from "../../src/middleware/dangling-tool-call.js";

const call = (id: string, name = "echo", args: Record<string, unknown> = { text: id }) => ({ id, name, args, type: "tool_call" as const });
const ai = (id: string, ...calls: ReturnType<typeof call>[]) => new AIMessage({ id, content: "", tool_calls: calls });
const result = (callId: string, content = `result ${callId}`) => new ToolMessage({ id: `t-${callId}`, tool_call_id: callId, name: "echo", content });

/** Every AI tool call is answered by the tool messages that immediately follow it, and every tool message answers one. */
function expectValidHistory(messages: BaseMessage[]) {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (AIMessage.isInstance(m) && m.tool_calls?.length) {
      const block: ToolMessage[] = [];
      for (let j = i + 1; j < messages.length && ToolMessage.isInstance(messages[j]); j++) block.push(messages[j] as ToolMessage);
      expect(block.map((t) => t.tool_call_id).sort()).toEqual(m.tool_calls.map((c) => c.id).sort());
    }
    if (ToolMessage.isInstance(m)) {
      let k = i - 1;
      while (k >= 0 && ToolMessage.isInstance(messages[k])) k--;
      const owner = messages[k];
      expect(owner && AIMessage.isInstance(owner) && owner.tool_calls?.some((c) => c.id === m.tool_call_id)).toBe(true);
    }
  }
}

const echo = tool(async ({ text }: { text: string }) => `echo: ${text}`, {
  name: "echo",
  description: "echo",
  schema: z.object({ text: z.string() }),
});

describe("repairToolCallHistory", () => {
  it("inserts the placeholder right after the AI message whose call has no result", () => {
    const msgs = [new HumanMessage({ id: "h1", content: "go" }), ai("a1", call("c1"), call("c2")), result("c1"), new HumanMessage({ id: "h2", content: "next" })];
    const { messages, inserted, dropped } = repairToolCallHistory(msgs);
    expect(inserted).toBe(1);
    expect(dropped).toBe(0);
    expect(messages.map((m) => m.id)).toEqual(["h1", "a1", "t-c1", "dangling-a1-c2", "h2"]);
    const placeholder = messages[3] as ToolMessage;
    expect(placeholder.tool_call_id).toBe("c2");
    expect(placeholder.name).toBe("echo");
    expect(placeholder.status).toBe("error");
    expect(String(placeholder.content).toLowerCase()).toContain("tool call was interrupted and did not return a result");
    expectValidHistory(messages);
  });

  it("drops orphan results: unknown id, result before its call, second result for one call", () => {
    const msgs = [
      new HumanMessage({ id: "h1", content: "go" }),
      result("early"),
      ai("a1", call("c1"), call("early")),
      result("c1"),
      new ToolMessage({ id: "dup", tool_call_id: "c1", content: "again" }),
      result("nobody"),
    ];
    const { messages, inserted, dropped } = repairToolCallHistory(msgs);
    expect(dropped).toBe(3);
    expect(inserted).toBe(1); // "early" was answered BEFORE it was called: that result is an orphan, the call dangles
    expect(messages.map((m) => m.id)).toEqual(["h1", "a1", "t-c1", "dangling-a1-early"]);
    expectValidHistory(messages);
  });

  it("moves a result that got separated from its AI message back next to it", () => {
    const msgs = [ai("a1", call("c1")), new HumanMessage({ id: "h", content: "hurry" }), result("c1")];
    const { messages, inserted, dropped } = repairToolCallHistory(msgs);
    expect([inserted, dropped]).toEqual([0, 0]);
    expect(messages.map((m) => m.id)).toEqual(["a1", "t-c1", "h"]);
  });

  it("leaves a valid history untouched (same objects, same order)", () => {
    const msgs = [new HumanMessage({ id: "h", content: "x" }), ai("a1", call("c1"), call("c2")), result("c2"), result("c1"), new AIMessage({ id: "a2", content: "done" })];
    const { messages, inserted, dropped } = repairToolCallHistory(msgs);
    expect([inserted, dropped]).toEqual([0, 0]);
    expect(messages).toHaveLength(msgs.length);
    messages.forEach((m, i) => expect(m).toBe(msgs[i]));
  });

  it("gives each of two AI messages reusing one call id its own placeholder", () => {
    const { messages, inserted } = repairToolCallHistory([ai("a1", call("x")), ai("a2", call("x"))]);
    expect(inserted).toBe(2);
    expect(messages.map((m) => m.id)).toEqual(["a1", "dangling-a1-x", "a2", "dangling-a2-x"]);
  });
});

describe("DanglingToolCall middleware in createAgent", () => {
  it("repairs the history before the model call and persists the repair", async () => {
    const model = fakeModel().respond(new AIMessage({ id: "reply", content: "all good" }));
    const agent = createAgent({ model, tools: [echo], middleware: [danglingToolCallMiddleware()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t-repair" } };
    const out = await agent.invoke(
      {
        messages: [new HumanMessage({ id: "h1", content: "start" }), ai("a1", call("c1"), call("c2")), result("c2"), new HumanMessage({ id: "h2", content: "what happened?" }), result("ghost")],
      },
      config,
    );
    // what the model saw
    const seen = model.calls[0]!.messages;
    expect(seen.map((m) => m.id)).toEqual(["h1", "a1", "t-c2", "dangling-a1-c1", "h2"]);
    expectValidHistory(seen);
    // what the thread keeps
    expect(out.messages.map((m) => m.id)).toEqual(["h1", "a1", "t-c2", "dangling-a1-c1", "h2", "reply"]);
    const snapshot = await agent.graph.getState(config);
    expect((snapshot.values as { messages: BaseMessage[] }).messages.map((m) => m.id)).toEqual(out.messages.map((m) => m.id));
  });

  it("a run cancelled while a tool runs leaves a dangling call that the next run repairs", async () => {
    let release!: () => void;
    const started = new Promise<void>((r) => (release = r));
    const slow = tool(
      async (_input: { ms: number }, config) =>
        new Promise<string>((resolve, reject) => {
          release();
          const t = setTimeout(() => resolve("finished"), 10_000);
          config?.signal?.addEventListener("abort", () => {
            clearTimeout(t);
            reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
          });
        }),
      { name: "slow", description: "slow", schema: z.object({ ms: z.number() }) },
    );
    const model = fakeModel()
      .respond(ai("a1", call("c-slow", "slow", { ms: 10_000 })))
      .respond(new AIMessage({ id: "a2", content: "sorry, that was interrupted" }));
    const agent = createAgent({ model, tools: [slow], middleware: [danglingToolCallMiddleware()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t-crash" } };

    const controller = new AbortController();
    const run1 = agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "do the slow thing" })] }, { ...config, signal: controller.signal });
    await started;
    controller.abort();
    await expect(run1).rejects.toThrow();

    const after1 = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
    expect(after1.messages.map((m) => m.id)).toEqual(["h1", "a1"]); // the call has no result

    const out = await agent.invoke({ messages: [new HumanMessage({ id: "h2", content: "are you there?" })] }, config);
    const seen = model.calls[1]!.messages;
    expect(seen.map((m) => m.id)).toEqual(["h1", "a1", "dangling-a1-c-slow", "h2"]);
    expectValidHistory(seen);
    expect(out.messages.map((m) => m.id)).toEqual(["h1", "a1", "dangling-a1-c-slow", "h2", "a2"]);
    expect((out.messages[2] as ToolMessage).content).toBe(INTERRUPTED_TOOL_CALL_TEXT);
  });

  it("does not write anything when the history is valid", async () => {
    const model = fakeModel()
      .respond(ai("a1", call("c1")))
      .respond(new AIMessage({ id: "a2", content: "done" }));
    const agent = createAgent({ model, tools: [echo], middleware: [danglingToolCallMiddleware()] });
    const out = await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "echo c1" })] });
    expect(out.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(out.messages.some((m) => String(m.id).startsWith("dangling-"))).toBe(false);
    expectValidHistory(model.calls[1]!.messages);
  });

  it("patches the request even when an outer wrapper breaks the history (wrapModelCall safety net)", async () => {
    const { createMiddleware } = await import("langchain");
    const breaker = createMiddleware({
      name: "Breaker",
      // an outer wrapper (e.g. a careless compaction) that leaves a call without its result
      wrapModelCall: (req, handler) => handler({ ...req, messages: req.messages.filter((m) => !ToolMessage.isInstance(m)) }),
    });
    const model = fakeModel()
      .respond(ai("a1", call("c1")))
      .respond(new AIMessage({ id: "a2", content: "done" }));
    const agent = createAgent({ model, tools: [echo], middleware: [breaker, danglingToolCallMiddleware()] });
    await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "go" })] });
    const seen = model.calls[1]!.messages;
    expect(seen.map((m) => m.id)).toEqual(["h1", "a1", "dangling-a1-c1"]);
  });
});
