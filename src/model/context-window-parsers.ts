// How each kind of server states a model's context window, read from its own answer (pure; context-window.ts asks).
// Each reader takes the parsed JSON body and returns a window in tokens, or undefined when the body does not say.
// A number outside [MIN_WINDOW, MAX_WINDOW] is not believed (a placeholder, a byte count, garbage).

type Json = Record<string, unknown>;

const MIN_WINDOW = 512;
const MAX_WINDOW = 20_000_000;

/**
 * Ollama's context when the server says nothing more precise: since 0.6 it loads a model with 4096 tokens unless
 * the model file sets `num_ctx` or the server runs with OLLAMA_CONTEXT_LENGTH (newer versions pick more with more
 * VRAM). It cuts a longer prompt silently, so the model's trained length (often 128k) would never compact in time.
 */
export const OLLAMA_LOAD_CONTEXT = 4096;

function tokens(v: unknown): number | undefined {
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= MIN_WINDOW && n <= MAX_WINDOW ? n : undefined;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The entries of a model list: OpenAI's `{data: [...]}`, or a bare array (Together AI). */
export function modelListEntries(body: unknown): Json[] | undefined {
  const list = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : undefined;
  return list?.filter(isObject);
}

/**
 * One entry of `GET {baseUrl}/models`: vLLM's `max_model_len`; OpenRouter's `context_length` (and its top provider's,
 * the smaller wins: that provider serves the request); Together AI's `context_length`; LM Studio's REST list
 * (`/api/v0/models`): the loaded model's `loaded_context_length`, else its `max_context_length`.
 */
export function windowOfListedModel(entry: Json): number | undefined {
  const top = isObject(entry.top_provider) ? tokens(entry.top_provider.context_length) : undefined;
  const own = tokens(entry.context_length);
  const openRouterLike = top !== undefined && own !== undefined ? Math.min(top, own) : (top ?? own);
  return tokens(entry.max_model_len) ?? openRouterLike ?? tokens(entry.loaded_context_length) ?? tokens(entry.max_context_length);
}

/** The window of model `id` in a model list, if the list names it and says its window. */
export function windowInModelList(body: unknown, id: string): number | undefined {
  const entry = modelListEntries(body)?.find((e) => e.id === id);
  return entry ? windowOfListedModel(entry) : undefined;
}

/** llama.cpp server `GET /props`: the context of one slot (`default_generation_settings.n_ctx`), which bounds a request. */
export function windowOfLlamaCppProps(body: unknown): number | undefined {
  if (!isObject(body) || !isObject(body.default_generation_settings)) return undefined;
  return tokens(body.default_generation_settings.n_ctx);
}

/** Ollama `GET /api/ps`: the context a loaded model really runs with (`context_length`, newer servers). */
export function windowOfOllamaPs(body: unknown, model: string): number | undefined {
  if (!isObject(body) || !Array.isArray(body.models)) return undefined;
  const entry = body.models.filter(isObject).find((m) => m.name === model || m.model === model || m.name === `${model}:latest`);
  return entry ? tokens(entry.context_length) : undefined;
}

/**
 * Ollama `POST /api/show`: `num_ctx` in `parameters` (the model file's setting, what the server loads it with), else
 * the architecture's trained length (`model_info["<arch>.context_length"]`) capped at what Ollama loads by default.
 */
export function windowOfOllamaShow(body: unknown): number | undefined {
  if (!isObject(body)) return undefined;
  if (typeof body.parameters === "string") {
    const m = /^\s*num_ctx\s+(\d+)\s*$/m.exec(body.parameters);
    const set = m ? tokens(m[1]) : undefined;
    if (set !== undefined) return set;
  }
  if (!isObject(body.model_info)) return undefined;
  const info = body.model_info;
  const arch = typeof info["general.architecture"] === "string" ? info["general.architecture"] : undefined;
  const key = arch ? `${arch}.context_length` : Object.keys(info).find((k) => k.endsWith(".context_length"));
  const trained = key ? tokens(info[key]) : undefined;
  return trained === undefined ? undefined : Math.min(trained, OLLAMA_LOAD_CONTEXT);
}
