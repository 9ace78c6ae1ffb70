// The web tools through the built CLI (the contract: a headless run's stream-json): web_search at a SearXNG
// configured in ~/.deerflowrc (replaying its recorded answer), web_fetch of a recorded page, and a fetch the network
// rules refuse — one line to the model, and the run goes on. `run` defaults to auto-edit, so nothing asks.
import { readFileSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { type WebPageServer, startWebPageServer } from "../support/web-pages.js";

const e2e = useE2E();
let site: WebPageServer;
let searx: Server;
let searxUrl: string;
const searches: string[] = [];
beforeAll(async () => {
  site = await startWebPageServer();
  const answer = readFileSync(new URL("../fixtures/web-search/searxng.json", import.meta.url));
  searx = createServer((req, res) => {
    searches.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(answer);
  });
  await new Promise<void>((r) => searx.listen(0, "127.0.0.1", r));
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await site.close();
  await new Promise<void>((r) => searx.close(() => r()));
});

type Event = { type: string; name?: string; args?: Record<string, unknown>; status?: string; output?: string; tool_call_id?: string };

describe("deerflow run with the web tools", () => {
  it("searches, fetches a page and reports a refused fetch in stream-json", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ web: { search: { provider: "searxng", url: searxUrl } } }));
    const docs = `${site.origin}/docs/retry`;
    e2e.server.setScript([
      { toolCalls: [{ id: "s1", name: "web_search", args: { query: "widgetlib retry policy" } }] },
      { toolCalls: [{ id: "f1", name: "web_fetch", args: { url: docs } }] },
      { toolCalls: [{ id: "f2", name: "web_fetch", args: { url: "http://169.254.169.254/latest/meta-data/" } }] },
      { content: "maxAttempts defaults to 3." },
    ]);
    const r = await sb.run(["run", "--output-format", "stream-json", "what is the retry default of widgetlib?"], {
      env: { DEERFLOW_TEST_ONLY_WEB_FETCH_ALLOWS_LOOPBACK: "1" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Event);
    const started = events.filter((e) => e.type === "tool.started");
    expect(started.map((e) => [e.name, e.args?.query ?? e.args?.url])).toEqual([
      ["web_search", "widgetlib retry policy"],
      ["web_fetch", docs],
      ["web_fetch", "http://169.254.169.254/latest/meta-data/"],
    ]);
    const completed = events.filter((e) => e.type === "tool.completed");
    expect(
      completed.map((e) => e.status),
      completed.map((e) => e.output).join("\n---\n"),
    ).toEqual(["ok", "ok", "error"]);
    expect(completed[0]!.output!.split("\n")[0]).toBe('2 results from searxng for "widgetlib retry policy"');
    expect(completed[0]!.output).toContain("https://docs.widgetlib.example/retry");
    expect(completed[1]!.output!.split("\n")[0]).toMatch(new RegExp(`^Fetched [\\d.]+ KB from ${docs} \\(HTTP 200, text/html, Markdown from HTML\\)$`));
    expect(completed[2]!.output).toMatch(/169\.254\.169\.254 \(linkLocal\) is not an address web_fetch reaches/);
    expect(completed[2]!.output).not.toContain("\n");
    expect(searches).toEqual(["/search?q=widgetlib+retry+policy&format=json"]);
    searches.length = 0;
    expect(site.requests.map((q) => q.path)).toEqual(["/docs/retry"]);
    expect(events.at(-1)).toMatchObject({ type: "run.completed" });
  });

  it("--timeout stops a run while a hostile PDF converts: the page's conversion never holds the process (spawned)", async () => {
    // Before the conversion moved to a worker thread, pdf.js held the main thread for the whole page (35 s and more
    // for this one): `--timeout 20` ran until SIGKILL (the fourteenth pass's W3). The conversion's own limit is 15 s.
    const sb = e2e.sandbox();
    const pdf = `${site.origin}/hostile/shared-stream.pdf`;
    e2e.server.setScript([{ toolCalls: [{ id: "f1", name: "web_fetch", args: { url: pdf } }] }, { content: "unreachable" }]);
    site.requests.length = 0;
    const started = performance.now();
    const r = await sb.run(["run", "--timeout", "3", "--output-format", "json", "read the pdf"], { env: { DEERFLOW_TEST_ONLY_WEB_FETCH_ALLOWS_LOOPBACK: "1" } });
    const seconds = (performance.now() - started) / 1000;
    expect(site.requests.map((q) => q.path)).toEqual(["/hostile/shared-stream.pdf"]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(JSON.parse(r.stdout).status).toBe("timeout");
    // Start-up, the 3 s limit and the way out, on a busy machine; under the conversion's own 15 s limit plus start-up.
    expect(seconds).toBeLessThan(15);
  });

  it("doctor says how to add a search provider, names the one in use, and fails on a key that is not set (in-process)", async () => {
    const sb = e2e.sandbox();
    const none = await runCli(sb, ["doctor"]);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toMatch(/✓ web\s+web_fetch reads public pages; web_search is not offered: add "web": \{"search": \{"provider": "tavily", "apiKey": "\$TAVILY_API_KEY"\}\}/);
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ web: { search: { provider: "searxng", url: searxUrl } } }));
    expect((await runCli(sb, ["doctor"])).stdout).toMatch(new RegExp(`✓ web\\s+web_search uses searxng at ${new URL(searxUrl).host}`));
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ web: { search: { provider: "tavily", apiKey: "$TAVILY_API_KEY" } } }));
    const unset = await runCli(sb, ["doctor"]);
    expect(unset.exitCode).toBe(1);
    expect(unset.stdout).toMatch(/✗ web\s+web\.search in .*\.deerflowrc reads its key from \$TAVILY_API_KEY, which is not set/);
    expect(searches).toEqual([]);
  });

  it("headless with --approval ask and no --yes: a fetch of a new domain is denied, and nothing is requested (in-process)", async () => {
    const sb = e2e.sandbox();
    site.requests.length = 0;
    e2e.server.setScript([{ toolCalls: [{ id: "f1", name: "web_fetch", args: { url: `${site.origin}/docs/retry` } }] }, { content: "Could not read it." }]);
    const r = await runCli(sb, ["run", "--approval", "ask", "--output-format", "json", "read the docs"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { permission_denials: { tool: string; summary?: string }[] };
    expect(result.permission_denials).toEqual([expect.objectContaining({ tool: "web_fetch" })]);
    expect(site.requests).toEqual([]);
  });
});
