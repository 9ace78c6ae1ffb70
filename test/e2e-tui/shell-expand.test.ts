// End to end in a real terminal: `!cmd` runs in the thread's workspace, ctrl+o shows a tool's whole output, and
// slash commands answer on screen.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { listThreads } from "../support/requests.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

describe("shell and tool output in the terminal", () => {
  it("!cmd runs in the thread's workspace and shows its output and exit code; the model is not called", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "!pwd; echo made > proof.txt; ls; exit 3");
    // The exit line of its own: the card's command line above the output holds "exit 3" too.
    await t.waitFor(/^\s*exit 3\s*$/m);
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).toBeTruthy();
    const screen = t.scrollback();
    expect(screen).toContain(thread!.workspace!);
    expect(screen).toContain("proof.txt");
    expect(e2e.server.requests).toHaveLength(0);
  }, 60_000);

  it("a finished tool card is one line; ctrl+o shows the last tool's full output", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "b1", name: "bash", args: { command: "seq 1 40" } }] }, { content: "Counted to forty." });
    const t = tui.spawn(sb, ["chat"], { rows: 60 });
    await waitReady(t);
    await submit(t, "count");
    await t.waitFor("Counted to forty.");
    expect(t.scrollback()).not.toMatch(/^\s*39$/m);
    await t.press("ctrl-o");
    await t.waitFor(/^\s+40$/m);
    expect(t.scrollback()).toMatch(/^\s+1$/m);
  }, 60_000);

  it("/help lists commands and keys; /threads lists this thread; an unknown command says so", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Hi from the model." });
    const t = tui.spawn(sb, ["chat"], { rows: 60 });
    await waitReady(t);
    await submit(t, "hello");
    await t.waitFor("Hi from the model.");
    // The answer shows before the run ends; type only once the input is back and empty.
    await waitReady(t);
    await submit(t, "/help");
    await t.waitFor("ctrl+t");
    expect(t.scrollback()).toContain("/goal [text|clear]");
    await submit(t, "/threads");
    const [thread] = await listThreads(sb);
    await t.waitFor(thread!.id);
    await submit(t, "/frobnicate");
    await t.waitFor("Unknown command /frobnicate");
  }, 60_000);
});
