/**
 * A scripted, in-process stand-in for the OpenAI chat-completions API.
 *
 * It is a REAL HTTP server (node:http on 127.0.0.1, random port), so the real
 * `ChatOpenAI` client (`@langchain/openai`, `useResponsesApi: false`) talks to it
 * over the wire exactly as it would to api.openai.com:
 *
 *   const server = await startTestModelServer([{ content: "hi" }, { toolCalls: [...] }]);
 *   const model = new ChatOpenAI({ model: "test-model", apiKey: "test",
 *                                  configuration: { baseURL: server.url } });
 *   ...
 *   await server.close();
 *
 * Routes:
 *   POST /v1/chat/completions  recorded in `requests`, answered by the next scripted reply
 *                              (SSE when the body has `stream: true`, plain JSON otherwise)
 *   GET  /v1/models            `modelIds` (default one model, `test-model`), or `modelList` (a provider's recorded
 *                              list); records each request's authorization header in `modelListAuth`
 *   `routes`                   a local server's native routes ("POST /api/show", "GET /props", …) answering a
 *                              recorded body; each request to them is recorded in `probes`
 *   anything else              404 with an OpenAI-style error body
 *
 * Reply selection: replies queued with `push()` / an array script are used first, in order;
 * when the queue is empty a function script (if any) is called; otherwise the server answers
 * HTTP 500 "test model script exhausted: no reply scripted for request #N" (N is 1-based).
 * NOTE: LangChain retries 5xx (default maxRetries 6, with 1-2s+ exponential backoff), so an
 * under-scripted test fails fastest when the client is built with a small `maxRetries`.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a raw string is sent verbatim (may be malformed JSON). */
  args: Record<string, unknown> | string;
  /** Defaults to `call_<n>` (n counts up across the server's lifetime). */
  id?: string;
}

export type ScriptedReply =
  | {
      content?: string;
      toolCalls?: ScriptedToolCall[];
      /** Default: "tool_calls" when there are tool calls, else "stop". */
      finishReason?: "stop" | "tool_calls" | "length" | "content_filter";
      /** Default: rough estimate (chars / 4) of the request messages and of the reply. */
      usage?: { prompt_tokens: number; completion_tokens: number };
      /** Wait this long before answering at all. */
      delayMs?: number;
      /** Streaming only: wait this long between SSE chunks. */
      chunkDelayMs?: number;
      /**
       * Streaming only: stop before the first content piece that starts with `before` until `until` settles, so a test
       * acts while the answer is provably mid-stream (an event, not a delay).
       */
      holds?: { before: string; until: Promise<unknown> }[];
    }
  | { status: number; error?: string; headers?: Record<string, string> }
  | { disconnect: true; afterContent?: string }
  | { hang: true }
  | RawReply;

/**
 * A recorded body replayed byte for byte (provider fixtures, hostile streams): each piece is one write.
 * `end`: "close" (default) ends the response normally, "hang" leaves it open, "destroy" cuts the socket.
 */
export interface RawReply {
  raw: (string | Uint8Array)[];
  /** Default 200. */
  status?: number;
  /** Default `content-type: text/event-stream`. */
  headers?: Record<string, string>;
  /** Wait this long between pieces. */
  chunkDelayMs?: number;
  end?: "close" | "hang" | "destroy";
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  receivedAt: number;
}

export type Script = ScriptedReply[] | ((req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

export interface TestModelServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:PORT/v1` — pass as `configuration.baseURL`. */
  url: string;
  /** Every chat-completions request, in arrival order (recorded before it is answered). */
  requests: RecordedRequest[];
  /** Append replies to the queue (they take precedence over a function script). */
  push(...replies: ScriptedReply[]): void;
  /** Replace the script: an array resets the queue; a function clears the queue. */
  setScript(s: Script): void;
  /**
   * Requests for a thread title (their system prompt starts with "Write a short title", see the Title middleware).
   * They are answered from `titleReply` without touching the queue, so a test scripts only the conversation.
   */
  titleRequests: RecordedRequest[];
  /** The answer to title requests (default "Test thread title"); a ScriptedReply (e.g. {status: 500}) works too. */
  titleReply: ScriptedReply;
  /**
   * Memory extraction requests (their system prompt starts with "Extract durable memory", see src/memory/extract.ts),
   * answered from `memoryReply` (default: no facts) without touching the queue, like title requests.
   */
  memoryRequests: RecordedRequest[];
  memoryReply: ScriptedReply | ((req: RecordedRequest) => ScriptedReply);
  /** What GET /v1/models lists (default ["test-model"]). */
  modelIds: string[];
  /** The authorization header of each GET /v1/models, in order ("" when none was sent). */
  modelListAuth: string[];
  /** GET /v1/models answers this body instead (a provider's recorded list, e.g. vLLM's with `max_model_len`). */
  modelList?: unknown;
  /** Native routes by "METHOD /path" (the path as requested, e.g. "POST /api/show"): a body answered with 200, or hang. */
  routes: Record<string, { body: unknown; status?: number } | { hang: true }>;
  /** Requests to `routes` (and to unrouted native paths), in order: "METHOD /path", its authorization and body. */
  probes: { route: string; auth: string; body: any }[];
  /** Stop the server, destroying every open (including hanging) connection. */
  close(): Promise<void>;
}

/**
 * A gate for proving concurrency by events, not by the clock: `arrive(key)` waits until `count` distinct keys
 * have arrived, then resolves `true` for all of them (a retried request repeats its key, so it cannot stand in
 * for another). If they never all arrive (the work ran one after another, so the first waits forever), it
 * resolves `false` after `timeoutMs` instead of hanging the test; a test answers from a gate in a function script.
 */
export function gate(count: number, timeoutMs = 60_000): { arrive(key: string): Promise<boolean>; readonly opened: boolean } {
  const keys = new Set<string>();
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return {
    get opened() {
      return keys.size >= count;
    },
    arrive(key) {
      keys.add(key);
      if (keys.size >= count) open();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      return Promise.race([all.then(() => true), timedOut]).finally(() => clearTimeout(timer));
    },
  };
}

/** Side requests are recognised by their system prompt's marker (the Title middleware's, memory extraction's). */
function hasSystemPrefix(body: any, prefix: string): boolean {
  const first = Array.isArray(body?.messages) ? body.messages[0] : undefined;
  if (first?.role !== "system") return false;
  const text = typeof first.content === "string" ? first.content : Array.isArray(first.content) ? first.content.map((b: any) => b?.text ?? "").join("") : "";
  return text.startsWith(prefix);
}
const isTitleRequest = (body: any) => hasSystemPrefix(body, "Write a short title");
const isMemoryRequest = (body: any) => hasSystemPrefix(body, "Extract durable memory");

type TextReply = Exclude<ScriptedReply, RawReply | { status: number } | { disconnect: true } | { hang: true }>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Answers longer than this stream in pieces of about this size (cut after a word), not a piece per word. */
const LONG_PIECE = 2000;

/**
 * Split text into word-sized pieces whose concatenation is the original ("a b" -> ["a ", "b"]); a long text into
 * pieces of about LONG_PIECE characters, cut after a word: a client's cost per piece (LangChain's, ~0.15 ms) made the
 * tests that stream long answers (41 turns of 6 KB) spend most of their time there, and no test needs a word apart in
 * such a text (`holds` keeps a piece per word).
 */
function splitWords(text: string, wordByWord = false): string[] {
  const words = text.match(/\S*\s*/g)!.filter((piece) => piece.length > 0);
  if (wordByWord || text.length <= LONG_PIECE) return words;
  const out: string[] = [];
  for (const w of words) {
    if (out.length > 0 && out[out.length - 1]!.length < LONG_PIECE) out[out.length - 1] += w;
    else out.push(w);
  }
  return out;
}

/** Split a string into at most `n` roughly equal, non-empty fragments. */
function splitFragments(text: string, n = 3): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: http.ServerResponse, status: number, message: string, headers?: Record<string, string>) {
  const type = status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  const code = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : null;
  sendJson(res, status, { error: { message, type, code, param: null } }, headers);
}

export async function startTestModelServer(script?: Script): Promise<TestModelServer> {
  let queue: ScriptedReply[] = [];
  const api = {
    titleRequests: [] as RecordedRequest[],
    titleReply: { content: "Test thread title" } as ScriptedReply,
    memoryRequests: [] as RecordedRequest[],
    memoryReply: { content: '{"facts": []}' } as TestModelServer["memoryReply"],
    modelIds: ["test-model"],
    modelListAuth: [] as string[],
    routes: {},
    probes: [] as TestModelServer["probes"],
  } as TestModelServer;
  let scriptFn: Exclude<Script, ScriptedReply[]> | undefined;
  let toolCallCounter = 0;
  let completionCounter = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const setScript = (s: Script) => {
    if (typeof s === "function") [queue, scriptFn] = [[], s];
    else [queue, scriptFn] = [[...s], undefined];
  };
  if (script) setScript(script);

  /** Answer a normal (text and/or tool calls) reply, as SSE or plain JSON. */
  async function answer(res: http.ServerResponse, body: any, reply: TextReply) {
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    const toolCalls = (reply.toolCalls ?? []).map((tc) => ({
      id: tc.id ?? `call_${++toolCallCounter}`,
      name: tc.name,
      arguments: typeof tc.args === "string" ? tc.args : JSON.stringify(tc.args),
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
    const promptTokens = reply.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body?.messages ?? []));
    const completionTokens = reply.usage?.completion_tokens ?? estimateTokens((reply.content ?? "") + toolCalls.map((tc) => tc.name + tc.arguments).join(""));
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const head = { id: `chatcmpl-${++completionCounter}`, created: Math.floor(Date.now() / 1000), model: body?.model ?? "test-model", system_fingerprint: null };

    if (body?.stream !== true) {
      const message = {
        role: "assistant",
        // OpenAI sends `content: null` when the turn is only tool calls.
        content: reply.content ?? (toolCalls.length > 0 ? null : ""),
        refusal: null,
        ...(toolCalls.length > 0 && {
          tool_calls: toolCalls.map((tc) => ({ id: tc.id, type: "function", function: { name: tc.name, arguments: tc.arguments } })),
        }),
      };
      sendJson(res, 200, { ...head, object: "chat.completion", choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }], usage });
      return;
    }

    // Streaming: build the OpenAI chunk sequence, then write it with optional pauses.
    const chunk = (delta: object, finish: string | null = null) => ({
      ...head,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    const events: object[] = [chunk({ role: "assistant", content: "" })];
    const holds = new Map<object, Promise<unknown>>();
    const pending = [...(reply.holds ?? [])];
    for (const piece of splitWords(reply.content ?? "", pending.length > 0)) {
      const event = chunk({ content: piece });
      const at = pending.findIndex((h) => piece.startsWith(h.before));
      if (at >= 0) holds.set(event, pending.splice(at, 1)[0]!.until);
      events.push(event);
    }
    toolCalls.forEach((tc, index) => {
      // First the header (id, name, empty arguments), then argument fragments carrying only index.
      events.push(chunk({ tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.name, arguments: "" } }] }));
      for (const frag of splitFragments(tc.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
    });
    events.push(chunk({}, finishReason));
    // Like OpenAI, usage comes only when asked for (ChatOpenAI asks by default: streamUsage=true),
    // in a final chunk with an empty `choices` array.
    if (body?.stream_options?.include_usage) events.push({ ...head, object: "chat.completion.chunk", choices: [], usage });

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const event of events) {
      await holds.get(event);
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(event)}\n\n`);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    if (!res.destroyed) res.end("data: [DONE]\n\n");
  }

  async function replay(req: http.IncomingMessage, res: http.ServerResponse, reply: RawReply) {
    res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
    for (const piece of reply.raw) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(piece, () => resolve())); // flushed, so a cut comes after it
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    if (reply.end === "hang") return;
    if (reply.end === "destroy") return void req.socket.destroy();
    res.end();
  }

  /** Streaming: send the role chunk and some content, then kill the socket. Otherwise just kill it. */
  async function disconnect(req: http.IncomingMessage, res: http.ServerResponse, body: any, afterContent?: string) {
    if (body?.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const head = { id: `chatcmpl-${++completionCounter}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body?.model ?? "test-model" };
      const deltas = [{ role: "assistant", content: "" }, ...splitWords(afterContent ?? "").map((content) => ({ content }))];
      for (const delta of deltas) {
        const data = `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
        await new Promise<void>((resolve) => res.write(data, () => resolve())); // flush before the cut
      }
    }
    req.socket.destroy();
  }

  async function handleChat(req: http.IncomingMessage, res: http.ServerResponse, body: any) {
    const recorded: RecordedRequest = { method: req.method ?? "POST", path: req.url ?? "", headers: { ...req.headers }, body, receivedAt: Date.now() };
    const side = isTitleRequest(body) ? "title" : isMemoryRequest(body) ? "memory" : undefined;
    if (side) {
      (side === "title" ? api.titleRequests : api.memoryRequests).push(recorded);
      const r = side === "title" ? api.titleReply : api.memoryReply;
      const t = typeof r === "function" ? r(recorded) : r;
      if ("raw" in t) return replay(req, res, t);
      if ("status" in t) return sendError(res, t.status, t.error ?? `test model scripted HTTP ${t.status}`, t.headers);
      if ("hang" in t) return;
      if ("disconnect" in t) return disconnect(req, res, body, t.afterContent);
      return answer(res, body, t);
    }
    const index = requests.push(recorded) - 1;
    let reply: ScriptedReply | undefined;
    try {
      reply = queue.length > 0 ? queue.shift() : scriptFn ? await scriptFn(recorded, index) : undefined;
    } catch (err) {
      return sendError(res, 500, `test model script function threw: ${(err as Error)?.stack ?? String(err)}`);
    }
    if (!reply) {
      return sendError(res, 500, `test model script exhausted: no reply scripted for request #${index + 1}`);
    }
    if ("hang" in reply) return; // left open; close() destroys the socket
    if ("disconnect" in reply) return disconnect(req, res, body, reply.afterContent);
    if ("raw" in reply) return replay(req, res, reply);
    if ("status" in reply) {
      return sendError(res, reply.status, reply.error ?? `test model scripted HTTP ${reply.status}`, reply.headers);
    }
    return answer(res, body, reply);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0]!.replace(/^\/v1(?=\/)/, "");
      let body: any = undefined;
      const raw = Buffer.concat(chunks).toString("utf8");
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw);
        } catch {
          return sendError(res, 400, `test model: request body is not valid JSON: ${raw.slice(0, 200)}`);
        }
      }
      if (req.method === "GET" && path === "/models") {
        api.modelListAuth.push(String(req.headers.authorization ?? ""));
        return sendJson(res, 200, api.modelList ?? { object: "list", data: api.modelIds.map((id) => ({ id, object: "model", created: 0, owned_by: "deerflow-test" })) });
      }
      const route = `${req.method} ${(req.url ?? "").split("?")[0]}`;
      if (!route.includes(" /v1/")) {
        api.probes.push({ route, auth: String(req.headers.authorization ?? ""), body });
        const routed = api.routes[route];
        if (routed && "hang" in routed) return; // left open; close() destroys the socket
        if (routed) return sendJson(res, routed.status ?? 200, routed.body);
      }
      if (req.method === "POST" && path === "/chat/completions") {
        handleChat(req, res, body).catch((err) => sendError(res, 500, `test model server bug: ${String(err)}`));
        return;
      }
      sendError(res, 404, `test model: no route for ${req.method} ${req.url}`);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  Object.assign(api, {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...replies: ScriptedReply[]) => void queue.push(...replies),
    setScript,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy(); // idle keep-alive, streaming and hanging ones
      }),
  });
  return api;
}
