// Esc in a real terminal keeps what streamed (issue 27, part 6): the partial answer stays on screen marked
// interrupted, `deerflow resume` in a new process draws it the same way, and the next prompt sends the model that
// answer with one note between the two user messages. At 60×20 and 100×30.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { partialAnswer } from "../support/partial-stream.js";
import { listThreads } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe.each([
  { cols: 60, rows: 20 },
  { cols: 100, rows: 30 },
])("esc mid-answer ($cols×$rows)", (size) => {
  it("keeps the streamed part, marked interrupted, on screen and after resume; the model is told once", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(partialAnswer("Tokens first: the lexer splits input on whitespace and then"));
    const t = tui.spawn(sb, ["chat"], size);
    await waitReady(t);
    await submit(t, "explain the lexer");
    await t.waitFor("splits input on", { where: "screen" });
    await t.press("esc");
    await t.waitFor("Interrupted. The thread is saved", { timeoutMs: 30_000 });
    await t.waitForGone("Working…");
    expect(t.scrollback()).toMatch(/Tokens first: the lexer splits\s+input on/);
    const [thread] = await listThreads(sb);
    expect(thread!.status).toBe("interrupted");
    await t.kill();

    const r = tui.spawn(sb, ["resume", thread!.id], size);
    await r.waitFor(`Resumed thread ${thread!.id}`);
    await waitReady(r);
    await r.waitFor(/splits\s+input on[\s\S]*\[interrupted by the user\]/);

    e2e.server.push({ content: "Picking up from the lexer." });
    await submit(r, "go on");
    await r.waitFor("Picking up from the lexer.");
    const sent = (e2e.server.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role !== "system" && !String(m.content).startsWith("<system-reminder>"));
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]!.content).toMatch(/^Tokens first: the lexer splits input on[a-z ]*\n\n\[Interrupted by the user\.\]$/);
  }, 90_000);
});
