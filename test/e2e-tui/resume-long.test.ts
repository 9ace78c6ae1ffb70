// End to end: a thread longer than what `deerflow resume` draws (controller.ts: RESUME_DRAWN_CHARS) shows its newest
// turns and says the rest is not drawn, yet the next request carries the whole conversation.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const TURNS = 12;
const answer = (i: number) => `Answer ${i}. ${"lorem ipsum ".repeat(150)}`; // ~1.8 KB: 12 of them pass the budget

describe("resuming a long thread", () => {
  it("draws the newest turns, names what is not drawn, and sends the model the whole history", async () => {
    const sb = e2e.sandbox();
    let thread: string | undefined;
    for (let i = 0; i < TURNS; i++) {
      e2e.server.push({ content: answer(i) });
      const r = await sb.run(["run", "--output-format", "json", ...(thread ? ["-t", thread] : []), `question ${i}`]);
      expect(r.exitCode, r.stderr).toBe(0);
      thread = (JSON.parse(r.stdout) as { thread_id: string }).thread_id;
    }
    const before = e2e.server.requests.length;

    const t = tui.spawn(sb, ["resume", thread!]);
    await waitReady(t, 60_000);
    const text = await t.waitFor(/earlier entries not drawn; `deerflow threads show/);
    expect(text).toContain(`Answer ${TURNS - 1}.`);
    expect(text).not.toContain("Answer 0.");

    e2e.server.push({ content: "All of it, yes." });
    await submit(t, "do you still see the first question?");
    await t.waitFor("All of it, yes.", { timeoutMs: 60_000 });
    const sent = e2e.server.requests[before]!;
    expect(userTexts(sent)).toEqual([...Array.from({ length: TURNS }, (_, i) => `question ${i}`), "do you still see the first question?"]);
    const answers = (sent.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "assistant").map((m) => String(m.content));
    expect(answers).toEqual(Array.from({ length: TURNS }, (_, i) => answer(i)));
  }, 300_000);
});
