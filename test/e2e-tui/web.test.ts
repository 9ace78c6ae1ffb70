// The web tools in a real terminal: in `ask` mode a fetch of a new domain waits for the user, who allows that
// domain for the thread; the next page of the same domain is fetched without asking; the tool cards show the URL
// and the size. The loopback page server is allowed by the test-only switch (docs/web.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALLOW_LOOPBACK_ENV } from "../../src/sandbox/address-check.js";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";
import { type WebPageServer, startWebPageServer } from "../support/web-pages.js";

const e2e = useE2E();
const tui = usePty();
let site: WebPageServer;
beforeAll(async () => {
  site = await startWebPageServer();
});
afterAll(() => site.close());

describe("web_fetch in the terminal", () => {
  it("asks before a new domain; allowing the domain covers its next page; the cards show URL and size", async () => {
    const sb = e2e.sandbox();
    const docs = `${site.origin}/docs/retry`;
    e2e.server.setScript([
      { toolCalls: [{ id: "f1", name: "web_fetch", args: { url: docs } }] },
      { toolCalls: [{ id: "f2", name: "web_fetch", args: { url: `${site.origin}/notes.txt` } }] },
      { content: "maxAttempts defaults to 3." },
    ]);
    const t = tui.spawn(sb, ["chat", "--approval", "ask"], { env: { [ALLOW_LOOPBACK_ENV]: "1" } });
    await waitReady(t);
    await submit(t, "what is the retry default?");
    await t.waitFor("Allow this tool call? (web_fetch)", { where: "screen" });
    const ask = t.screen();
    expect(ask).toContain(`fetch ${docs}`);
    expect(ask).toContain('why it asks: web_fetch reaches a new domain, 127.0.0.1 ("allow always" allows every page of');
    expect(ask).toContain("2. Allow always for this thread");
    expect(site.requests).toHaveLength(0); // nothing fetched before the answer
    await t.type("2");
    await t.waitFor("maxAttempts defaults to 3.");
    const shown = t.scrollback();
    expect(shown).toContain(`Allowed for this thread: fetch ${docs}`);
    // The second page of the same domain was fetched without a second question (one would leave the run waiting
    // and the answer above would never come).
    expect(site.requests.map((r) => r.path)).toEqual(["/docs/retry", "/notes.txt"]);
    expect(shown).toMatch(new RegExp(`✓ web_fetch ${docs} .*Fetched 2\\.\\d KB from`));
    expect(shown).toMatch(/✓ web_fetch \S+\/notes\.txt .*Fetched 21 B from/);
    // What the model read: the page inside the untrusted frame.
    const tool = (e2e.server.requests[1]!.body.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool");
    expect(String(tool?.content)).toContain(`<untrusted_content source="${docs}">`);
  }, 60_000);
});
