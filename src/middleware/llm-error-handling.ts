// LLMErrorHandling — WHY wrapModelCall: only a wrapper around the model call can repeat it. Transient failures
// (HTTP 429 / 408 / 409 / 5xx, refused or dropped connections, timeouts) are retried with exponential backoff and
// full jitter, honouring a capped `retry-after`; the wait is abortable through the run's signal. Anything else is
// not retried. When the endpoint stays unusable the run fails with ONE clear line (`ModelUnavailableError`) instead
// of an SDK stack trace; 401/403 (key rejected) and 404 (model not found) get the same treatment without retries.
// WHY its position: placed innermost (just before Clarification, the lead agent adds it unanchored), so a retry
// repeats only the HTTP request and none of the outer middleware's work (their wrappers run once per iteration).
// NOTE: LangChain wraps whatever a wrapModelCall throws in `MiddlewareError` (cause = our error); callers find the
// `ModelUnavailableError` with `unwrapMiddlewareError` from ../vocabulary/error-chain.js.
import { getRetryable } from "@langchain/core/errors";
import { createMiddleware } from "langchain";
import { ModelUnavailableError, ProviderError } from "../errors.js";
import { redactSecrets } from "../model/redact.js";
import { isModelStreamError } from "../model/stream-errors.js";
import { errorChain, isAbortError } from "../vocabulary/error-chain.js";
import { RETRY_STEP_MS, formatWait } from "../vocabulary/retry-status.js";

export interface ModelRetryInfo {
  /** The attempt that just failed (1-based); the next one is `attempt + 1`. */
  attempt: number;
  maxRetries: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  /** Short, one-line reason, e.g. "HTTP 500 from http://127.0.0.1:1234/v1". */
  reason: string;
  error: unknown;
}

export interface LLMErrorHandlingOptions {
  /** Retries after the first attempt (default 3, so at most 4 requests). */
  maxRetries?: number;
  /** Backoff base: the cap of retry n (0-based) is min(maxDelayMs, baseDelayMs·2^n); the wait is uniform in [0, cap). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Every wait is rounded up to a whole multiple of this (default RETRY_STEP_MS, 100 ms): the wait said is the wait taken. */
  waitStepMs?: number;
  /** Longest wait a server's `retry-after` / `retry-after-ms` may impose (default 30 000 ms). */
  maxRetryAfterMs?: number;
  /** Endpoint named in messages; default: read from the model (ChatOpenAI's baseURL). */
  endpoint?: string;
  /** Called before each wait, e.g. for the CLI's "retrying in 1.2 s…". Exceptions from it are ignored. */
  onRetry?: (info: ModelRetryInfo) => void;
  /** Source of randomness for the jitter (tests). */
  random?: () => number;
}

/** `fatal`: not a provider failure (a bug of ours) — rethrown as is. */
export type ModelErrorKind = "transient" | "auth" | "not_found" | "bad_request" | "protocol" | "fatal";

export interface ModelErrorClass {
  kind: ModelErrorKind;
  /** One line, no trailing period. */
  reason: string;
  retryAfterMs?: number;
  /** What to do, when it differs from the kind's usual hint. */
  hint?: string;
  /** A 4xx saying the request does not fit the model's context window. */
  contextOverflow?: boolean;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT",
]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
const TIMEOUT_NAMES = new Set(["TimeoutError", "APIConnectionTimeoutError", "ConnectTimeoutError", "HeadersTimeoutError", "BodyTimeoutError"]);
const CONNECTION_NAMES = new Set(["APIConnectionError", "FetchError", "SocketError"]);
/** Codes that mean "an established connection went away" rather than "could not connect". */
const DROP_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);

/**
 * How providers word "the request does not fit the context window" in a 400: OpenAI (`context_length_exceeded`,
 * "This model's maximum context length is …"), vLLM (the same words), llama.cpp server (`exceed_context_size_error`,
 * "request (4476 tokens) exceeds the available context size (4096 tokens)"), Anthropic-compatible gateways ("prompt is
 * too long"), Gemini's OpenAI endpoint ("input token count … exceeds the maximum").
 */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|maximum context length|exceed(s|ed)? the (available )?context|exceed_context_size|context length exceeded|prompt is too long|input token count.*exceeds/i;
const CONTEXT_OVERFLOW_HINT =
  "The conversation no longer fits the model's context window: set this model's contextWindow in .deerflowrc to its real window so deerflow compacts it in time (then /compact in chat), or start a new thread.";

interface ErrFields {
  status?: number;
  code?: string;
  name?: string;
  ctor?: string;
  message: string;
  lcCode?: string;
  headers?: unknown;
}

function fieldsOf(e: unknown): ErrFields {
  if (typeof e !== "object" || e === null) return { message: String(e) };
  const o = e as Record<string, unknown>;
  const rawStatus = o.status ?? o.statusCode ?? (o.response as Record<string, unknown> | undefined)?.status;
  const status = typeof rawStatus === "number" ? rawStatus : typeof rawStatus === "string" && /^\d{3}$/.test(rawStatus) ? Number(rawStatus) : undefined;
  return {
    status,
    code: typeof o.code === "string" ? o.code : undefined,
    name: typeof o.name === "string" ? o.name : undefined,
    ctor: (e as { constructor?: { name?: string } }).constructor?.name,
    message: typeof o.message === "string" ? o.message : "",
    lcCode: typeof o.lc_error_code === "string" ? o.lc_error_code : undefined,
    headers: o.headers ?? (o.response as Record<string, unknown> | undefined)?.headers,
  };
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") return undefined;
  const h = headers as { get?: (k: string) => unknown } & Record<string, unknown>;
  const v = typeof h.get === "function" ? h.get(name) : (h[name] ?? h[name.toLowerCase()]);
  if (Array.isArray(v)) return typeof v[0] === "string" ? v[0] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** `retry-after-ms` (OpenAI), else `retry-after` as seconds or an HTTP date; undefined when absent/unparsable. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const ms = headerValue(headers, "retry-after-ms");
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = headerValue(headers, "retry-after");
  if (ra === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Number(ra) * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The provider's own words, without the leading status and LangChain's troubleshooting footer, ≤120 chars. */
function providerDetail(message: string, status: number): string {
  let m = message.split("Troubleshooting URL:")[0]!.trim();
  m = m
    .replace(new RegExp(`^${status}\\s*`), "")
    .split("\n")[0]!
    .trim();
  if (!m || /status code \(no body\)/.test(m)) return "";
  return m.length > 120 ? `${m.slice(0, 119)}…` : m;
}

/** Classify a model-call failure; `endpoint`/`timeoutMs`/`modelName` only shape the reason text. */
export function classifyModelError(err: unknown, ctx: { endpoint?: string; timeoutMs?: number; modelName?: string } = {}): ModelErrorClass {
  const ep = ctx.endpoint ?? "the model endpoint";
  const chain = errorChain(err).map(fieldsOf);

  // The model layer's own verdicts on a 200 answer (stall, cut, not the protocol) come first: the SDK may have
  // wrapped them in a connection error.
  const stream = errorChain(err).find(isModelStreamError);
  if (stream) {
    if (stream.transient) return { kind: "transient", reason: stream.message };
    if (stream.kind === "too_long") return { kind: "protocol", reason: stream.message, hint: "Set a smaller maxTokens for this model, or use a server that honours it (deerflow config)." };
    return { kind: stream.kind === "provider" ? "bad_request" : "protocol", reason: stream.message };
  }

  const withStatus = chain.find((f) => f.status !== undefined && f.status >= 400);
  if (withStatus) {
    const status = withStatus.status!;
    const detail = providerDetail(withStatus.message, status);
    const where = `HTTP ${status} from ${ep}${ctx.modelName ? ` for model "${ctx.modelName}"` : ""}`;
    const retryAfter = retryAfterMs(withStatus.headers);
    if (status === 401 || status === 403) return { kind: "auth", reason: `the API key was rejected (${where})` };
    if (status === 404) return { kind: "not_found", reason: `model ${ctx.modelName ? `"${ctx.modelName}" ` : ""}was not found (HTTP 404 from ${ep})${detail ? `: ${detail}` : ""}` };
    if (status === 429) return { kind: "transient", reason: `rate limited (${where})${detail ? `: ${detail}` : ""}`, retryAfterMs: retryAfter };
    if (status === 408 || status === 409 || status >= 500) return { kind: "transient", reason: `${where}${detail ? ` (${detail})` : ""}`, retryAfterMs: retryAfter };
    // 400/422 and the rest of 4xx: the provider refused this request; its own words say why.
    const overflow = CONTEXT_OVERFLOW.test(`${withStatus.code ?? ""} ${withStatus.message}`);
    return { kind: "bad_request", reason: `the request was refused (${where})${detail ? `: ${detail}` : ""}`, ...(overflow ? { hint: CONTEXT_OVERFLOW_HINT, contextOverflow: true } : {}) };
  }

  for (const f of chain) {
    if (f.lcCode === "MODEL_AUTHENTICATION") return { kind: "auth", reason: `the API key was rejected by ${ep}` };
    if (f.lcCode === "MODEL_NOT_FOUND") return { kind: "not_found", reason: `model ${ctx.modelName ? `"${ctx.modelName}" ` : ""}was not found at ${ep}` };
    if (f.lcCode === "MODEL_RATE_LIMIT") return { kind: "transient", reason: `rate limited by ${ep}`, retryAfterMs: retryAfterMs(f.headers) };
  }

  const isTimeout = chain.some((f) => (f.code && TIMEOUT_CODES.has(f.code)) || (f.name && TIMEOUT_NAMES.has(f.name)) || (f.ctor && TIMEOUT_NAMES.has(f.ctor)) || /\btimed? ?out\b/i.test(f.message));
  if (isTimeout) {
    return { kind: "transient", reason: ctx.timeoutMs ? `timed out after ${formatWait(ctx.timeoutMs)} waiting for ${ep}` : `request to ${ep} timed out` };
  }

  const code = chain.find((f) => f.code && (NETWORK_CODES.has(f.code) || DROP_CODES.has(f.code)))?.code;
  const dropped = (code !== undefined && DROP_CODES.has(code)) || chain.some((f) => f.message === "terminated" || /other side closed|socket hang up/i.test(f.message));
  const connection =
    code !== undefined ||
    dropped ||
    chain.some((f) => (f.name && CONNECTION_NAMES.has(f.name)) || (f.ctor && CONNECTION_NAMES.has(f.ctor)) || /fetch failed|network error|connection error/i.test(f.message));
  if (connection) {
    const why = code ?? chain.map((f) => f.message).find((m) => /other side closed|socket hang up|terminated/i.test(m));
    return dropped ? { kind: "transient", reason: `the connection to ${ep} was dropped${why ? ` (${why})` : ""}` } : { kind: "transient", reason: `cannot connect to ${ep}${why ? ` (${why})` : ""}` };
  }

  // A provider SDK may have classified it for us (e.g. @langchain/openai stamps timeouts retryable).
  for (const e of errorChain(err)) {
    const r = getRetryable(e);
    if (r === true) return { kind: "transient", reason: chain[0]?.message.split("\n")[0] || "transient model error" };
    if (r === false) break;
  }
  return { kind: "fatal", reason: chain[0]?.message.split("\n")[0] ?? String(err) };
}

/** Best effort: where this chat model sends its requests (ChatOpenAI keeps it in clientConfig.baseURL). */
export function modelEndpoint(model: unknown): string | undefined {
  if (!model || typeof model !== "object") return undefined;
  const m = model as Record<string, any>;
  const candidates = [m.clientConfig?.baseURL, m.client?.baseURL, m.configuration?.baseURL, m.baseURL, m.baseUrl, m.apiUrl];
  return candidates.find((c): c is string => typeof c === "string" && c.length > 0);
}

function abortErrorFor(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const e = new Error(typeof signal.reason === "string" ? signal.reason : "The model request was aborted.");
  e.name = "AbortError";
  return e;
}

/** setTimeout that rejects as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortErrorFor(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortErrorFor(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

const HINTS: Record<Exclude<ModelErrorKind, "fatal">, string> = {
  transient: "Check that the endpoint is up and the model name is right (deerflow doctor).",
  auth: "Check the API key configured for this model (deerflow doctor).",
  not_found: "Check the model name and the base URL (deerflow doctor).",
  bad_request: "The provider rejected the request; check the model's settings in .deerflowrc (deerflow config).",
  protocol: "The endpoint does not speak the OpenAI chat-completions API; check baseUrl (it usually ends in /v1) with deerflow doctor.",
};
const PROVIDER_KIND = { auth: "auth", not_found: "not_found", bad_request: "bad_request", protocol: "protocol" } as const;

export function llmErrorHandlingMiddleware(options: LLMErrorHandlingOptions = {}) {
  const maxRetries = Math.max(0, options.maxRetries ?? 3);
  const baseDelayMs = Math.max(0, options.baseDelayMs ?? 500);
  const maxDelayMs = Math.max(0, options.maxDelayMs ?? 8000);
  const maxRetryAfterMs = Math.max(0, options.maxRetryAfterMs ?? 30_000);
  const random = options.random ?? Math.random;
  const step = Math.max(1, options.waitStepMs ?? RETRY_STEP_MS);

  return createMiddleware({
    name: "LLMErrorHandling",
    wrapModelCall: async (request, handler) => {
      const signal = request.runtime.signal;
      const model = request.model as unknown as Record<string, unknown>;
      const ctx = {
        endpoint: options.endpoint ?? modelEndpoint(model),
        timeoutMs: typeof model?.timeout === "number" ? model.timeout : undefined,
        modelName: typeof model?.model === "string" ? model.model : undefined,
      };
      // Providers echo requests: a key in an error body must not reach stderr, stream-json or the runs table.
      const apiKey = (model as { apiKey?: unknown } | undefined)?.apiKey;
      const scrub = (text: string) => redactSecrets(text, [typeof apiKey === "string" ? apiKey : undefined]);
      const started = Date.now();
      for (let attempt = 1; ; attempt++) {
        try {
          return await handler(request);
        } catch (err) {
          if (signal?.aborted || isAbortError(err)) throw err;
          const c = classifyModelError(err, ctx);
          c.reason = scrub(c.reason);
          if (c.kind === "fatal") throw err;
          if (c.kind !== "transient") {
            throw new ProviderError(PROVIDER_KIND[c.kind], `Model request failed: ${c.reason}.`, { hint: c.hint ?? HINTS[c.kind], cause: err, contextOverflow: c.contextOverflow });
          }
          // A server that asks for a longer wait than we allow will refuse an earlier retry too: say so now.
          const tooLongToWait = c.retryAfterMs !== undefined && c.retryAfterMs > maxRetryAfterMs;
          if (attempt > maxRetries || tooLongToWait) {
            const tries = `${attempt} attempt${attempt === 1 ? "" : "s"}`;
            const asked = tooLongToWait
              ? ` The server asks to wait ${formatWait(c.retryAfterMs!)} (retry-after), longer than deerflow waits (${formatWait(maxRetryAfterMs)}), so it did not retry.`
              : "";
            // The wall time, rounded up as the waits were: never less than the waits it includes.
            throw new ModelUnavailableError(`Model request failed after ${tries} (${formatWait(Date.now() - started)} in total): ${c.reason}.${asked}`, {
              hint: c.reason.startsWith("rate limited") ? "The endpoint is rate-limiting requests; wait a moment and try again (deerflow doctor)." : HINTS.transient,
              cause: err,
            });
          }
          const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
          const raw = c.retryAfterMs !== undefined ? Math.min(c.retryAfterMs, maxRetryAfterMs) : Math.floor(random() * cap);
          // Whole steps, so the wait announced ("retrying in 0.4 s") is the wait taken.
          const delayMs = Math.ceil(raw / step) * step;
          try {
            options.onRetry?.({ attempt, maxRetries, delayMs, reason: c.reason, error: err });
          } catch {
            // progress reporting must never change the outcome
          }
          await sleep(delayMs, signal);
        }
      }
    },
  });
}
