import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, fakeModel } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { TITLE_PROMPT, fallbackTitle, normalizeTitle, titleMiddleware } from "../../src/middleware/title.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

type TitleState = { messages: BaseMessage[]; title: string | null };
const cfg = (thread: string) => ({ configurable: { thread_id: thread } });
const textOf = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));

function agentModel(...answers: string[]) {
  const m = fakeModel();
  answers.forEach((a, i) => m.respond(new AIMessage({ id: `agent-${i}-${Math.random()}`, content: a })));
  return m;
}

describe("Title middleware in createAgent", () => {
  it("TITLE_PROMPT starts with the marker the test server recognises", () => {
    expect(TITLE_PROMPT.startsWith("Write a short title")).toBe(true);
  });

  it("generates the title once from a scripted reply, normalised to ≤6 words / ≤60 chars; a second run keeps it", async () => {
    const titler = fakeModel().respond(new AIMessage('## "Fixing the Flaky Login Test in the CI Pipeline Today."'));
    const model = agentModel("The login test was flaky because of a race; fixed.", "You're welcome.");
    const agent = createAgent({ model, tools: [], middleware: [titleMiddleware({ model: titler })], checkpointer: new MemorySaver() });
    const out = (await agent.invoke({ messages: [new HumanMessage("Why is the login test flaky? Please fix it.")] }, cfg("t1"))) as unknown as TitleState;
    expect(out.title).toBe("Fixing the Flaky Login Test in");
    expect(out.title!.split(" ").length).toBeLessThanOrEqual(6);
    expect(out.title!.length).toBeLessThanOrEqual(60);
    expect(titler.callCount).toBe(1);
    // the request: the title system prompt + the user's message and the answer
    const req = titler.calls[0]!.messages;
    expect(req).toHaveLength(2);
    expect(SystemMessage.isInstance(req[0]!)).toBe(true);
    expect(textOf(req[0]!.content)).toBe(TITLE_PROMPT);
    expect(textOf(req[1]!.content)).toContain("Why is the login test flaky?");
    expect(textOf(req[1]!.content)).toContain("race; fixed.");
    // the title request is not in the thread
    expect(out.messages).toHaveLength(2);

    const second = (await agent.invoke({ messages: [new HumanMessage("thanks")] }, cfg("t1"))) as unknown as TitleState;
    expect(second.title).toBe("Fixing the Flaky Login Test in");
    expect(titler.callCount).toBe(1);
  });

  it("model failure → fallback from the user's message; the run does not fail; one model call", async () => {
    const titler = fakeModel().respond(new Error("provider down"));
    const agent = createAgent({ model: agentModel("Sure, here it is."), tools: [], middleware: [titleMiddleware({ model: titler })] });
    const out = (await agent.invoke({ messages: [new HumanMessage("Please refactor the payment module into smaller files")] })) as unknown as TitleState;
    expect(out.title).toBe("Please refactor the payment module into");
    expect(titler.callCount).toBe(1);
  });

  it("empty answer and timeout fall back too", async () => {
    const empty = fakeModel().respond(new AIMessage('  ""  '));
    const a1 = createAgent({ model: agentModel("ok"), tools: [], middleware: [titleMiddleware({ model: empty })] });
    const o1 = (await a1.invoke({ messages: [new HumanMessage("hello there friend")] })) as unknown as TitleState;
    expect(o1.title).toBe("hello there friend");

    const slow = { invoke: () => new Promise<never>(() => {}) } as unknown as ReturnType<typeof fakeModel>;
    const a2 = createAgent({ model: agentModel("ok"), tools: [], middleware: [titleMiddleware({ model: slow, timeoutMs: 50 })] });
    // The title model never answers: finishing at all proves the timeout fell back.
    const o2 = (await a2.invoke({ messages: [new HumanMessage("a slow title model")] })) as unknown as TitleState;
    expect(o2.title).toBe("a slow title model");
  });

  it("hidden <system-reminder> messages are not the user's message", async () => {
    const agent = createAgent({ model: agentModel("ok"), tools: [], middleware: [titleMiddleware()] });
    const reminder = new HumanMessage({ content: "<system-reminder>\nToday's date is 2025-01-01.\n</system-reminder>", additional_kwargs: { deerflow_hidden: "dynamic_context" } });
    const out = (await agent.invoke({ messages: [reminder, new HumanMessage("rename the config loader")] })) as unknown as TitleState;
    expect(out.title).toBe("rename the config loader");
  });

  it("no model → the first ≤6 words of the user's message", async () => {
    const agent = createAgent({ model: agentModel("done"), tools: [], middleware: [titleMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("one two three four five six seven eight")] })) as unknown as TitleState;
    expect(out.title).toBe("one two three four five six");
  });

  it("no final AI answer (only tool calls) → no title yet", async () => {
    const titler = fakeModel();
    const model = fakeModel().respond(new AIMessage({ id: "x", content: "" }));
    const agent = createAgent({ model, tools: [], middleware: [titleMiddleware({ model: titler })] });
    const out = (await agent.invoke({ messages: [new HumanMessage("hi")] })) as unknown as TitleState;
    expect(out.title).toBeNull();
    expect(titler.callCount).toBe(0);
  });

  it('the title call never shows up in the run\'s "messages" stream; the title does in "updates"', async () => {
    const titler = fakeModel().respond(new AIMessage({ id: "title-reply", content: "Secret Title Words" }));
    const agent = createAgent({ model: agentModel("visible answer"), tools: [], middleware: [titleMiddleware({ model: titler })] });
    const stream = await agent.stream({ messages: [new HumanMessage("stream me")] }, { streamMode: ["messages", "updates"] });
    const seen: string[] = [];
    for await (const chunk of stream as AsyncIterable<[string, unknown]>) seen.push(JSON.stringify(chunk));
    expect(titler.callCount).toBe(1);
    const messageChunks = seen.filter((s) => s.startsWith('["messages"'));
    expect(messageChunks.some((s) => s.includes("visible answer"))).toBe(true);
    expect(messageChunks.some((s) => s.includes("Secret Title Words"))).toBe(false);
    expect(seen.some((s) => s.startsWith('["updates"') && s.includes('"title":"Secret Title Words"'))).toBe(true);
  });

  it("normalizeTitle / fallbackTitle", () => {
    expect(normalizeTitle("Title: **Refactor auth flow**!")).toBe("Refactor auth flow");
    expect(normalizeTitle("\n\n'Quick question'\nextra line")).toBe("Quick question");
    expect(normalizeTitle("<think>hmm</think>Deploy to staging.")).toBe("Deploy to staging");
    const long = normalizeTitle("Supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic");
    expect(long.length).toBeLessThanOrEqual(60);
    expect(normalizeTitle("")).toBe("");
    expect(fallbackTitle("")).toBe("New conversation");
    expect(fallbackTitle("  fix   the **bug**, now!  ")).toBe("fix the bug, now");
  });
});

describe("Title with a real (non-streaming) ChatOpenAI against the test server", () => {
  let server: TestModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("one title request recognised by its marker (answered by titleReply), only once per thread", async () => {
    server = await startTestModelServer(() => ({ content: "I added a dark mode toggle to settings." }));
    server.titleReply = { content: "Add Dark Mode Toggle." };
    const chat = new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });
    const agent = createAgent({ model: chat, tools: [], middleware: [titleMiddleware({ model: chat })], checkpointer: new MemorySaver() });
    const out = (await agent.invoke({ messages: [new HumanMessage("add a dark mode toggle to the settings page")] }, cfg("srv"))) as unknown as TitleState;
    expect(out.title).toBe("Add Dark Mode Toggle");
    expect(server.titleRequests).toHaveLength(1);
    const body = server.titleRequests[0]!.body;
    expect(body.messages).toHaveLength(2);
    expect(String(body.messages[1].content)).toContain("add a dark mode toggle to the settings page");
    expect(String(body.messages[1].content)).toContain("I added a dark mode toggle");
    expect(server.requests).toHaveLength(1); // the conversation's own request

    // second run on the thread: no new title request, title kept
    const again = (await agent.invoke({ messages: [new HumanMessage("thanks")] }, cfg("srv"))) as unknown as TitleState;
    expect(again.title).toBe("Add Dark Mode Toggle");
    expect(server.titleRequests).toHaveLength(1);
  });

  it("provider error (HTTP 500) → fallback, never throws", async () => {
    server = await startTestModelServer(() => ({ content: "answer" }));
    server.titleReply = { status: 500, error: "boom" };
    const chat = new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });
    const agent = createAgent({ model: chat, tools: [], middleware: [titleMiddleware({ model: chat })] });
    const out = (await agent.invoke({ messages: [new HumanMessage("explain the build failure please")] })) as unknown as TitleState;
    expect(out.title).toBe("explain the build failure please");
    expect(server.titleRequests).toHaveLength(1);
  });
});
