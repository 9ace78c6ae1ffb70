// End to end in a real terminal: a model retry is one transient status line under the transcript ("retrying in 3 s,
// attempt 2 of 4"), never warnings committed to the transcript; the answer that follows replaces it.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("model retries in the terminal", () => {
  it("two 503s (retry-after 3 s, then 1 s) show one changing status line; the transcript keeps only the answer", async () => {
    const sb = e2e.sandbox();
    // retry-after fixes each wait (no jitter), so the line's text is known; source of the header semantics: RFC 9110 §10.2.3.
    e2e.server.push(
      { status: 503, error: "overloaded", headers: { "retry-after": "3" } },
      { status: 503, error: "overloaded", headers: { "retry-after": "1" } },
      { content: "Answer after the retries." },
    );
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "hello");
    await t.waitFor(/Model endpoint: retrying in [\d.]+ s, attempt 2 of 4/, { where: "screen" });
    expect(t.screen()).toContain("HTTP 503");
    await t.waitFor("Answer after the retries.");
    await t.waitForGone(/Model endpoint: /);
    const all = t.scrollback();
    expect(all).not.toMatch(/retrying|attempt \d of \d|Retry \d/);
    expect(e2e.server.requests).toHaveLength(3);
  }, 60_000);
});
