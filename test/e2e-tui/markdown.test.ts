// End to end in a real terminal: a committed answer is rendered from Markdown — headings, emphasis, inline code,
// links, lists, an aligned table, a fenced code block that keeps its text exactly — at 60 and at 120 columns.
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();

const CODE = ["def greet(name):", '    """Say hi."""', '    return f"hi {name}"  # a comment', "", "print(greet('<world>'))"];
const ANSWER = [
  "# Setup guide",
  "",
  "Use **bold words** and `npm test` here, see [the docs](https://example.com/docs).",
  "",
  "- first item",
  "- second item with *emphasis*",
  "",
  "| Name | Size | Notes |",
  "|:-----|-----:|-------|",
  "| alpha | 1 | short |",
  "| beta-longer | 12345 | a longer note here |",
  "",
  "```python",
  ...CODE,
  "```",
  "",
  "Done.",
].join("\n");

/** The column of `needle` in the first screen line containing `lineHas`. */
function col(lines: string[], lineHas: string, needle: string): number {
  const line = lines.find((l) => l.includes(lineHas));
  if (!line) throw new Error(`no line with ${JSON.stringify(lineHas)}:\n${lines.join("\n")}`);
  return line.indexOf(needle);
}

describe.each([60, 120])("Markdown answers at %i columns", (cols) => {
  it("renders the structure without its marks; the table aligns; the code block keeps its text", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: ANSWER });
    const t = tui.spawn(sb, ["chat"], { cols, rows: 50 });
    await waitReady(t);
    await submit(t, "how do I set it up?");
    // The streaming tail is plain; the committed answer is rendered.
    await t.waitFor(/^● Setup guide$/m);
    await t.waitForGone("Working…");
    const all = t.scrollback();
    const lines = all.split("\n");

    expect(all).toContain("Setup guide");
    expect(all).not.toContain("# Setup guide");
    // Wrapped at 60 columns: compare with the line breaks taken out.
    expect(all.replace(/\s+/g, " ")).toContain("Use bold words and npm test here, see the docs (https://example.com/docs).");
    expect(all).not.toMatch(/\*\*|`npm test`|```/);
    expect(all).toMatch(/• first item\n\s+• second item with emphasis/);

    // The table: a rule under the header, the separators in one column, Size right-aligned.
    const bar = col(lines, "Name", "│");
    expect(bar).toBeGreaterThan(0);
    expect(col(lines, "alpha", "│")).toBe(bar);
    expect(col(lines, "beta-longer", "│")).toBe(bar);
    expect(lines.some((l) => /─+┼─+┼─+/.test(l))).toBe(true);
    const sizeEnd = (has: string, v: string) => col(lines, has, v) + v.length;
    expect(sizeEnd("alpha", " 1 ")).toBe(sizeEnd("beta-longer", "12345 "));
    expect(col(lines, "alpha", "short")).toBe(col(lines, "beta-longer", "a longer note here"));

    // The code block: every line exactly, indentation included, in order.
    const start = lines.findIndex((l) => l.includes(CODE[0]!));
    expect(start).toBeGreaterThan(0);
    const indent = lines[start]!.indexOf(CODE[0]!);
    CODE.forEach((code, i) => expect(lines[start + i]!.slice(indent)).toBe(code));
  }, 60_000);
});

describe("hostile Markdown", () => {
  it("quotes a thousand deep and a list 150 deep are shown (as text past 8 levels); the chat survives and goes on", async () => {
    const sb = e2e.sandbox();
    const quote = `${">".repeat(1000)} deep quote`;
    const list = Array.from({ length: 150 }, (_, i) => `${" ".repeat(i * 2)}- item${i}`).join("\n");
    e2e.server.push({ content: `${quote}\n\nafter the quote` }, { content: `${list}\n\nafter the list` }, { content: "still here" });
    const t = tui.spawn(sb, ["chat"], { cols: 80, rows: 30 });
    await waitReady(t);
    await submit(t, "quote");
    await t.waitFor("after the quote");
    await t.waitForGone("Working…");
    expect(t.scrollback()).toContain("deep quote");
    await submit(t, "list");
    await t.waitFor("after the list");
    await t.waitForGone("Working…");
    // The first levels are laid out as a list; the deepest item is there as text.
    expect(t.scrollback()).toMatch(/• item0\n\s+• item1/);
    expect(t.scrollback()).toContain("item149");
    await submit(t, "and now?");
    await t.waitFor("still here");
    expect(t.hasExited).toBe(false);
    expect(t.raw()).not.toMatch(/RuntimeError|wasm-function/);
  }, 120_000);
});
