// guardedFetch on its own, over real HTTP to the loopback test server (raw replies byte for byte): what reaches the
// SDK from a good stream, and the one clear error for each way a provider's answer goes wrong. The provider fixtures
// in test/providers prove the same rules through ChatOpenAI; these name each one at the transport.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../src/model/guarded-fetch.js";
import { ModelStreamError } from "../../src/model/stream-errors.js";
import { startTestModelServer, type RawReply, type TestModelServer } from "../support/openai-server.js";

let server: TestModelServer;
beforeAll(async () => {
  server = await startTestModelServer([]);
});
afterAll(() => server.close());

const KEY = "sk-test-0123456789abcdefghij";
const sse = (...events: unknown[]): string[] => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`);
const chunk = (content: string, finish: string | null = null) => ({ id: "chatcmpl-9", choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

function post(reply: RawReply, opts: { stream?: boolean; idleTimeoutMs?: number; maxOutputChars?: number; messages?: unknown[] } = {}): Promise<Response> {
  server.push(reply);
  const f = guardedFetch({ idleTimeoutMs: opts.idleTimeoutMs ?? 30_000, endpoint: server.url, maxOutputChars: opts.maxOutputChars });
  return f(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: "test-model", stream: opts.stream ?? true, messages: opts.messages ?? [{ role: "user", content: "hi" }] }),
  });
}

/** The body as the SDK would read it, or the error it would get. */
async function read(res: Response): Promise<string | ModelStreamError> {
  return res.text().catch((e: unknown) => (e instanceof ModelStreamError ? e : Promise.reject(e)));
}

const events = (body: string): unknown[] =>
  body
    .split("\n\n")
    .filter(Boolean)
    .map((e) => (e === "data: [DONE]" ? "[DONE]" : JSON.parse(e.slice(6))));

describe("guardedFetch: requests", () => {
  it("leaves `name` off assistant messages (xAI refuses it) and keeps it on tool messages (Gemini needs it)", async () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", name: "deerflow", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", name: "ls", tool_call_id: "c1", content: "a.txt" },
    ];
    await read(await post({ raw: sse(chunk("ok", "stop"), "[DONE]") }, { messages }));
    const sent = server.requests.at(-1)!.body.messages;
    expect(sent[1]).not.toHaveProperty("name");
    expect(sent[2].name).toBe("ls");
  });
});

describe("guardedFetch: streams", () => {
  it("passes a good stream on re-framed, with one id of ours and the assistant role, ending in [DONE]", async () => {
    // Two chunks glued into one event, as some proxies send them, and a keep-alive comment.
    const glued = `data: ${JSON.stringify(chunk("Hel"))}${JSON.stringify(chunk("lo"))}\n\n`;
    const body = await read(await post({ raw: [": PROCESSING\n\n", glued, ...sse(chunk("", "stop"), "[DONE]")] }));
    const out = events(body as string) as Record<string, any>[];
    expect(out.at(-1)).toBe("[DONE]");
    const chunks = out.slice(0, -1);
    expect(chunks.map((c) => c.choices[0].delta.content).join("")).toBe("Hello");
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(chunks.every((c) => c.choices[0].delta.role === "assistant")).toBe(true);
  });

  it("accepts a stream that ends after its finish_reason without [DONE]", async () => {
    const body = await read(await post({ raw: sse(chunk("done", "stop")) }));
    expect(events(body as string).at(-1)).toBe("[DONE]");
  });

  it("fails a stream cut before its finish (no finish_reason, no [DONE]) as incomplete and transient", async () => {
    const err = await read(await post({ raw: sse(chunk("half an ans")) }));
    expect(err).toMatchObject({ kind: "incomplete", transient: true });
  });

  // Keep-alives go on for 60 s: were they progress, the read would outlast the test's 30 s limit.
  it("times out a stream that goes quiet, even while keep-alive comments arrive", async () => {
    const reply: RawReply = { raw: [...sse(chunk("a")), ...Array<string>(600).fill(": keep-alive\n\n")], chunkDelayMs: 100, end: "hang" };
    const err = await read(await post(reply, { idleTimeoutMs: 1_000 }));
    expect(err).toMatchObject({ kind: "idle_timeout", transient: true });
    expect((err as Error).message).toContain("for 1 s (idle timeout)");
  }, 30_000);

  it("stops a stream that runs past the output cap", async () => {
    const err = await read(await post({ raw: [...sse(chunk("x".repeat(60)), chunk("y".repeat(60))), ...sse(chunk("z", "stop"))] }, { maxOutputChars: 100 }));
    expect(err).toMatchObject({ kind: "too_long", transient: false });
  });

  it("turns an error object inside a 200 stream into the provider's error, its status and transience", async () => {
    const err = await read(await post({ raw: sse(chunk("a"), { error: { code: 502, message: "upstream overloaded" } }) }));
    expect(err).toMatchObject({ kind: "provider", status: 502, transient: true });
    expect((err as Error).message).toContain("reported an error 502 inside its answer: upstream overloaded");
    const refused = await read(await post({ raw: ["event: error\ndata: ", JSON.stringify({ error: { status: 400, message: "bad request" } }), "\n\n"] }));
    expect(refused).toMatchObject({ kind: "provider", status: 400, transient: false });
  });

  it("refuses what is not server-sent events with the offending line, secrets scrubbed", async () => {
    const err = await read(await post({ raw: ['data: {"choices":[]}\n', `<p>key ${KEY}</p>\n\n`] }));
    expect(err).toMatchObject({ kind: "protocol", transient: false });
    expect((err as Error).message).toMatch(/is not server-sent events \(unexpected line "<p>key .*<\/p>"\)/);
    expect((err as Error).message).not.toContain(KEY);
    const garbage = await read(await post({ raw: sse("{not json") }));
    expect((garbage as Error).message).toContain('unparsable data: "{not json"');
  });
});

describe("guardedFetch: whole answers", () => {
  it("refuses an HTML page sent with status 200 in one line naming the endpoint", async () => {
    const res = post({ raw: ["<html><body>Sign in to continue</body></html>"], headers: { "content-type": "text/html" } });
    const err = await res.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelStreamError);
    expect((err as ModelStreamError).message).toBe(`${server.url} answered HTTP 200 with text/html, not the OpenAI API ("<html><body>Sign in to continue</body></html>")`);
  });

  it("reads an event stream labelled application/json by what its body is", async () => {
    const res = await post({ raw: sse(chunk("ok", "stop"), "[DONE]"), headers: { "content-type": "application/json" } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(events((await read(res)) as string).at(-1)).toBe("[DONE]");
  });

  it("normalises a non-streaming answer, and refuses one without choices", async () => {
    const whole = { id: "chatcmpl-1", choices: [{ index: 0, finish_reason: "stop", message: { content: "hi", reasoning: "r" } }] };
    const res = await post({ raw: [JSON.stringify(whole)], headers: { "content-type": "application/json" } }, { stream: false });
    const body = JSON.parse((await read(res)) as string);
    expect(body.choices[0].message).toEqual({ role: "assistant", content: "hi", reasoning_content: "r" });
    expect(body.id).toMatch(/^msg_/);
    const empty = await post({ raw: ['{"id":"x","choices":[]}'], headers: { "content-type": "application/json" } }, { stream: false }).catch((e: unknown) => e);
    expect(empty).toMatchObject({ kind: "protocol", transient: true, message: `${server.url} answered without any choices` });
  });

  it("scrubs the key from an error body and gives it the shape the SDK reads", async () => {
    const res = await post({ raw: [`{"detail":"invalid key ${KEY}"}`], status: 401, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    const text = (await read(res)) as string;
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).error.message).toMatch(/^invalid key /);
  });
});
