// The `fetch` our ChatOpenAI uses (`configuration.fetch`). WHY at the transport: it is the one place that sees the
// raw bytes — so it can (1) time out a stream that goes quiet between chunks (the SDK's `timeout` only covers the
// first byte), (2) tell a complete answer (finish_reason or `[DONE]`) from one cut short, (3) reject what is not
// the OpenAI protocol (an HTML page with status 200, garbage SSE, no choices) with one clear error instead of
// handing it to the SDK (which logs "From chunk:" and throws a bare SyntaxError), (4) normalise each chunk
// (ChunkNormalizer), and (5) scrub secrets from error bodies before the SDK turns them into messages.
// Requests are rewritten too: `name` never goes out on assistant messages (xAI rejects it), and DeepSeek's
// `reasoning_content` goes back when the model's config asks for it. `name` stays on tool messages: Gemini's
// OpenAI endpoint requires it there (NousResearch/hermes-agent#19728); only a relay was seen to refuse it (#114713).
import { randomUUID } from "node:crypto";
import { ChunkNormalizer } from "./chunk-normalizer.js";
import { errorBody } from "./error-body.js";
import { fetchFollowingSameOrigin } from "./same-origin-fetch.js";
import { redactSecrets } from "./redact.js";
import { ModelStreamError } from "./stream-errors.js";
import { currentReasoning } from "./reasoning-context.js";
import { debugTimer } from "./debug-log.js";

export interface GuardedFetchOptions {
  /** Longest silence (no data event) allowed inside a response body. */
  idleTimeoutMs: number;
  /** Named in messages, e.g. "http://127.0.0.1:11434/v1". */
  endpoint: string;
  /** Send each assistant message's `reasoning_content` back (DeepSeek thinking mode with tools). */
  passBackReasoning?: boolean;
  /**
   * Most characters one answer may stream (text, reasoning and arguments together) before it is stopped: a provider
   * that ignores max_tokens and never ends must not run forever or fill memory (default OUTPUT_CAP_CHARS).
   */
  maxOutputChars?: number;
  /** Secrets to scrub from anything the provider sends back. */
  secrets?: (string | undefined)[];
  /** The fetch underneath (default: global fetch). */
  fetch?: typeof fetch;
}

type Json = Record<string, any>;
/** ~500k tokens: more than any model's longest answer, well under what memory holds. */
export const OUTPUT_CAP_CHARS = 2_000_000;
const SSE_FIELDS = /^(data|event|id|retry)(:|$)/;

export function guardedFetch(opts: GuardedFetchOptions): typeof fetch {
  const baseFetch = opts.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const { body, streaming, summary } = rewriteRequest(init?.body, opts.passBackReasoning === true);
    const secrets = [...(opts.secrets ?? []), bearerOf(init?.headers)];
    const logged = debugTimer("model.request", { endpoint: opts.endpoint, ...summary, stream: streaming });
    const res = await fetchFollowingSameOrigin(baseFetch, input, { ...init, body }, opts.endpoint).catch((err: unknown) => {
      const cause = (err as { cause?: { code?: unknown } })?.cause?.code;
      logged({ error: redactSecrets(`${String((err as Error)?.message ?? err)}${typeof cause === "string" ? ` (${cause})` : ""}`, secrets) });
      throw err;
    });
    if (!res.ok) {
      // Error bodies become SDK error messages: scrub them here, before anything can print or store them, and give
      // every provider's shape the one the SDK reads (`{"error":{"message"}}`), so its own words reach the user.
      const text = errorBody(redactSecrets(await res.text().catch(() => ""), secrets));
      logged({ status: res.status, error: snippet(text) });
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const ctx = { ...opts, secrets, id: `msg_${randomUUID().replace(/-/g, "")}`, logged: (end: Json) => logged({ status: res.status, ...end }) };
    const type = res.headers.get("content-type") ?? "";
    if (streaming && !/json|html/i.test(type)) {
      return new Response(guardStream(res, ctx), { status: res.status, headers: res.headers });
    }
    return guardWhole(res, ctx, streaming).catch((err: unknown) => {
      ctx.logged({ error: String((err as Error)?.message ?? err) });
      throw err;
    });
  };
}

interface Ctx extends GuardedFetchOptions {
  secrets: (string | undefined)[];
  id: string;
  /** Ends the request's debug-log line: its tokens when it completed, its error when it did not. */
  logged: (end: Json) => void;
}

/** The request as the debug log summarizes it (never its messages' content). */
type RequestSummary = { model?: unknown; messages?: number; tools?: number };

function bearerOf(headers: RequestInit["headers"] | undefined): string | undefined {
  if (!headers) return undefined;
  const h = new Headers(headers as HeadersInit);
  return h.get("authorization")?.replace(/^Bearer\s+/i, "") ?? h.get("api-key") ?? undefined;
}

function rewriteRequest(body: RequestInit["body"] | undefined, passBackReasoning: boolean): { body: RequestInit["body"] | undefined; streaming: boolean; summary?: RequestSummary } {
  if (typeof body !== "string") return { body, streaming: false };
  let req: Json;
  try {
    req = JSON.parse(body);
  } catch {
    return { body, streaming: false };
  }
  const summary = { model: req.model, messages: Array.isArray(req.messages) ? req.messages.length : undefined, tools: Array.isArray(req.tools) ? req.tools.length : undefined };
  if (!Array.isArray(req.messages)) return { body, streaming: req.stream === true, summary };
  const reasoning = passBackReasoning ? currentReasoning() : undefined;
  let a = 0;
  for (const m of req.messages) {
    if (m?.role !== "assistant") continue;
    delete m.name;
    const r = reasoning?.[a++];
    if (typeof r === "string" && r.length > 0) m.reasoning_content = r;
  }
  return { body: JSON.stringify(req), streaming: req.stream === true, summary };
}

function snippet(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

/** An `{"error": …}` object inside a 200 answer: the provider failed after all (OpenRouter does this mid-stream). */
function providerError(err: unknown, ctx: Ctx): ModelStreamError {
  const e = (typeof err === "object" && err !== null ? err : { message: String(err) }) as Json;
  const status = typeof e.code === "number" ? e.code : typeof e.status === "number" ? e.status : undefined;
  const msg = redactSecrets(snippet(typeof e.message === "string" ? e.message : JSON.stringify(e)), ctx.secrets);
  const transient = status === undefined || status === 429 || status >= 500;
  return new ModelStreamError("provider", `${ctx.endpoint} reported an error${status ? ` ${status}` : ""} inside its answer: ${msg}`, { transient, status });
}

/** A non-streaming answer (or a "stream" that came back as one JSON/HTML document): validate, normalise. */
async function guardWhole(res: Response, ctx: Ctx, streamingRequested: boolean): Promise<Response> {
  const text = await withIdleTimeout(res.text(), ctx, () => void res.body?.cancel().catch(() => {}));
  const cap = ctx.maxOutputChars ?? OUTPUT_CAP_CHARS;
  if (text.length > cap * 2 + 65_536) {
    throw new ModelStreamError(
      "too_long",
      `the answer from ${ctx.endpoint} was ${text.length.toLocaleString("en-US")} characters, far past ${cap.toLocaleString("en-US")} (the provider ignores max_tokens); nothing of it was used`,
      { transient: false },
    );
  }
  const type = res.headers.get("content-type") ?? "unknown content type";
  // Some proxies label an event stream application/json: the body says what it is.
  if (streamingRequested && /^\s*(data|:)/.test(text) && !/html/i.test(type)) {
    return new Response(guardStream(new Response(text), ctx), { status: res.status, headers: { "content-type": "text/event-stream" } });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ModelStreamError("protocol", `${ctx.endpoint} answered HTTP ${res.status} with ${type}, not the OpenAI API ("${redactSecrets(snippet(text), ctx.secrets)}")`, { transient: false });
  }
  if (typeof data !== "object" || data === null) throw new ModelStreamError("protocol", `${ctx.endpoint} answered with JSON that is not a chat completion`, { transient: false });
  const obj = data as Json;
  if (obj.error) throw providerError(obj.error, ctx);
  if (streamingRequested) throw new ModelStreamError("protocol", `${ctx.endpoint} answered a streaming request with a plain JSON document (${type})`, { transient: false });
  if (!Array.isArray(obj.choices) || obj.choices.length === 0) {
    throw new ModelStreamError("protocol", `${ctx.endpoint} answered without any choices`, { transient: true });
  }
  const normalizer = new ChunkNormalizer(ctx.id);
  const out = JSON.stringify(normalizer.response(obj));
  ctx.logged({ tokens: tokensOf(obj.usage) });
  return new Response(out, { status: res.status, headers: { "content-type": "application/json" } });
}

/** A chunk's or an answer's `usage` as the debug log records it. */
function tokensOf(usage: unknown): Json | undefined {
  const u = usage as Json | undefined;
  return u && typeof u === "object" ? { input: u.prompt_tokens, output: u.completion_tokens, total: u.total_tokens } : undefined;
}

/**
 * An event's JSON. Some proxies glue several chunks into one event (`{…}{…}`): split where one object ends and the
 * next begins, and accept the split only if every piece parses (a "}{" inside a string makes a piece fail).
 */
function parseEventData(payload: string): unknown[] | undefined {
  try {
    return [JSON.parse(payload)];
  } catch {
    const pieces = payload.trim().split(/(?<=\})\s*(?=\{)/);
    if (pieces.length < 2) return undefined;
    try {
      return pieces.map((p) => JSON.parse(p));
    } catch {
      return undefined;
    }
  }
}

function idleError(ctx: Ctx): ModelStreamError {
  return new ModelStreamError("idle_timeout", `no data from ${ctx.endpoint} for ${ctx.idleTimeoutMs / 1000} s (idle timeout)`, { transient: true });
}

async function withIdleTimeout<T>(p: Promise<T>, ctx: Ctx, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(idleError(ctx));
    }, ctx.idleTimeoutMs);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The SSE body, re-framed event by event; errors the stream on stalls, cuts and protocol violations. */
function guardStream(res: Response, ctx: Ctx): ReadableStream<Uint8Array> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const normalizer = new ChunkNormalizer(ctx.id);
  let buf = "";
  let data: string[] = [];
  /** The current event's `event:` field: "error" (Anthropic-style proxies) carries the provider's failure. */
  let eventName = "";
  let sawDone = false;
  const cap = ctx.maxOutputChars ?? OUTPUT_CAP_CHARS;
  let produced = 0;
  let usage: unknown;
  const tooLong = () =>
    new ModelStreamError(
      "too_long",
      `the answer from ${ctx.endpoint} went past ${cap.toLocaleString("en-US")} characters without ending (the provider ignores max_tokens); it was stopped and nothing of it was used`,
      { transient: false },
    );
  /** Counts what a chunk adds to the answer; a runaway stream is stopped here, not when memory runs out. */
  const count = (c: Json): Json => {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices as Json[]) {
      const d = ch?.delta ?? {};
      produced += (typeof d.content === "string" ? d.content.length : 0) + (typeof d.reasoning_content === "string" ? d.reasoning_content.length : 0);
      for (const tc of Array.isArray(d.tool_calls) ? d.tool_calls : []) produced += typeof tc?.function?.arguments === "string" ? tc.function.arguments.length : 0;
    }
    if (produced > cap) throw tooLong();
    return c;
  };

  /** Handle one complete line; returns text to pass on ("" for none). */
  const line = (raw: string): string => {
    const l = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (l === "") {
      if (data.length === 0) return "";
      const payload = data.join("\n");
      const isError = eventName === "error";
      data = [];
      eventName = "";
      if (payload.trim() === "[DONE]") {
        sawDone = true;
        return "";
      }
      const objects = parseEventData(payload);
      if (!objects && isError) throw providerError({ message: payload }, ctx);
      if (!objects) {
        throw new ModelStreamError("protocol", `the stream from ${ctx.endpoint} is not valid server-sent events (unparsable data: "${redactSecrets(snippet(payload), ctx.secrets)}")`, {
          transient: false,
        });
      }
      let out = "";
      for (const parsed of objects) {
        if (isError) throw providerError((parsed as Json)?.error ?? parsed, ctx);
        if (typeof parsed !== "object" || parsed === null) throw new ModelStreamError("protocol", `the stream from ${ctx.endpoint} carried data that is not a chunk object`, { transient: false });
        if ((parsed as Json).error) throw providerError((parsed as Json).error, ctx);
        out += `data: ${JSON.stringify(count(normalizer.chunk(parsed as Json)))}\n\n`;
      }
      return out;
    }
    if (l.startsWith(":")) return ""; // keep-alive comment (": OPENROUTER PROCESSING"): not progress
    if (l.startsWith("data:")) {
      data.push(l.slice(5).replace(/^ /, ""));
      return "";
    }
    if (l.startsWith("event:")) eventName = l.slice(6).trim();
    if (SSE_FIELDS.test(l)) return "";
    throw new ModelStreamError("protocol", `the stream from ${ctx.endpoint} is not server-sent events (unexpected line "${redactSecrets(snippet(l), ctx.secrets)}")`, { transient: false });
  };

  const finish = (): string => {
    if (data.length > 0) return line("") + finish(); // a last event without its blank line
    if (!sawDone && !normalizer.sawFinish) {
      throw new ModelStreamError("incomplete", `the stream from ${ctx.endpoint} ended before the answer was complete (no finish_reason, no [DONE])`, { transient: true });
    }
    if (!normalizer.sawChoice) throw new ModelStreamError("protocol", `the stream from ${ctx.endpoint} carried no choices`, { transient: true });
    ctx.logged({ tokens: tokensOf(usage) });
    return "data: [DONE]\n\n";
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Silence is measured from when we start waiting for the provider, so a slow consumer is never blamed on it;
      // keep-alive comments keep us in this loop without moving the deadline.
      const deadline = Date.now() + ctx.idleTimeoutMs;
      try {
        for (;;) {
          if (sawDone) {
            controller.enqueue(encoder.encode(finish()));
            controller.close();
            void reader.cancel().catch(() => {});
            return;
          }
          const remaining = deadline - Date.now();
          const r =
            remaining <= 0
              ? "timeout"
              : await withIdleTimeout(reader.read(), { ...ctx, idleTimeoutMs: remaining }, () => {}).catch((e) =>
                  e instanceof ModelStreamError && e.kind === "idle_timeout" ? "timeout" : Promise.reject(e),
                );
          if (r === "timeout") {
            void reader.cancel().catch(() => {});
            throw idleError(ctx);
          }
          let out = "";
          if (r.done) {
            buf += decoder.decode();
            if (buf.length > 0) out += line(buf) + line("");
            buf = "";
            out += finish();
            controller.enqueue(encoder.encode(out));
            controller.close();
            return;
          }
          buf += decoder.decode(r.value, { stream: true });
          // One line longer than the whole answer may be (plus its JSON framing) is a runaway too.
          if (buf.length > cap * 2 + 65_536 && buf.indexOf("\n") < 0) throw tooLong();
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0 && !sawDone) {
            const l = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            out += line(l);
          }
          if (out) {
            controller.enqueue(encoder.encode(out));
            return;
          }
        }
      } catch (e) {
        void reader.cancel().catch(() => {});
        ctx.logged({ error: String((e as Error)?.message ?? e) });
        controller.error(e);
      }
    },
    cancel(reason) {
      ctx.logged({ error: "cancelled" });
      return reader.cancel(reason);
    },
  });
}
