import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, createMiddleware } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { coalesceSystemMessages, systemMessageCoalescingMiddleware } from "../../src/middleware/system-message-coalescing.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

const SYSTEM_PROMPT = "You are deerflow, a terminal coding agent.\nBe precise.";

type WireMessage = { role: string; content: string | { type: string; text?: string }[] };
const textOf = (m: WireMessage) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join(""));
const systemsOf = (body: { messages: WireMessage[] }) => body.messages.filter((m) => m.role === "system" || m.role === "developer");

let server: TestModelServer;
beforeEach(async () => {
  server = await startTestModelServer((_req, i) => ({ content: `reply ${i + 1}` }));
});
afterEach(async () => {
  await server.close();
});

function model() {
  return new ChatOpenAI({ model: "test-model", apiKey: "test", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });
}

/** From the second model call of a thread on, inserts a SystemMessage in the middle of the request's messages. */
const midConversationInjector = () =>
  createMiddleware({
    name: "Injector",
    wrapModelCall: (request, handler) => {
      if (request.messages.length < 3) return handler(request);
      const at = Math.floor(request.messages.length / 2);
      const messages = [...request.messages.slice(0, at), new SystemMessage("INJECTED-RULE: never push to main."), ...request.messages.slice(at)];
      return handler({ ...request, messages });
    },
  });

/** Persists a SystemMessage into the thread's history before every model call of turn 2. */
const persistingInjector = () =>
  createMiddleware({
    name: "PersistingInjector",
    beforeModel: (state) => (state.messages.length === 3 ? { messages: [new SystemMessage("PERSISTED-RULE")] } : undefined),
  });

describe("SystemMessageCoalescing through createAgent and a real ChatOpenAI", () => {
  it("an extra SystemMessage mid-conversation → exactly one system message, first, starting with the agent's prompt", async () => {
    const agent = createAgent({
      model: model(),
      tools: [],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [midConversationInjector(), systemMessageCoalescingMiddleware()],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "c1" } };
    await agent.invoke({ messages: [new HumanMessage("one")] }, config);
    await agent.invoke({ messages: [new HumanMessage("two")] }, config);

    const [first, second] = server.requests.map((r) => r.body as { messages: WireMessage[] });
    expect(systemsOf(first!)).toHaveLength(1);
    expect(textOf(first!.messages[0]!)).toBe(SYSTEM_PROMPT);

    const systems = systemsOf(second!);
    expect(systems).toHaveLength(1);
    expect(second!.messages[0]!.role).toBe("system");
    const text = textOf(second!.messages[0]!);
    expect(text.startsWith(SYSTEM_PROMPT)).toBe(true);
    expect(text).toContain("INJECTED-RULE: never push to main.");
    expect(text).toBe(`${SYSTEM_PROMPT}\n\nINJECTED-RULE: never push to main.`);
    // The base block itself is sent unchanged (same leading content part as the turn without injection).
    const firstParts = first!.messages[0]!.content as { type: string; text: string }[];
    const secondParts = second!.messages[0]!.content as { type: string; text: string }[];
    expect(JSON.stringify(secondParts[0])).toBe(JSON.stringify(firstParts[0]));
    // Nothing else lost: the conversation messages are all there, in order.
    expect(second!.messages.slice(1).map((m) => [m.role, textOf(m)])).toEqual([
      ["user", "one"],
      ["assistant", "reply 1"],
      ["user", "two"],
    ]);
  });

  it("without the middleware the same injector sends two system messages (the test's premise)", async () => {
    const agent = createAgent({ model: model(), tools: [], systemPrompt: SYSTEM_PROMPT, middleware: [midConversationInjector()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "c2" } };
    await agent.invoke({ messages: [new HumanMessage("one")] }, config);
    await agent.invoke({ messages: [new HumanMessage("two")] }, config);
    expect(systemsOf(server.requests[1]!.body)).toHaveLength(2);
  });

  it("a SystemMessage persisted in the history is coalesced in the request, the state is untouched", async () => {
    const agent = createAgent({
      model: model(),
      tools: [],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [persistingInjector(), systemMessageCoalescingMiddleware()],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "c3" } };
    await agent.invoke({ messages: [new HumanMessage("one")] }, config);
    await agent.invoke({ messages: [new HumanMessage("two")] }, config);
    await agent.invoke({ messages: [new HumanMessage("three")] }, config);
    const bodies = server.requests.map((r) => r.body as { messages: WireMessage[] });
    for (const b of bodies) {
      expect(systemsOf(b)).toHaveLength(1);
      expect(b.messages[0]!.role).toBe("system");
      expect(textOf(b.messages[0]!).startsWith(SYSTEM_PROMPT)).toBe(true);
    }
    expect(textOf(bodies[2]!.messages[0]!)).toBe(`${SYSTEM_PROMPT}\n\nPERSISTED-RULE`);
    const state = await agent.graph.getState(config);
    expect((state.values.messages as SystemMessage[]).filter((m) => SystemMessage.isInstance(m))).toHaveLength(1);
  });

  it("no agent system prompt: the injected system messages become the single one", async () => {
    const agent = createAgent({ model: model(), tools: [], middleware: [midConversationInjector(), systemMessageCoalescingMiddleware()], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "c4" } };
    await agent.invoke({ messages: [new HumanMessage("one")] }, config);
    await agent.invoke({ messages: [new HumanMessage("two")] }, config);
    const second = server.requests[1]!.body as { messages: WireMessage[] };
    expect(systemsOf(second)).toHaveLength(1);
    expect(second.messages[0]!.role).toBe("system");
    expect(textOf(second.messages[0]!)).toBe("INJECTED-RULE: never push to main.");
  });
});

describe("coalesceSystemMessages", () => {
  it("keeps a string base as a string, in order", () => {
    const m = coalesceSystemMessages(new SystemMessage("BASE"), [new SystemMessage("a"), new SystemMessage("b")])!;
    expect(m.content).toBe("BASE\n\na\n\nb");
  });
  it("keeps the base blocks (and their cache markers) untouched and appends", () => {
    const baseBlock = { type: "text", text: "BASE", cache_control: { type: "ephemeral" } };
    const m = coalesceSystemMessages(new SystemMessage({ content: [baseBlock] }), [new SystemMessage("x")])!;
    expect(m.content).toEqual([baseBlock, { type: "text", text: "\n\nx" }]);
    expect(m.text).toBe("BASE\n\nx");
  });
  it("no extras → the base itself; nothing at all → undefined", () => {
    const base = new SystemMessage("BASE");
    expect(coalesceSystemMessages(base, [])).toBe(base);
    expect(coalesceSystemMessages(new SystemMessage(""), [new SystemMessage("")])).toBeUndefined();
  });
});
