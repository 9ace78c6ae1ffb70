// End to end in a real terminal: answers full of emoji (VS16, flags) and CJK stream and land in the scrollback
// exactly once at 60 and 100 columns, and a Markdown table with emoji aligns — widths are counted the way Ink counts
// them (src/tui/text-width.ts), so no line the chat wraps or cuts is wrapped or cut again.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { inputArea, submit, usePty, waitReady, type PtyProcess } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

/** Ink's own string-width: the columns Ink (and a modern terminal) give a row's text. */
const inkWidth: (s: string) => number = (await import(pathToFileURL(createRequire(join(process.cwd(), "node_modules/ink/package.json")).resolve("string-width")).href)).default;

const marker = (p: string, i: number) => `${p}${String(i + 1).padStart(2, "0")}`;
const EMOJI_LINES = Array.from({ length: 30 }, (_, i) => `${marker("L", i)} ${"Status ✅ done, deploy 🚀 shipped, checks ✔️ green ".repeat(1 + (i % 3))}🇯🇵 ok`);
const CJK_LINES = Array.from({ length: 30 }, (_, i) => `${marker("C", i)} ${"状態は良好です、デプロイ完了。中文说明 ".repeat(1 + (i % 3))}끝`);
const TABLE = ["| Step | State | Owner |", "|---|---|---|", "| build | ✅ done | 🚀 ops |", "| lint | skipped | bot |", "| test | ❌ failed | 中文 |", "| ship | ⏳ wait | ✔️ me |"];

/** Streams `answer` and collects every screen seen while it streams (the live region), then the final scrollback. */
async function stream(t: PtyProcess, answer: string, last: string): Promise<{ live: string[]; all: string[] }> {
  e2e.server.push({ content: answer, chunkDelayMs: 4 });
  await waitReady(t);
  await submit(t, "status?");
  const live: string[] = [];
  await t.waitFor(
    (text) => {
      live.push(t.screen());
      return text.includes(last);
    },
    { timeoutMs: 120_000 },
  );
  await t.waitForGone("Working…");
  return { live, all: t.scrollback().split("\n") };
}

function expectEachOnce(all: string[], prefix: string, n: number): void {
  const counts = Array.from({ length: n }, (_, i) => all.filter((row) => row.includes(`${marker(prefix, i)} `)).length);
  expect(counts, "times each answer line is in the scrollback").toEqual(Array(n).fill(1));
}

/** No row the chat wrapped starts with a space (a word ending on the last column leaves the space behind). */
function expectNoLeadingSpace(all: string[], from: number): void {
  const rows = all.slice(from).filter((r) => /^ {3}\S/.test(r));
  expect(rows).toEqual([]);
}

describe.each([
  [60, 20],
  [100, 30],
])("wide characters at %ix%i", (cols, rows) => {
  it("an emoji-heavy answer: each line once in the scrollback, never cut by the terminal, the table aligned", async () => {
    const t = tui.spawn(e2e.sandbox(), ["chat"], { cols, rows });
    const { live, all } = await stream(t, [...EMOJI_LINES, "", ...TABLE, "", "End of status."].join("\n"), "End of status.");
    expectEachOnce(all, "L", EMOJI_LINES.length);
    expect(t.softWrappedRows()).toEqual([]);
    expect(t.raw()).not.toContain("\x1b[2J");
    // While it streamed, no answer row was cut by Ink ("…" at its end: the chat's wrap was wider than Ink's count).
    expect(live.flatMap((s) => s.split("\n")).filter((r) => /^(● | {2})L\d\d .*…$/.test(r) || /^ {2}(Status|deploy|checks|green|shipped).*…$/.test(r))).toEqual([]);
    expectNoLeadingSpace(
      all,
      all.findIndex((r) => r.includes("L01 ")),
    );

    // The table: each row's separators at the same columns, as Ink and the terminal count them.
    const bars = (has: string) => {
      const row = all.find((r) => r.includes(has) && r.includes("│"));
      if (!row) throw new Error(`no table row with ${has}:\n${all.join("\n")}`);
      return [...row.matchAll(/│/g)].map((m) => inkWidth(row.slice(0, m.index)));
    };
    const header = bars("Owner");
    expect(header).toHaveLength(2);
    for (const has of ["build", "lint", "failed", "ship"]) expect(bars(has), has).toEqual(header);
    expect(inputArea(t)).toMatch(/^❯ Ask anything/);
  }, 180_000);

  it("a CJK answer: each line once in the scrollback, never cut by the terminal", async () => {
    const t = tui.spawn(e2e.sandbox(), ["chat"], { cols, rows });
    const { all } = await stream(t, [...CJK_LINES, "End of CJK."].join("\n"), "End of CJK.");
    expectEachOnce(all, "C", CJK_LINES.length);
    expect(t.softWrappedRows()).toEqual([]);
    expect(t.raw()).not.toContain("\x1b[2J");
    expectNoLeadingSpace(
      all,
      all.findIndex((r) => r.includes("C01 ")),
    );
  }, 120_000);
});

describe("a word ending on the last column", () => {
  it("60 columns: neither the streamed nor the committed answer starts its next row with a space", async () => {
    const t = tui.spawn(e2e.sandbox(), ["chat"], { cols: 60, rows: 20 });
    // 58 columns of text after the 2-column lead: the first word ends on the last column.
    const first = `${"word ".repeat(11)}end`;
    const { live, all } = await stream(t, `${first} next words here\n${"✅ ok ".repeat(10)}✅ tail row`, "tail row");
    expect(first).toHaveLength(58);
    expect(live.some((s) => /^ {2}next words here$/m.test(s))).toBe(true);
    expect(all).toContain("  next words here");
    // The emoji line wraps at a word too (by Ink's count of its width).
    expect(all.filter((r) => /^ {3}\S/.test(r))).toEqual([]);
  }, 120_000);
});
