/**
 * Proves test/support/openai-server.ts against the REAL @langchain/openai client, over HTTP,
 * in both streaming and non-streaming mode.
 */
import { ChatOpenAI } from "@langchain/openai";
import { type AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessageLike } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestModelServer, type TestModelServer } from "./support/openai-server.js";

let server: TestModelServer;

beforeEach(async () => {
  server = await startTestModelServer();
});
afterEach(async () => {
  await server.close();
});

function model(streaming: boolean, extra: Partial<ConstructorParameters<typeof ChatOpenAI>[0]> = {}) {
  return new ChatOpenAI({
    model: "test-model",
    apiKey: "test-key",
    configuration: { baseURL: server.url },
    useResponsesApi: false,
    streaming,
    maxRetries: 0,
    ...extra,
  });
}

/**
 * Streaming mode drives the model through `.stream()` and concatenates the chunks, which is what
 * an agent streaming tokens does. NOT `.invoke()` on a `streaming: true` model: that path
 * (ChatOpenAI._generate) additionally estimates token usage with tiktoken, which downloads its
 * encoder from https://tiktoken.pages.dev — offline that fetch is retried with backoff for ~1 min.
 */
async function ask(m: ChatOpenAI, streaming: boolean, input: BaseMessageLike[] | string): Promise<AIMessageChunk> {
  if (!streaming) return (await m.invoke(input)) as AIMessageChunk;
  let acc: AIMessageChunk | undefined;
  for await (const chunk of await m.stream(input)) acc = acc ? acc.concat(chunk) : chunk;
  if (!acc) throw new Error("empty stream");
  return acc;
}

describe.each([
  { mode: "non-streaming", streaming: false },
  { mode: "streaming", streaming: true },
])("$mode", ({ streaming }) => {
  it("plain text reply", async () => {
    server.push({ content: "Hello there, how are you today?" });
    const msg = await ask(model(streaming), streaming, "hi");
    expect(msg.content).toBe("Hello there, how are you today?");
    expect(msg.tool_calls ?? []).toEqual([]);
    expect(msg.response_metadata.finish_reason).toBe("stop");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.stream ?? false).toBe(streaming);
  });

  it("two tool calls in one turn", async () => {
    server.push({
      toolCalls: [
        { name: "read_file", args: { path: "src/index.ts", limit: 20 } },
        { name: "bash", args: { command: 'ls -la && echo "done"' }, id: "call_custom" },
      ],
    });
    const msg = await ask(model(streaming), streaming, "do things");
    expect(msg.tool_calls).toHaveLength(2);
    expect(msg.tool_calls![0]).toMatchObject({ name: "read_file", args: { path: "src/index.ts", limit: 20 } });
    expect(msg.tool_calls![0]!.id).toMatch(/^call_\d+$/);
    expect(msg.tool_calls![1]).toMatchObject({ name: "bash", args: { command: 'ls -la && echo "done"' }, id: "call_custom" });
    expect(msg.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("text and a tool call together", async () => {
    server.push({ content: "Let me look.", toolCalls: [{ name: "ls", args: {} }] });
    const msg = await ask(model(streaming), streaming, "look");
    expect(msg.content).toBe("Let me look.");
    expect(msg.tool_calls).toMatchObject([{ name: "ls", args: {} }]);
  });

  it("malformed tool-call arguments become invalid_tool_calls", async () => {
    server.push({ toolCalls: [{ name: "bash", args: "not json {" }] });
    const msg = await ask(model(streaming), streaming, "x");
    expect(msg.tool_calls ?? []).toHaveLength(0);
    expect(msg.invalid_tool_calls).toMatchObject([{ name: "bash", args: "not json {" }]);
  });

  it("truncated JSON arguments: invalid when invoked, partial-JSON-repaired when streamed", async () => {
    // LangChain quirk: AIMessageChunk parses streamed args with a partial-JSON parser.
    server.push({ toolCalls: [{ name: "bash", args: '{"command": "ls' }] });
    const msg = await ask(model(streaming), streaming, "x");
    if (streaming) expect(msg.tool_calls).toMatchObject([{ name: "bash", args: { command: "ls" } }]);
    else expect(msg.invalid_tool_calls).toMatchObject([{ name: "bash", args: '{"command": "ls' }]);
  });

  it("reports usage (scripted and default estimate)", async () => {
    server.push({ content: "ok", usage: { prompt_tokens: 123, completion_tokens: 45 } }, { content: "estimated" });
    const m = model(streaming);
    const a = await ask(m, streaming, "count me");
    expect(a.usage_metadata).toMatchObject({ input_tokens: 123, output_tokens: 45, total_tokens: 168 });
    const b = await ask(m, streaming, "count me too");
    expect(b.usage_metadata!.input_tokens).toBeGreaterThan(0);
    expect(b.usage_metadata!.output_tokens).toBeGreaterThan(0);
    if (streaming) expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it("finish_reason length is visible in response_metadata", async () => {
    server.push({ content: "truncated answ", finishReason: "length" });
    const msg = await ask(model(streaming), streaming, "long please");
    expect(msg.response_metadata.finish_reason).toBe("length");
  });

  it("a 500 reply surfaces as an error", async () => {
    server.push({ status: 500, error: "boom from upstream" });
    await expect(ask(model(streaming), streaming, "x")).rejects.toThrow(/boom from upstream/);
    expect(server.requests).toHaveLength(1);
  });

  it("a 429 (with retry-after) then success works with maxRetries: 1", async () => {
    server.push({ status: 429, error: "slow down", headers: { "retry-after": "0" } }, { content: "recovered" });
    const msg = await ask(model(streaming, { maxRetries: 1 }), streaming, "x");
    expect(msg.content).toBe("recovered");
    expect(server.requests).toHaveLength(2);
  });

  it("a 429 without retry-after is NOT retried by LangChain (RateLimitCapacityError)", async () => {
    server.push({ status: 429, error: "slow down" }, { content: "never used" });
    await expect(ask(model(streaming, { maxRetries: 1 }), streaming, "x")).rejects.toThrow(/slow down/);
    expect(server.requests).toHaveLength(1);
  });

  it("a disconnect errors", async () => {
    server.push({ disconnect: true, afterContent: "partial answer that gets cut" });
    await expect(ask(model(streaming), streaming, "x")).rejects.toThrow();
  });

  it("a hang errors with a client timeout", async () => {
    server.push({ hang: true });
    // The server never answers: the rejection itself proves the client timeout fired.
    await expect(ask(model(streaming, { timeout: 300 }), streaming, "x")).rejects.toThrow(/timed out|timeout/i);
  });

  it("records requests with their messages", async () => {
    server.push({ toolCalls: [{ name: "ls", args: { dir: "." } }] }, { content: "done" });
    const m = model(streaming);
    const first = await ask(m, streaming, [new SystemMessage("you are a test"), new HumanMessage("list files")]);
    await ask(m, streaming, [new SystemMessage("you are a test"), new HumanMessage("list files"), first, new ToolMessage({ content: "a.txt\nb.txt", tool_call_id: first.tool_calls![0]!.id! })]);
    const [r1, r2] = server.requests as [(typeof server.requests)[number], (typeof server.requests)[number]];
    expect(r1.method).toBe("POST");
    expect(r1.path).toBe("/v1/chat/completions");
    expect(r1.headers.authorization).toBe("Bearer test-key");
    expect(r1.body.model).toBe("test-model");
    expect(r1.body.messages).toEqual([
      { role: "system", content: "you are a test" },
      { role: "user", content: "list files" },
    ]);
    expect(r2.body.messages[2]).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: first.tool_calls![0]!.id, type: "function", function: { name: "ls", arguments: '{"dir":"."}' } }],
    });
    expect(r2.body.messages[3]).toMatchObject({ role: "tool", content: "a.txt\nb.txt", tool_call_id: first.tool_calls![0]!.id });
    expect(r2.receivedAt).toBeGreaterThanOrEqual(r1.receivedAt);
  });

  it("script as a function", async () => {
    server.setScript((req, index) => ({ content: `reply #${index} to ${req.body.messages.at(-1).content}` }));
    const m = model(streaming);
    expect((await ask(m, streaming, "first")).content).toBe("reply #0 to first");
    expect((await ask(m, streaming, "second")).content).toBe("reply #1 to second");
    // Pushed replies take precedence over the function.
    server.push({ content: "queued" });
    expect((await ask(m, streaming, "third")).content).toBe("queued");
    expect((await ask(m, streaming, "fourth")).content).toBe("reply #3 to fourth");
  });

  it("an exhausted script gives a 500 with an explanatory message", async () => {
    server.push({ content: "only one" });
    const m = model(streaming);
    await ask(m, streaming, "one");
    await expect(ask(m, streaming, "two")).rejects.toThrow(/test model script exhausted: no reply scripted for request #2/);
  });

  it("chunkDelayMs and delayMs slow the answer down", async () => {
    server.push({ content: "a b c d", delayMs: 100, chunkDelayMs: 20 });
    const started = Date.now();
    expect((await ask(model(streaming), streaming, "x")).content).toBe("a b c d");
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});

describe("raw protocol", () => {
  it("streams OpenAI-shaped SSE chunks", async () => {
    server.push({
      content: "Hi you",
      toolCalls: [
        { name: "a", args: { x: 1 } },
        { name: "b", args: "{}" },
      ],
    });
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "q" }], stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const datas = text
      .split("\n\n")
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ""));
    expect(datas.at(-1)).toBe("[DONE]");
    const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.total_tokens).toBe(usageChunk.usage.prompt_tokens + usageChunk.usage.completion_tokens);
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    const tcDeltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(tcDeltas.filter((d: any) => d.id).map((d: any) => [d.index, d.function.name])).toEqual([
      [0, "a"],
      [1, "b"],
    ]);
    const args = (i: number) =>
      tcDeltas
        .filter((d: any) => d.index === i)
        .map((d: any) => d.function.arguments)
        .join("");
    expect(args(0)).toBe('{"x":1}');
    expect(args(1)).toBe("{}");
  });

  it("serves GET /v1/models and 404s unknown routes", async () => {
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models.data.map((m: any) => m.id)).toEqual(["test-model"]);
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(server.requests).toHaveLength(0);
  });

  it("exhausted script answers HTTP 500 with the message in an OpenAI error body", async () => {
    const res = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [] }) });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error.message).toBe("test model script exhausted: no reply scripted for request #1");
  });

  it("close() ends hanging requests", async () => {
    server.push({ hang: true });
    const pending = fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" }).then(
      () => "answered",
      () => "failed",
    );
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await server.close();
    expect(await pending).toBe("failed");
    server = await startTestModelServer(); // afterEach closes this one
  });
});
