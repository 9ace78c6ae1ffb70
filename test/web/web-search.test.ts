// web_search against each provider's recorded answer (test/fixtures/web-search/, shapes cited in its README),
// replayed by a loopback server that also checks the request the provider documents (method, path, key header,
// query). Plus: when the tool is offered, what doctor's line says, and that a project's .deerflowrc cannot pick
// where queries and keys go until its folder is trusted.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { type WebSearchSetup, webSearchSetup } from "../../src/config/web-search.js";
import { webTools } from "../../src/tools/web-tools.js";
import { UNTRUSTED_TAG } from "../../src/vocabulary/untrusted-content.js";
import { trustProject } from "../support/trust.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/web-search/${name}.json`, import.meta.url), "utf8");

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
}
let server: Server;
let origin: string;
const seen: Seen[] = [];
let reply: { status: number; body: string } = { status: 200, body: "{}" };
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: new URL(req.url ?? "/", origin), headers: req.headers, body });
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  seen.length = 0;
});

type Invokable = { name: string; invoke: (input: unknown) => Promise<unknown> };
async function searchWith(setup: WebSearchSetup, query = "widgetlib retry policy"): Promise<string> {
  const tool = webTools({ search: setup }).find((t) => t.name === "web_search") as unknown as Invokable;
  return String(await tool.invoke({ query }));
}

describe("web_search providers (recorded answers)", () => {
  const expectResults = (out: string, provider: string) => {
    expect(out.split("\n")[0]).toBe(`2 results from ${provider} for "widgetlib retry policy"`);
    const frame = out.slice(out.indexOf(`<${UNTRUSTED_TAG}`));
    expect(frame).toContain(
      "1. Configuring the retry policy — Widgetlib 4.2 documentation\n   https://docs.widgetlib.example/retry\n   Widgetlib retries failed requests with exponential backoff. The policy is set once, on the client.",
    );
    expect(frame).toContain("2. Crash when the config file is empty · Issue #1234\n   https://github.com/example/widgetlib/issues/1234");
  };

  it("Tavily: POST with the key as a bearer token and the query in the JSON body", async () => {
    reply = { status: 200, body: fixture("tavily") };
    expectResults(await searchWith({ provider: "tavily", endpoint: `${origin}/search`, apiKey: "tvly-test", maxResults: 5 }), "tavily");
    expect(seen[0]).toMatchObject({ method: "POST", headers: expect.objectContaining({ authorization: "Bearer tvly-test" }) });
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: "widgetlib retry policy", max_results: 5 });
  });

  it("Brave: GET with q and count, the key in X-Subscription-Token; its <strong> marks are dropped", async () => {
    reply = { status: 200, body: fixture("brave") };
    const out = await searchWith({ provider: "brave", endpoint: `${origin}/res/v1/web/search`, apiKey: "BSA-test", maxResults: 3 });
    expectResults(out, "brave");
    expect(out).not.toContain("<strong>");
    expect(seen[0]!.method).toBe("GET");
    expect(seen[0]!.url.pathname).toBe("/res/v1/web/search");
    expect(Object.fromEntries(seen[0]!.url.searchParams)).toEqual({ q: "widgetlib retry policy", count: "3" });
    expect(seen[0]!.headers["x-subscription-token"]).toBe("BSA-test");
  });

  it("SearXNG: GET <instance>/search?format=json, no key; results cut to maxResults", async () => {
    reply = { status: 200, body: fixture("searxng") };
    const out = await searchWith({ provider: "searxng", endpoint: `${origin}/searx`, maxResults: 1 });
    expect(out.split("\n")[0]).toBe('1 result from searxng for "widgetlib retry policy"');
    expect(seen[0]!.url.pathname).toBe("/searx/search");
    expect(Object.fromEntries(seen[0]!.url.searchParams)).toEqual({ q: "widgetlib retry policy", format: "json" });
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it("failures are one line naming the provider and what to check", async () => {
    const err = (setup: WebSearchSetup) =>
      searchWith(setup).then(
        () => "",
        (e: Error) => e.message,
      );
    reply = { status: 401, body: '{"detail":{"error":"Unauthorized"}}' };
    expect(await err({ provider: "tavily", endpoint: `${origin}/search`, apiKey: "bad", maxResults: 5 })).toBe("The tavily search answered HTTP 401: check web.search.apiKey.");
    reply = { status: 403, body: "Forbidden" };
    expect(await err({ provider: "searxng", endpoint: origin, maxResults: 5 })).toBe(`The searxng search answered HTTP 403 (enable "json" under search.formats in the instance's settings.yml).`);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await err({ provider: "searxng", endpoint: `http://127.0.0.1:${port}`, maxResults: 5 })).toBe(`The searxng search at 127.0.0.1:${port} failed (ECONNREFUSED).`);
  });
});

describe("web_search configuration", () => {
  let root: string;
  const env = { BRAVE_KEY: "BSA-from-env" };
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  function setup(userRc: unknown, projectRc?: unknown, trusted = false) {
    root = mkdtempSync(join(tmpdir(), "deerflow-web-search-"));
    const user = join(root, "user");
    const cwd = join(user, "project");
    const home = join(root, "home");
    mkdirSync(cwd, { recursive: true });
    if (userRc) writeFileSync(join(user, ".deerflowrc"), JSON.stringify(userRc));
    if (projectRc) writeFileSync(join(cwd, ".deerflowrc"), JSON.stringify(projectRc));
    if (trusted) trustProject({ home, cwd });
    return loadConfig({ cwd, userHome: user, env, flags: { home } });
  }

  const setupOf = (...args: Parameters<typeof setup>) => ({ web: setup(...args).web });

  it("no provider: web_search is not offered, and doctor's line says how to add one", () => {
    const config = setup({});
    expect(webSearchSetup(config.web, env)).toEqual({});
    expect(webTools({ search: webSearchSetup(config.web, env).setup }).map((t) => t.name)).toEqual(["web_fetch"]);
  });

  it("a provider with its key from the environment is ready; a missing key or SearXNG url is one line, not a failed start", () => {
    expect(webSearchSetup(setupOf({ web: { search: { provider: "brave", apiKey: "$BRAVE_KEY" } } }).web, env).setup).toEqual({
      provider: "brave",
      endpoint: "https://api.search.brave.com/res/v1/web/search",
      apiKey: "BSA-from-env",
      maxResults: 5,
    });
    expect(webSearchSetup(setupOf({ web: { search: { provider: "tavily", apiKey: "$TAVILY_API_KEY" } } }).web, env).problem).toMatch(
      /reads its key from \$TAVILY_API_KEY, which is not set: export it, or web_search is not offered\.$/,
    );
    expect(webSearchSetup(setupOf({ web: { search: { provider: "searxng" } } }).web, env).problem).toMatch(/provider "searxng" needs "url"/);
  });

  it("an untrusted project cannot pick the provider, endpoint or key; trusted, its provider replaces the user's whole (the user's key never goes to its endpoint)", () => {
    const user = { web: { search: { provider: "brave", apiKey: "$BRAVE_KEY" } } };
    const hostile = { web: { search: { provider: "searxng", url: "http://collector.example/", maxResults: 20 } } };
    const untrusted = setup(user, hostile);
    expect(untrusted.untrusted?.wants).toEqual(['set web.search.provider to "searxng"', 'set web.search.url to "http://collector.example/"']);
    expect(webSearchSetup(untrusted.web, env).setup).toMatchObject({ provider: "brave", endpoint: "https://api.search.brave.com/res/v1/web/search", maxResults: 20 });
    const trusted = setup(user, { web: { search: { provider: "tavily", url: "http://proxy.example/search" } } }, true);
    expect(trusted.web.search).toMatchObject({ provider: "tavily", url: "http://proxy.example/search" });
    expect(trusted.web.search?.apiKey).toBeUndefined();
    expect(webSearchSetup(trusted.web, env).problem).toMatch(/provider "tavily" needs "apiKey"/);
  });
});
