import { beforeAll, describe, expect, it } from "vitest";
import { Markdown } from "../../../src/tui/components/Markdown.js";
import { loadMarkdown } from "../../../src/tui/markdown/load.js";
import { tableLines } from "../../../src/tui/markdown/table.js";
import { frame, visibleWidth } from "./helpers.js";

beforeAll(() => loadMarkdown());

describe("Markdown", () => {
  it("a table wider than the screen shrinks its widest columns and cuts their cells with …; every line fits", () => {
    const t = tableLines(
      ["id", "description"],
      [
        ["1", "x".repeat(80)],
        ["22", "short"],
      ],
      [null, "left"],
      40,
    );
    for (const l of [t.header, t.rule, ...t.rows]) expect(visibleWidth(l)).toBeLessThanOrEqual(40);
    expect(t.rows[0]).toMatch(/^1  │ x+…$/);
    expect(t.rows[1]).toBe("22 │ short");
  });

  it("nested and ordered lists, a task list, a quote and a rule", () => {
    const md = "1. one\n2. two\n   - inner\n\n- [x] done\n- [ ] todo\n\n> quoted *text*\n\n---\n";
    const { lines } = frame(<Markdown text={md} width={60} />, 60);
    expect(lines).toContain("1. one");
    expect(lines).toContain("2. two");
    expect(lines).toContain("   • inner");
    expect(lines).toContain("[x] done");
    expect(lines).toContain("[ ] todo");
    expect(lines).toContain("│ quoted text");
    expect(lines.some((l) => /^─{10,}$/.test(l))).toBe(true);
  });

  it("an unknown language and unclosed fence still keep the code text exactly", () => {
    const { text } = frame(<Markdown text={"```nosuchlang\n  a <b> & c\n\tx\n"} width={60} />, 60);
    expect(text).toContain("  a <b> & c");
    expect(text).not.toContain("```");
  });
});
