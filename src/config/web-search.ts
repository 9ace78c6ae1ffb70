// web_search's provider: what .deerflowrc says (`web.search`), and what the tool needs to call it. The key is read
// from the environment when the tools are built, not when the config loads: a missing $TAVILY_API_KEY must not stop
// `deerflow config` or a chat — web_search is then not offered, and `deerflow doctor` says why.
import type { WebConfig, WebSearchProvider } from "./schema.js";

export interface ResolvedWeb {
  search?: NonNullable<WebConfig["search"]> & { file?: string };
}

/** Where each hosted provider answers (from its API documentation; docs/web.md cites them). */
export const DEFAULT_SEARCH_ENDPOINTS: Record<Exclude<WebSearchProvider, "searxng">, string> = {
  tavily: "https://api.tavily.com/search",
  brave: "https://api.search.brave.com/res/v1/web/search",
};

export const DEFAULT_SEARCH_RESULTS = 5;

export interface WebSearchSetup {
  provider: WebSearchProvider;
  endpoint: string;
  apiKey?: string;
  maxResults: number;
}

/**
 * A later file's `web.search` over the earlier: one that names a provider replaces it whole (provider, endpoint and
 * key belong together: the user's key must never go to an endpoint another file chose); one without (an untrusted
 * project's file keeps only maxResults) tunes what is there.
 */
export function mergeWeb(before: ResolvedWeb, web: WebConfig | undefined, file: string): ResolvedWeb {
  const s = web?.search;
  if (!s) return before;
  if (s.provider) return { search: { ...s, file } };
  return before.search ? { search: { ...before.search, ...(s.maxResults ? { maxResults: s.maxResults } : {}) } } : before;
}

/** The provider ready to call, or why web_search is not offered (one line, with what to do); neither: none configured. */
export function webSearchSetup(web: ResolvedWeb, env: NodeJS.ProcessEnv = process.env): { setup?: WebSearchSetup; problem?: string } {
  const s = web.search;
  if (!s) return {};
  const where = s.file ? `web.search in ${s.file}` : "web.search";
  let apiKey = s.apiKey;
  if (apiKey?.startsWith("$")) {
    apiKey = env[apiKey.slice(1)] || undefined;
    if (!apiKey) return { problem: `${where} reads its key from ${s.apiKey}, which is not set: export it, or web_search is not offered.` };
  }
  if (s.provider === "searxng") {
    if (!s.url) return { problem: `${where}: provider "searxng" needs "url", your instance's address (e.g. "http://localhost:8888").` };
    return { setup: { provider: s.provider, endpoint: s.url, apiKey, maxResults: s.maxResults ?? DEFAULT_SEARCH_RESULTS } };
  }
  if (!apiKey) return { problem: `${where}: provider "${s.provider}" needs "apiKey" (e.g. "$${s.provider.toUpperCase()}_API_KEY").` };
  return { setup: { provider: s.provider, endpoint: s.url ?? DEFAULT_SEARCH_ENDPOINTS[s.provider], apiKey, maxResults: s.maxResults ?? DEFAULT_SEARCH_RESULTS } };
}
