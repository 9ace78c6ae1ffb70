// Redirects of a model endpoint: followed within its origin only.
import { ModelStreamError } from "./stream-errors.js";

/** Same-origin redirects followed (a proxy adding a slash); beyond that, or to another origin, it is an error. */
const MAX_REDIRECTS = 3;

/**
 * fetch, with redirects followed only within the endpoint's origin. WHY: a redirect to another host would carry the
 * whole conversation there (fetch drops the key, not the body); the user should point baseUrl at it knowingly.
 */
export async function fetchFollowingSameOrigin(baseFetch: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit, endpoint: string): Promise<Response> {
  let url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  for (let hop = 0; ; hop++) {
    const res = await baseFetch(hop === 0 ? input : url, { ...init, redirect: "manual" });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
    if (location === null) return res;
    void res.body?.cancel().catch(() => {});
    const next = new URL(location, url);
    if (next.origin !== url.origin || hop >= MAX_REDIRECTS) {
      const where = next.origin !== url.origin ? `to another host (${next.origin})` : `more than ${MAX_REDIRECTS} times`;
      throw new ModelStreamError("protocol", `${endpoint} answered HTTP ${res.status}, a redirect ${where}; deerflow does not follow it, so the conversation stays where baseUrl points`, {
        transient: false,
      });
    }
    url = next;
  }
}
