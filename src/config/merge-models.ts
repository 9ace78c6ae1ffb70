// How a file's `models` merge into the earlier files'. A trusted file's entry replaces an earlier one of the same name
// whole (its endpoint and key belong together: model-endpoint.ts sends a key only to a URL from the same file). An
// untrusted project's entry of a name an earlier (trusted) file defines only TUNES it: the routing keys (the id, the
// endpoint, the key) stay the user's, so a cloned repository never changes where the user's model goes (the
// eighteenth pass's T1b: `{"gpt":{"model":"gpt","contextWindow":1}}` replaced the user's local `gpt` whole and sent
// the conversation to OPENAI_BASE_URL). Its routing keys are already gone (trust-keys.ts) except an id equal to the
// name, which is safe only for an entry of its own.
import type { ModelConfig } from "./schema.js";

/** The keys of a model entry that say where its conversation goes, as what, and with which key. */
const ROUTE_KEYS: ReadonlySet<string> = new Set(["model", "baseUrl", "apiKey"]);

export interface MergedModels {
  models: Record<string, ModelConfig>;
  /** Entry name → the file its routing keys come from (a key is sent only to a URL from the same file). */
  origin: Record<string, string>;
}

export function mergeModels(into: MergedModels, file: { path: string; models?: Record<string, ModelConfig>; trusted: boolean }): MergedModels {
  const models = { ...into.models };
  const origin = { ...into.origin };
  for (const [name, entry] of Object.entries(file.models ?? {})) {
    const earlier = Object.hasOwn(models, name) ? models[name] : undefined;
    if (file.trusted || !earlier) {
      models[name] = entry;
      origin[name] = file.path;
      continue;
    }
    const tuning = Object.fromEntries(Object.entries(entry).filter(([k]) => !ROUTE_KEYS.has(k)));
    models[name] = { ...earlier, ...tuning };
  }
  return { models, origin };
}
