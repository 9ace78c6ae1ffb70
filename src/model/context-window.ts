// A model's context window when .deerflowrc does not set `contextWindow`: asked of the server that runs it, so a long
// conversation is compacted before the provider refuses it. First the OpenAI-compatible model list the endpoint
// already serves (`{baseUrl}/models`: vLLM, OpenRouter, Together AI say it there), then, in parallel, the native
// routes of the local servers at the same origin (Ollama `/api/ps` + `/api/show`, llama.cpp `/props`, LM Studio
// `/api/v0/models`). Nothing found: UNKNOWN_MODEL_WINDOW.
//
// Bounded: every probe shares one deadline (PROBE_TIMEOUT_MS, longer for a remote host), so a run waits at most that
// long, once per process. Same rules as the model request: only the model's own origin is asked, redirects are
// followed within it only, and the key goes with the requests to that origin alone (a native route of a local
// server may need it too, e.g. LM Studio with a token). A failed or silent probe is no error: the default applies.
//
// WHY a cache for the process and not on disk: a server's window changes when it is restarted with another `-c`,
// `num_ctx` or `--max-model-len`, and nothing would tell a stored value is stale; a probe costs one loopback round
// trip (a remote one at most the deadline) once per process, which is cheaper than a wrong window.
import { fetchFollowingSameOrigin } from "./same-origin-fetch.js";
import { windowInModelList, windowOfLlamaCppProps, windowOfOllamaPs, windowOfOllamaShow } from "./context-window-parsers.js";
import { listEndpointModels } from "./discover.js";

/**
 * The window assumed when neither the configuration nor the server says: 32k tokens. Conservative on purpose: it is
 * the native window of most models people run locally and no larger than any current hosted chat model's, so a
 * thread is compacted early rather than refused; a larger model only summarizes sooner than it had to (set its
 * contextWindow to lift it). Too small a guess costs a summary call; too large a guess costs a failed request.
 */
export const UNKNOWN_MODEL_WINDOW = 32_768;

/** The deadline shared by all probes of one model: a loopback server answers in milliseconds, a remote one slower. */
export const PROBE_TIMEOUT_MS = { loopback: 1_500, remote: 3_000 } as const;

export interface ModelWindow {
  tokens: number;
  /** configured: .deerflowrc; learned: the server said; default: UNKNOWN_MODEL_WINDOW (a guess). */
  source: "configured" | "learned" | "default";
}

export interface WindowProbeTarget {
  baseUrl: string;
  /** The model id sent in requests. */
  model: string;
  apiKey?: string;
  contextWindow?: number;
}

const learned = new Map<string, Promise<number | undefined>>();

function isLoopback(url: URL): boolean {
  const h = url.hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\./.test(h);
}

async function getJson(url: string, endpoint: string, init: RequestInit): Promise<unknown> {
  try {
    const res = await fetchFollowingSameOrigin(fetch, url, init, endpoint);
    if (!res.ok) {
      void res.body?.cancel().catch(() => {});
      return undefined;
    }
    return await res.json();
  } catch {
    return undefined;
  }
}

/** Asks the endpoint of `target` for its model's window (no cache): undefined when nothing answers with one. */
export async function probeContextWindow(target: WindowProbeTarget, timeoutMs?: number): Promise<number | undefined> {
  let base: URL;
  try {
    base = new URL(target.baseUrl);
  } catch {
    return undefined;
  }
  const endpoint = target.baseUrl.replace(/\/+$/, "");
  const budget = timeoutMs ?? (isLoopback(base) ? PROBE_TIMEOUT_MS.loopback : PROBE_TIMEOUT_MS.remote);
  const deadline = Date.now() + budget;
  // The model list is discovery's (one reader of `/models`); it states the window for vLLM, OpenRouter, Together AI.
  const listed = (await listEndpointModels("endpoint", endpoint, target.apiKey, budget))?.windows?.[target.model];
  if (listed !== undefined) return listed;
  const left = deadline - Date.now();
  if (left <= 0) return undefined;
  const signal = AbortSignal.timeout(left);
  const headers: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
  const get = (path: string) => getJson(path, endpoint, { headers, signal });
  const origin = base.origin;
  const ollama = async () => {
    const running = windowOfOllamaPs(await get(`${origin}/api/ps`), target.model);
    if (running !== undefined) return running;
    const body = JSON.stringify({ model: target.model });
    return windowOfOllamaShow(await getJson(`${origin}/api/show`, endpoint, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body, signal }));
  };
  const found = await Promise.all([ollama(), get(`${origin}/props`).then(windowOfLlamaCppProps), get(`${origin}/api/v0/models`).then((b) => windowInModelList(b, target.model))]);
  return found.find((w) => w !== undefined);
}

/** The window of `target`'s model: configured, else learned from its server (once per process), else the default. */
export async function modelWindow(target: WindowProbeTarget): Promise<ModelWindow> {
  if (target.contextWindow) return { tokens: target.contextWindow, source: "configured" };
  const key = `${target.baseUrl.replace(/\/+$/, "")}\0${target.model}`;
  let pending = learned.get(key);
  if (!pending) learned.set(key, (pending = probeContextWindow(target)));
  const tokens = await pending;
  return tokens === undefined ? { tokens: UNKNOWN_MODEL_WINDOW, source: "default" } : { tokens, source: "learned" };
}

/**
 * What a provider's overflow error says the window is ("maximum context length is 8192 tokens", "the available
 * context size (4096 tokens)"), remembered for the process so the next compaction sizes itself right.
 */
export function noteWindowFromError(target: WindowProbeTarget, message: string): number | undefined {
  const m = /maximum context length is (\d+)|available context size \((\d+) tokens\)|"n_ctx":\s*(\d+)/i.exec(message);
  const n = m ? Number(m[1] ?? m[2] ?? m[3]) : Number.NaN;
  if (!Number.isInteger(n) || n < 512) return undefined;
  learned.set(`${target.baseUrl.replace(/\/+$/, "")}\0${target.model}`, Promise.resolve(n));
  return n;
}
