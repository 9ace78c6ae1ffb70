// The input as a user types it (issue 27), in a real terminal at 60×20 and 100×30: `/` opens a filtered menu of
// commands (↑↓, tab, enter, esc), `@` completes workspace paths (fuzzy, .gitignore respected) and sends the file's
// contents, and a message typed while a run works is queued, shown, taken back with esc, and sent when it ends.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { listThreads, userTexts } from "../support/requests.js";
import { MENU_TOP, inputText, submit, typeEchoed, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

const SIZES = [
  { cols: 60, rows: 20 },
  { cols: 100, rows: 30 },
] as const;

/** The menu's rows under the input (its keys row first), as on screen now. */
function menuRows(screen: string): string[] {
  const rows = screen.split("\n");
  const top = rows.findIndex((r) => MENU_TOP.test(r));
  return top < 0 ? [] : rows.slice(top + 1, -1);
}

describe.each(SIZES)("the input at $cols×$rows", ({ cols, rows }) => {
  it("/ opens the command menu, typing filters it, ↑↓ and tab complete, esc closes it, enter runs the command", async () => {
    const sb = e2e.sandbox();
    const t = tui.spawn(sb, ["chat"], { cols, rows });
    await waitReady(t);
    await t.type("/");
    await t.waitFor((s) => menuRows(s).some((r) => r.includes("/help")), { where: "screen" });
    await typeEchoed(t, "t");
    // /todos, /threads, /title start with t; /help no longer shows.
    await t.waitFor((s) => menuRows(s).some((r) => r.includes("/title")) && !menuRows(s).some((r) => r.includes("/help")), { where: "screen" });
    expect(menuRows(t.screen())[0]).toMatch(/^❯ \/todos/);
    await t.press("down", 2);
    await t.waitFor((s) => /^❯ \/title <text>/.test(menuRows(s).find((r) => r.startsWith("❯")) ?? ""), { where: "screen" });
    await t.press("tab");
    await t.waitFor(() => inputText(t) === "/title", { where: "screen" });
    await t.waitForGone(MENU_TOP);
    // The pick ends with a space: the arguments follow.
    await t.type("Typed title");
    await t.waitFor(() => inputText(t) === "/title Typed title", { where: "screen" });
    await t.press("enter");
    await t.waitFor("Title: Typed title");

    await typeEchoed(t, "/tod");
    await t.waitFor(MENU_TOP, { where: "screen" });
    await t.press("esc");
    await t.waitForGone(MENU_TOP);
    expect(inputText(t)).toBe("/tod");
    // Typing reopens it; enter runs the selected command (it needs no arguments).
    await typeEchoed(t, "o");
    await t.waitFor(MENU_TOP, { where: "screen" });
    await t.press("enter");
    await t.waitFor("No todos or notes yet");
    expect(t.softWrappedRows()).toEqual([]);
  }, 90_000);

  it("@ completes workspace paths fuzzily, leaves ignored files out, and the file's contents reach the model", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".gitignore"), "dist/\n");
    mkdirSync(join(sb.cwd, "src", "components"), { recursive: true });
    mkdirSync(join(sb.cwd, "dist"), { recursive: true });
    writeFileSync(join(sb.cwd, "src", "components", "AppHeader.tsx"), "export const HEADER_MARK = 'xyzzy-42';\n");
    writeFileSync(join(sb.cwd, "dist", "AppHeader.js"), "built");
    e2e.server.push({ content: "It exports HEADER_MARK." });
    const t = tui.spawn(sb, ["chat"], { cols, rows });
    await waitReady(t);
    await typeEchoed(t, "explain @apphdr");
    await t.waitFor((s) => menuRows(s).some((r) => r.includes("src/components/AppHeader.tsx")), { where: "screen" });
    expect(menuRows(t.screen()).join("\n")).not.toContain("dist/");
    await t.press("tab");
    await t.waitFor(() => inputText(t) === "explain @src/components/AppHeader.tsx", { where: "screen" });
    await t.waitForGone(MENU_TOP);
    await t.press("enter");
    await t.waitFor("It exports HEADER_MARK.");
    const texts = userTexts(e2e.server.requests[0]!);
    expect(texts[0]).toBe("explain @src/components/AppHeader.tsx");
    expect(texts.join("\n")).toContain("export const HEADER_MARK = 'xyzzy-42';");
    // A path typed out in full: enter sends it (the menu only completes what is unfinished).
    await waitReady(t);
    e2e.server.push({ content: "Still HEADER_MARK." });
    await typeEchoed(t, "again @src/components/AppHeader.tsx");
    await t.waitFor(MENU_TOP, { where: "screen" });
    await t.press("enter");
    await t.waitFor("Still HEADER_MARK.");
    expect(userTexts(e2e.server.requests[1]!).at(-2)).toBe("again @src/components/AppHeader.tsx");
  }, 90_000);

  it("/model opens a picker over the endpoint's models; ↓ and enter switch to one, and the next request uses it", async () => {
    const sb = e2e.sandbox();
    e2e.server.modelIds = ["test-model", "big-model"];
    e2e.server.push({ content: "Answered by the big one." });
    const t = tui.spawn(sb, ["chat"], { cols, rows });
    await waitReady(t);
    await submit(t, "/model");
    await t.waitFor("Switch model (for this session):", { where: "screen" });
    await t.waitFor("❯ 1. test-model · endpoint", { where: "screen" });
    await t.press("down");
    await t.waitFor("❯ 2. big-model", { where: "screen" });
    await t.press("enter");
    await t.waitFor("Model: big-model");
    await t.waitForGone("Switch model");
    await waitReady(t);
    await submit(t, "hello");
    await t.waitFor("Answered by the big one.");
    expect(e2e.server.requests[0]!.body.model).toBe("big-model");
  }, 90_000);

  it("!cmd output joins the conversation: the next request carries it, and `threads show` prints it as a shell entry", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "It printed shell-mark-77." });
    const t = tui.spawn(sb, ["chat"], { cols, rows });
    await waitReady(t);
    await submit(t, "!echo shell-mark-77; exit 4");
    await t.waitFor("exit 4");
    await waitReady(t);
    await submit(t, "what did it print?");
    await t.waitFor("It printed shell-mark-77.");
    const texts = userTexts(e2e.server.requests[0]!);
    expect(texts.at(-1)).toBe("what did it print?");
    expect(texts.at(-2)).toContain("$ echo shell-mark-77; exit 4\n(exit code 4)\n<output>\nshell-mark-77\n</output>");
    const [thread] = await listThreads(sb);
    const shown = await sb.run(["threads", "show", thread!.id]);
    expect(shown.stdout).toContain("! echo shell-mark-77; exit 4 (exit 4)\nshell-mark-77\n> what did it print?");
  }, 90_000);

  it("a message typed while a run works is queued and shown; esc takes the newest back into the input; the rest go in order when the run ends", async () => {
    const sb = e2e.sandbox();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    e2e.server.setScript(async (_req, i) => {
      if (i === 0) await held;
      return { content: i === 0 ? "First answer done." : "Second answer done." };
    });
    const t = tui.spawn(sb, ["chat"], { cols, rows });
    await waitReady(t);
    await submit(t, "first message");
    await t.waitFor(() => e2e.server.requests.length === 1);
    await submit(t, "second message");
    await t.waitFor("queued: second message", { where: "screen" });
    await submit(t, "third message");
    await t.waitFor("queued: third message", { where: "screen" });
    await t.press("esc");
    await t.waitForGone("queued: third message");
    await t.waitFor(() => inputText(t) === "third message", { where: "screen" });
    expect(t.screen()).toContain("queued: second message");
    await t.press("ctrl-u");
    await t.waitFor(() => inputText(t) === "", { where: "screen" });
    release();
    await t.waitFor("Second answer done.");
    await t.waitForGone("queued:");
    expect(e2e.server.requests).toHaveLength(2);
    expect(userTexts(e2e.server.requests[1]!).at(-1)).toBe("second message");
    expect(JSON.stringify(e2e.server.requests.map((r) => r.body))).not.toContain("third message");
    const scroll = t.scrollback();
    expect(scroll.indexOf("First answer done.")).toBeLessThan(scroll.indexOf("second message", scroll.indexOf("First answer done.")));
  }, 90_000);
});
