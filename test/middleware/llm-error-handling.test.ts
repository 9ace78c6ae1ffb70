import net from "node:net";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, fakeModel } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelUnavailableError, ProviderError, formatErrorLine } from "../../src/errors.js";
import { type ModelRetryInfo, classifyModelError, llmErrorHandlingMiddleware, retryAfterMs } from "../../src/middleware/llm-error-handling.js";
import { unwrapMiddlewareError } from "../../src/vocabulary/error-chain.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

const EP = "http://127.0.0.1:1234/v1";

/** An error shaped like the OpenAI SDK's APIError. */
function httpError(status: number, message = "boom", headers: Record<string, string> = {}) {
  const h = new Headers(headers);
  return Object.assign(new Error(`${status} ${message}`), { status, headers: h });
}

function connectionError(code = "ECONNREFUSED") {
  const root = Object.assign(new Error(`connect ${code} 127.0.0.1:1234`), { code });
  const fetchFailed = new TypeError("fetch failed", { cause: root });
  class APIConnectionError extends Error {}
  return new APIConnectionError("Connection error.", { cause: fetchFailed });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the run to fail");
}

function agentFor(model: ReturnType<typeof fakeModel> | ChatOpenAI, opts: Parameters<typeof llmErrorHandlingMiddleware>[0] = {}) {
  return createAgent({ model, tools: [], middleware: [llmErrorHandlingMiddleware({ baseDelayMs: 1, maxDelayMs: 5, waitStepMs: 1, ...opts })] });
}

describe("LLMErrorHandling with a fake model", () => {
  it("two transient failures then success → the run succeeds; onRetry reports each wait", async () => {
    const model = fakeModel().respond(httpError(500)).respond(httpError(503)).respond(new AIMessage("hello"));
    const retries: ModelRetryInfo[] = [];
    const out = await agentFor(model, { endpoint: EP, onRetry: (i) => retries.push(i) }).invoke({ messages: [new HumanMessage("hi")] });
    expect(out.messages.at(-1)!.content).toBe("hello");
    expect(model.callCount).toBe(3);
    expect(retries.map((r) => [r.attempt, r.maxRetries])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(retries[0]!.reason).toBe(`HTTP 500 from ${EP} (boom)`);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(5);
  });

  it("four failures → ModelUnavailableError with one clear line and a hint", async () => {
    const model = fakeModel().alwaysThrow(httpError(500, "internal error"));
    const err = await failure(agentFor(model, { endpoint: EP }).invoke({ messages: [new HumanMessage("hi")] }));
    expect(model.callCount).toBe(4);
    const root = unwrapMiddlewareError(err);
    expect(root).toBeInstanceOf(ModelUnavailableError);
    const e = root as ModelUnavailableError;
    expect(e.message.replace(/ \([\d.]+ s in total\)/, "")).toBe(`Model request failed after 4 attempts: HTTP 500 from ${EP} (internal error).`);
    expect(e.message).not.toContain("\n");
    expect(e.hint).toBe("Check that the endpoint is up and the model name is right (deerflow doctor).");
    expect(e.exitCode).toBe(1);
    expect(formatErrorLine(e)).toBe(`${e.message} ${e.hint}`);
    expect((e as Error).cause).toBeDefined();
  });

  it("maxRetries is configurable", async () => {
    const model = fakeModel().alwaysThrow(connectionError());
    const err = unwrapMiddlewareError(await failure(agentFor(model, { endpoint: EP, maxRetries: 1 }).invoke({ messages: [new HumanMessage("hi")] })));
    expect(model.callCount).toBe(2);
    expect((err as Error).message.replace(/ \([\d.]+ s in total\)/, "")).toBe(`Model request failed after 2 attempts: cannot connect to ${EP} (ECONNREFUSED).`);
  });

  it("a 400 is not retried and becomes a ProviderError with the provider's words", async () => {
    const bad = httpError(400, "messages: invalid");
    const model = fakeModel().alwaysThrow(bad);
    const err = unwrapMiddlewareError(await failure(agentFor(model, { endpoint: EP }).invoke({ messages: [new HumanMessage("hi")] })));
    expect(model.callCount).toBe(1);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("bad_request");
    expect((err as Error).message).toBe(`Model request failed: the request was refused (HTTP 400 from ${EP}): messages: invalid.`);
    expect((err as Error).cause).toBe(bad);
  });

  it("a programming error (no status, no network sign) is not retried", async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'content')");
    const model = fakeModel().alwaysThrow(bug);
    const err = await failure(agentFor(model).invoke({ messages: [new HumanMessage("hi")] }));
    expect(model.callCount).toBe(1);
    expect(unwrapMiddlewareError(err)).toBe(bug);
  });

  it("401/403: the API key was rejected, no retry; 404: model not found, no retry", async () => {
    for (const [status, text, hint] of [
      [401, `Model request failed: the API key was rejected (HTTP 401 from ${EP}).`, "API key"],
      [403, `Model request failed: the API key was rejected (HTTP 403 from ${EP}).`, "API key"],
      [404, `Model request failed: model was not found (HTTP 404 from ${EP}): boom.`, "model name"],
    ] as const) {
      const model = fakeModel().alwaysThrow(httpError(status));
      const err = unwrapMiddlewareError(await failure(agentFor(model, { endpoint: EP }).invoke({ messages: [new HumanMessage("hi")] })));
      expect(model.callCount).toBe(1);
      expect(err).toBeInstanceOf(ModelUnavailableError);
      expect((err as Error).message).toBe(text);
      expect((err as ModelUnavailableError).hint).toContain(hint);
    }
  });

  it("honours retry-after within maxRetryAfterMs; a longer one fails at once and says so (waiting less would be refused too)", async () => {
    const model = fakeModel()
      .respond(httpError(429, "slow down", { "retry-after-ms": "7" }))
      .respond(new AIMessage("ok"));
    const delays: number[] = [];
    await agentFor(model, { maxRetryAfterMs: 20, onRetry: (i) => delays.push(i.delayMs) }).invoke({ messages: [new HumanMessage("hi")] });
    expect(delays).toEqual([7]);
    expect(model.callCount).toBe(2);

    const long = fakeModel().alwaysThrow(httpError(429, "slow down", { "retry-after": "120" }));
    const err = await failure(agentFor(long, { maxRetryAfterMs: 20_000, onRetry: () => delays.push(-1) }).invoke({ messages: [new HumanMessage("hi")] }));
    expect(formatErrorLine(err)).toMatch(/after 1 attempt .*rate limited.*The server asks to wait 120 s \(retry-after\), longer than deerflow waits \(20 s\), so it did not retry\./);
    expect(long.callCount).toBe(1);
    expect(delays).toEqual([7]);
  });

  it("exponential backoff with full jitter: wait n is uniform below min(maxDelayMs, baseDelayMs·2^n)", async () => {
    const model = fakeModel().alwaysThrow(httpError(502));
    const delays: number[] = [];
    await failure(
      agentFor(model, { baseDelayMs: 10, maxDelayMs: 25, random: () => 0.999, onRetry: (i) => delays.push(i.delayMs) }).invoke({
        messages: [new HumanMessage("hi")],
      }),
    );
    expect(delays).toEqual([9, 19, 24]);
  });

  it("an abort during the backoff stops waiting at once", async () => {
    const model = fakeModel().alwaysThrow(httpError(500));
    const controller = new AbortController();
    const agent = agentFor(model, {
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      random: () => 0.99,
      onRetry: () => setTimeout(() => controller.abort(), 20),
    });
    const t0 = Date.now();
    const err = await failure(agent.invoke({ messages: [new HumanMessage("hi")] }, { signal: controller.signal }));
    expect(Date.now() - t0).toBeLessThan(30_000); // half the 60 s backoff: generous under load
    expect(model.callCount).toBe(1);
    expect(unwrapMiddlewareError(err)).not.toBeInstanceOf(ModelUnavailableError);
  });
});

describe("classifyModelError", () => {
  it("classifies the shapes SDKs produce", () => {
    expect(classifyModelError(httpError(429)).kind).toBe("transient");
    expect(classifyModelError(httpError(408)).kind).toBe("transient");
    expect(classifyModelError(httpError(599)).kind).toBe("transient");
    expect(classifyModelError(httpError(422)).kind).toBe("bad_request");
    expect(classifyModelError(Object.assign(new Error("x"), { lc_error_code: "MODEL_RATE_LIMIT" })).kind).toBe("transient");
    expect(classifyModelError(connectionError("ECONNRESET"), { endpoint: EP }).reason).toBe(`the connection to ${EP} was dropped (ECONNRESET)`);
    expect(classifyModelError(new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) })).kind).toBe("transient");
    expect(classifyModelError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })).kind).toBe("transient");
    const timeout = Object.assign(new Error("Request timed out."), { name: "TimeoutError" });
    expect(classifyModelError(timeout, { timeoutMs: 120_000 })).toEqual({ kind: "transient", reason: "timed out after 120 s waiting for the model endpoint" });
    expect(classifyModelError(Object.assign(new Error("x"), { name: "APIConnectionTimeoutError" })).kind).toBe("transient");
    expect(classifyModelError(new Error("FakeModel: no response queued")).kind).toBe("fatal");
  });

  it("reads retry-after as seconds, milliseconds or an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs({ "retry-after-ms": "150" })).toBe(150);
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 01 Jan 2030 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe("LLMErrorHandling against the real OpenAI client over HTTP", () => {
  let server: TestModelServer;
  beforeEach(async () => {
    server = await startTestModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const chat = (url: string, extra: Partial<ConstructorParameters<typeof ChatOpenAI>[0]> = {}) =>
    new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: url }, useResponsesApi: false, maxRetries: 0, ...extra });

  it("retries a 500 and a 429 (retry-after honoured) and then succeeds", async () => {
    server.push({ status: 500, error: "overloaded" }, { status: 429, error: "slow down", headers: { "retry-after": "0" } }, { content: "finally" });
    const reasons: string[] = [];
    const out = await agentFor(chat(server.url), { onRetry: (i) => reasons.push(i.reason) }).invoke({ messages: [new HumanMessage("hi")] });
    expect(out.messages.at(-1)!.content).toBe("finally");
    expect(server.requests).toHaveLength(3);
    expect(reasons).toEqual([`HTTP 500 from ${server.url} for model "test-model" (overloaded)`, `rate limited (HTTP 429 from ${server.url} for model "test-model"): slow down`]);
  });

  // Bodies as providers send them. OpenAI: the API reference's error object with code context_length_exceeded (also
  // what vLLM answers); llama.cpp server: tools/server `exceed_context_size_error` (its README and issue reports).
  it.each([
    [
      "OpenAI / vLLM",
      {
        error: {
          message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    ],
    [
      "llama.cpp server",
      { error: { code: 400, message: "request (4476 tokens) exceeds the available context size (4096 tokens)", type: "exceed_context_size_error", n_prompt_tokens: 4476, n_ctx: 4096 } },
    ],
  ])("a context-window overflow from %s is not retried and says what to do", async (_who, body) => {
    server.push({ raw: [JSON.stringify(body)], status: 400, headers: { "content-type": "application/json" } });
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url), { endpoint: EP }).invoke({ messages: [new HumanMessage("hi")] })));
    expect(server.requests).toHaveLength(1);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toContain(body.error.message.slice(0, 40)); // the provider's words, shortened
    expect((err as ProviderError).hint).toMatch(/contextWindow in \.deerflowrc/);
  });

  it("any other 400 gets no context-window hint", async () => {
    server.push({ status: 400, error: "messages: invalid" });
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url), { endpoint: EP }).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as ProviderError).hint ?? "").not.toMatch(/contextWindow/);
  });

  it("a dropped connection is retried", async () => {
    // (non-streaming: after a STREAMING disconnect the test server's next streamed answer stalls; the retry itself
    // happens either way — classifyModelError covers the streaming error shape, TypeError "terminated")
    server.push({ disconnect: true }, { content: "back" });
    const reasons: string[] = [];
    const out = await agentFor(chat(server.url), { onRetry: (i) => reasons.push(i.reason) }).invoke({ messages: [new HumanMessage("hi")] });
    expect(reasons).toEqual([`the connection to ${server.url} was dropped (UND_ERR_SOCKET)`]);
    expect(out.messages.at(-1)!.content).toBe("back");
    expect(server.requests).toHaveLength(2);
  });

  it("a server that keeps failing → one line naming the endpoint", async () => {
    server.setScript(() => ({ status: 500, error: "down" }));
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url)).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as Error).message.replace(/ \([\d.]+ s in total\)/, "")).toBe(`Model request failed after 4 attempts: HTTP 500 from ${server.url} for model "test-model" (down).`);
    expect(server.requests).toHaveLength(4);
  });

  it("a wrong API key is reported as such, without retries", async () => {
    server.push({ status: 401, error: "Incorrect API key provided" });
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url)).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as Error).message).toBe(`Model request failed: the API key was rejected (HTTP 401 from ${server.url} for model "test-model").`);
    expect(server.requests).toHaveLength(1);
  });

  it("an unknown model is reported as such", async () => {
    server.push({ status: 404, error: "The model `nope` does not exist" });
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url, { model: "nope" })).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as Error).message).toBe(`Model request failed: model "nope" was not found (HTTP 404 from ${server.url}): The model \`nope\` does not exist.`);
  });

  it("a refused connection → cannot connect to <endpoint>", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}/v1`;
    const err = unwrapMiddlewareError(await failure(agentFor(chat(url)).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as Error).message.replace(/ \([\d.]+ s in total\)/, "")).toBe(`Model request failed after 4 attempts: cannot connect to ${url} (ECONNREFUSED).`);
  });

  it("a hanging server → timed out after the model's timeout", async () => {
    server.setScript(() => ({ hang: true }));
    const err = unwrapMiddlewareError(await failure(agentFor(chat(server.url, { timeout: 200 }), { maxRetries: 1 }).invoke({ messages: [new HumanMessage("hi")] })));
    expect((err as Error).message.replace(/ \([\d.]+ s in total\)/, "")).toBe(`Model request failed after 2 attempts: timed out after 0.2 s waiting for ${server.url}.`);
  });
});
