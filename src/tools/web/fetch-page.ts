// One web page's bytes, fetched the careful way (docs/web.md, "Network rules"):
// - http(s) only; a URL carrying a user name or password is refused (it would send a credential, and it is how a
//   page smuggles one into a later request);
// - every connection goes through guardedLookup (sandbox/address-check.ts): the address is checked at connect time, and an
//   IP literal before it, so neither a redirect nor DNS rebinding reaches loopback, private or metadata addresses;
// - redirects are followed by hand (at most MAX_REDIRECTS), each hop re-checked like the first, on the same host only
//   (another domain is named for the model to fetch, and asked for, itself); https → http is refused;
// - a size cap (the body is streamed and cut, and the result says so) and one time cap for all hops;
// - a User-Agent naming deerflow, no cookies (none are sent, none kept), nothing else from the workspace.
// node:http(s) and not fetch(): its `lookup` option is the connect-time hook the check needs.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { BlockedAddressError, blockedRange, guardedLookup } from "../../sandbox/address-check.js";

export const MAX_REDIRECTS = 5;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const USER_AGENT = "deerflow (terminal coding agent; web_fetch)";

export interface FetchLimits {
  maxBytes?: number;
  timeoutMs?: number;
  /** Test-only: reach loopback addresses (address-check.ts, ALLOW_LOOPBACK_ENV). */
  allowLoopback?: boolean;
  signal?: AbortSignal;
}

export interface FetchedPage {
  /** The URL the body came from (after redirects). */
  url: string;
  status: number;
  /** The media type, lower case, without parameters ("" when the server sent none). */
  contentType: string;
  charset?: string;
  body: Buffer;
  /** Set when the body was cut at `maxBytes`. */
  truncated: boolean;
  /** The URLs redirected from, in order. */
  redirects: string[];
}

/** A refusal or failure the model reads as one line (ToolErrorHandling turns it into the tool's error result). */
export class WebFetchError extends Error {
  override name = "WebFetchError";
}

/** The URL if web_fetch may request it; else a WebFetchError saying why. */
export function checkUrl(raw: string, allowLoopback = false): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebFetchError(`"${raw.slice(0, 200)}" is not a URL: give a full http:// or https:// address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new WebFetchError(`${url.protocol} URLs are not fetched: only http:// and https://.`);
  if (url.username || url.password) throw new WebFetchError("URLs with a user name or password are refused: web_fetch never sends credentials. Remove the user:password@ part.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const range = blockedRange(host, allowLoopback);
    if (range) throw new WebFetchError(new BlockedAddressError(host, host, range).message);
  }
  return url;
}

/** Fetches `raw`, following redirects within the rules above. */
export async function fetchPage(raw: string, limits: FetchLimits = {}): Promise<FetchedPage> {
  const allowLoopback = limits.allowLoopback ?? false;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = AbortSignal.timeout(timeoutMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, timer]) : timer;
  const redirects: string[] = [];
  let url = checkUrl(raw, allowLoopback);
  const first = url;
  try {
    for (;;) {
      const res = await request(url, allowLoopback, signal);
      const location = res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? res.headers.location : undefined;
      if (!location) return { ...(await readBody(res, limits.maxBytes ?? DEFAULT_MAX_BYTES)), url: url.href, redirects };
      res.destroy();
      if (redirects.length >= MAX_REDIRECTS) throw new WebFetchError(`${raw} redirected more than ${MAX_REDIRECTS} times; stopped at ${url.href}.`);
      redirects.push(url.href);
      url = nextHop(url, location, allowLoopback);
      // Approval is per domain (web-fetch.ts): a hop to another host is not followed here but named, so the model
      // fetches it itself and the user is asked for that domain (an open redirect reached an unapproved host: the
      // thirteenth pass's M1).
      if (url.hostname !== first.hostname) throw new WebFetchError(`${raw} redirects to ${url.href}, on another domain: call web_fetch on that URL to follow it.`);
    }
  } catch (err) {
    if (limits.signal?.aborted) throw err;
    if (timer.aborted) throw new WebFetchError(`${url.href} did not answer within ${timeoutMs / 1000} s; nothing was fetched.`);
    throw asFetchError(err, url);
  }
}

/** Where a redirect leads, if web_fetch may follow it (the same rules as the first URL; no https → http). */
export function nextHop(from: URL, location: string, allowLoopback = false): URL {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new WebFetchError(`${from.href} redirected to "${location.slice(0, 200)}", which is not a URL.`);
  }
  if (from.protocol === "https:" && to.protocol === "http:") throw new WebFetchError(`${from.href} redirected from https to plain http (${to.href}); the downgrade is refused.`);
  try {
    return checkUrl(to.href, allowLoopback);
  } catch (err) {
    throw new WebFetchError(`${from.href} redirected to ${to.href}: ${(err as Error).message}`);
  }
}

function request(url: URL, allowLoopback: boolean, signal: AbortSignal): Promise<http.IncomingMessage> {
  const mod = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, {
      method: "GET",
      // No agent: a pooled socket would skip the connect-time check of a later request.
      agent: false,
      lookup: guardedLookup(allowLoopback),
      signal,
      headers: { "user-agent": USER_AGENT, accept: "text/html, text/markdown, text/plain, application/json, application/pdf;q=0.9, */*;q=0.1", "accept-encoding": "gzip, deflate, br" },
    });
    req.on("response", resolve);
    req.on("error", reject);
    req.end();
  });
}

function readBody(res: http.IncomingMessage, maxBytes: number): Promise<Omit<FetchedPage, "url" | "redirects">> {
  const type = String(res.headers["content-type"] ?? "");
  const [media = "", ...params] = type.split(";").map((p) => p.trim());
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice(8)
    .replace(/"/g, "");
  // Compressed bodies are inflated as they stream, and the cap counts inflated bytes (a zip bomb stops at the cap).
  const body = decoded(res);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const done = () => resolve({ status: res.statusCode ?? 0, contentType: media.toLowerCase(), charset, body: Buffer.concat(chunks), truncated });
    body.on("data", (chunk: Buffer) => {
      if (truncated) return;
      if (size + chunk.length <= maxBytes) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      // Past the cap: keep what fits, stop reading (the server's remaining bytes are never downloaded).
      chunks.push(chunk.subarray(0, maxBytes - size));
      truncated = true;
      res.destroy();
      if (body !== res) body.destroy();
      done();
    });
    body.on("end", done);
    body.on("error", (err) => (truncated ? undefined : reject(err)));
    if (body !== res) res.on("error", (err) => (truncated ? undefined : reject(err)));
  });
}

function decoded(res: http.IncomingMessage): Readable {
  switch (String(res.headers["content-encoding"] ?? "").toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return res.pipe(createGunzip());
    case "deflate":
      return res.pipe(createInflate());
    case "br":
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

function asFetchError(err: unknown, url: URL): Error {
  if (err instanceof WebFetchError) return err;
  if (err instanceof BlockedAddressError) return new WebFetchError(err.message);
  const code = (err as { code?: string }).code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new WebFetchError(`${url.hostname} could not be resolved (DNS): check the address.`);
  if (code === "ECONNREFUSED") return new WebFetchError(`${url.host} refused the connection.`);
  return new WebFetchError(`Fetching ${url.href} failed: ${(err as Error).message ?? String(err)}.`);
}
