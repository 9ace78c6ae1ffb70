// One search at the configured provider, as title / URL / snippet. The request shapes and the response fields read
// here are the providers' documented ones (docs/web.md cites them; test/fixtures/web-search/ holds a response of
// each). The endpoint is the user's (a trusted .deerflowrc key), so it is called with plain fetch: a self-hosted
// SearXNG on localhost is the usual case, and the private-address rule of web_fetch is about where a page points.
import type { WebSearchSetup } from "../../config/web-search.js";
import { USER_AGENT, WebFetchError } from "./fetch-page.js";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

const SEARCH_TIMEOUT_MS = 20_000;

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => x !== null && typeof x === "object") : []);

/** Brave marks the query's words with <strong> in descriptions; the model gets plain text. */
const plain = (s: string) =>
  s
    .replace(/<\/?strong>/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");

function requestOf(setup: WebSearchSetup, query: string): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { "user-agent": USER_AGENT, accept: "application/json" };
  switch (setup.provider) {
    case "tavily":
      // POST /search with a JSON body; the key as a bearer token.
      return {
        url: setup.endpoint,
        init: { method: "POST", headers: { ...headers, "content-type": "application/json", authorization: `Bearer ${setup.apiKey}` }, body: JSON.stringify({ query, max_results: setup.maxResults }) },
      };
    case "brave": {
      // GET /res/v1/web/search?q=…&count=…; the key in X-Subscription-Token.
      const url = new URL(setup.endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(setup.maxResults));
      return { url: url.href, init: { headers: { ...headers, "x-subscription-token": setup.apiKey ?? "" } } };
    }
    case "searxng": {
      // GET <instance>/search?q=…&format=json (the instance must enable the json format).
      const url = new URL("search", setup.endpoint.endsWith("/") ? setup.endpoint : `${setup.endpoint}/`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      return { url: url.href, init: { headers: setup.apiKey ? { ...headers, authorization: `Bearer ${setup.apiKey}` } : headers } };
    }
  }
}

/** The results of a provider's JSON answer. */
export function resultsOf(provider: WebSearchSetup["provider"], body: unknown): SearchResult[] {
  const b = (body ?? {}) as Json;
  switch (provider) {
    case "tavily":
      return list(b.results).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) }));
    case "brave":
      return list((b.web as Json | undefined)?.results).map((r) => ({ title: plain(str(r.title)), url: str(r.url), snippet: plain(str(r.description)) }));
    case "searxng":
      return list(b.results).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) }));
  }
}

/** fetch's "fetch failed" hides the reason in `cause` (an AggregateError when several addresses were tried). */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
}

/** Searches; a failure is one line naming the provider and what to check. */
export async function search(setup: WebSearchSetup, query: string, signal?: AbortSignal): Promise<SearchResult[]> {
  const { url, init } = requestOf(setup, query);
  const timer = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, { ...init, credentials: "omit", signal: signal ? AbortSignal.any([signal, timer]) : timer });
  } catch (err) {
    if (signal?.aborted) throw err;
    const why = timer.aborted ? `no answer within ${SEARCH_TIMEOUT_MS / 1000} s` : causeOf(err);
    throw new WebFetchError(`The ${setup.provider} search at ${new URL(url).host} failed (${why}).`);
  }
  if (!res.ok) {
    const hint =
      setup.provider === "searxng" && res.status === 403
        ? ' (enable "json" under search.formats in the instance\'s settings.yml)'
        : res.status === 401 || res.status === 403
          ? ": check web.search.apiKey"
          : "";
    throw new WebFetchError(`The ${setup.provider} search answered HTTP ${res.status}${hint}.`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new WebFetchError(`The ${setup.provider} search did not answer JSON${setup.provider === "searxng" ? ' (enable "json" under search.formats in the instance\'s settings.yml)' : ""}.`);
  }
  return resultsOf(setup.provider, body)
    .filter((r) => r.url)
    .slice(0, setup.maxResults);
}
