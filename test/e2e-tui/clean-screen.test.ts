// End to end in a real terminal: an approval always shows the change (pinned panels fold to one line while it
// waits; the rows go to changed lines), a finished todo list folds to one summary line when the run ends (ctrl+t
// opens it), the status line gives up its low-value parts before it would cut the approval mode, and resizing the
// window while an answer streams leaves no stale line (no old spinner or answer frame, no second header).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { statusLine, submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

const call = (id: string, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name, args }] });
const TODOS = [
  { content: "read the config", status: "completed" },
  { content: "bump the values", status: "in_progress" },
  { content: "run the tests", status: "pending" },
  { content: "write the changelog", status: "pending" },
];
const FILE = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`);

/** A chat in a repository with app.js, a todo list pinned, and `edit` waiting for approval. */
async function editWaiting(cols: number, rows: number, oldStr: string, newStr: string) {
  const sb = e2e.sandbox();
  const repo = join(sb.cwd, "repo");
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, "app.js"), `${FILE.join("\n")}\n`);
  e2e.server.push(call("t1", "write_todos", { todos: TODOS }), call("r1", "read_file", { path: "app.js" }), call("s1", "str_replace", { path: "app.js", old_str: oldStr, new_str: newStr }), {
    content: "edited",
  });
  const t = tui.spawn(sb, ["chat", "-w", repo], { cols, rows });
  await waitReady(t);
  await submit(t, "bump the values");
  await t.waitFor("Apply this edit?", { where: "screen" });
  return t;
}

describe("approvals always show the change", () => {
  it("60x20, a todo list pinned, a +1 −1 edit: both changed lines; the list folds to one line while the prompt waits", async () => {
    const t = await editWaiting(60, 20, "const v5 = 5;", "const v5 = 50;");
    const screen = t.screen();
    expect(screen).toMatch(/^-const v5 = 5;$/m);
    expect(screen).toMatch(/^\+const v5 = 50;$/m);
    expect(screen).toContain("+1 −1");
    expect(screen).toContain("app.js");
    expect(screen).toMatch(/^Todos 1\/4 done · ◐ bump the values$/m);
    expect(screen).not.toContain("○ run the tests");
    expect(screen).toContain("2. Allow edits for this thread");
    expect(t.softWrappedRows()).toEqual([]);
    // Answered, the list is pinned in full again while the run goes on.
    await t.type("1");
    await t.waitFor("edited");
    expect(t.raw()).not.toContain("\x1b[2J");
  }, 90_000);

  it.each([
    [60, 20],
    [100, 30],
  ])(
    "%ix%i, a todo list pinned, a 30-line change: at least 10 changed lines and how many more ctrl+o prints",
    async (cols, rows) => {
      const oldStr = FILE.slice(10, 25).join("\n");
      const newStr = FILE.slice(10, 25)
        .map((l) => l.replace(";", "; // bumped"))
        .join("\n");
      const t = await editWaiting(cols, rows, oldStr, newStr);
      const screen = t.screen();
      const changed = screen.split("\n").filter((r) => /^[-+]const v\d+/.test(r));
      expect(changed.length, screen).toBeGreaterThanOrEqual(Math.min(10, rows - 8));
      expect(screen).toMatch(/\+15 −15 .*app\.js · \d+ more \(ctrl\+o\)/);
      expect(screen).toMatch(/^Todos 1\/4 done · ◐ bump the values$/m);
      expect(t.softWrappedRows()).toEqual([]);
      expect(t.raw()).not.toContain("\x1b[2J");
    },
    90_000,
  );
});

describe("a finished run", () => {
  it("60x20: the finished todo list folds to one summary line, ctrl+t opens it; the status line keeps the approval mode", async () => {
    const sb = e2e.sandbox();
    const todos = (status: string) => ["find the failing test", "fix it", "run the suite"].map((content) => ({ content, status }));
    e2e.server.push(call("t1", "write_todos", { todos: todos("pending") }), call("t2", "write_todos", { todos: todos("completed") }), { content: "All three done." });
    const t = tui.spawn(sb, ["chat"], { cols: 60, rows: 20 });
    await waitReady(t);
    await submit(t, "fix the tests");
    await t.waitFor("All three done.");
    await t.waitFor("Todos 3/3 done · ctrl+t opens the list", { where: "screen" });
    expect(t.screen()).not.toMatch(/^\s+● fix it$/m);
    // The thread's title arrived: the line gives up the title and the shift+tab hint, never the mode.
    await t.waitFor(() => e2e.server.titleRequests.length > 0);
    await t.settle();
    expect(statusLine(t)).toMatch(/approval: ask$/);
    expect(statusLine(t)).not.toContain("…");
    await t.press("ctrl-t");
    await t.waitFor(/^\s+● fix it$/m, { where: "screen" });
    expect(t.screen()).toMatch(/^\s+● run the suite$/m);
    expect(t.softWrappedRows()).toEqual([]);
  }, 90_000);
});

describe("resizing while an answer streams", () => {
  it("100x30 → 60x20 → 100x30 → 70x24: the scrollback holds the header and each answer line once, no stale spinner", async () => {
    const sb = e2e.sandbox();
    const lines = Array.from({ length: 30 }, (_, i) => `R${String(i + 1).padStart(2, "0")} of a streamed answer that is long enough to wrap at sixty columns wide`);
    // The stream stops before R06, R13 and R19 until the window has been resized: each resize lands mid-answer.
    const resized: (() => void)[] = [];
    const holds = ["R06", "R13", "R19"].map((before) => ({ before, until: new Promise<void>((r) => resized.push(r)) }));
    e2e.server.push({ content: `${lines.join("\n")}\nEnd of the answer.`, holds });
    const t = tui.spawn(sb, ["chat"], { cols: 100, rows: 30 });
    await waitReady(t);
    await submit(t, "go");
    // A settled resize clears the screen and the scrollback and draws the transcript again (use-redraw-on-resize.ts):
    // the stream goes on once that redraw is on screen, so no check reads the terminal between the clear and the redraw.
    const clears = () => t.raw().split("\x1b[2J\x1b[3J\x1b[H").length - 1;
    for (const [i, [before, cols, rows]] of (
      [
        ["R05 ", 60, 20],
        ["R12 ", 100, 30],
        ["R18 ", 70, 24],
      ] as const
    ).entries()) {
      await t.waitFor(before, { where: "screen" });
      const cleared = clears();
      await t.resize(cols, rows);
      await t.waitFor((text) => clears() > cleared && /^deerflow v/m.test(text) && text.includes(before));
      resized[i]!();
    }
    await t.waitFor("End of the answer.");
    await t.waitForGone("Working…");
    const all = t.scrollback().split("\n");
    expect(all.filter((r) => r.startsWith("deerflow v"))).toHaveLength(1);
    expect(all.filter((r) => r.includes("❯ go"))).toHaveLength(1);
    expect(lines.map((l) => all.filter((r) => r.includes(l.slice(0, 4))).length)).toEqual(lines.map(() => 1));
    expect(all.filter((r) => r.includes("Working…"))).toEqual([]);
    expect(t.softWrappedRows()).toEqual([]);
  }, 90_000);
});
