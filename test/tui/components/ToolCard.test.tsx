import { describe, expect, it } from "vitest";
import { ToolCard } from "../../../src/tui/components/ToolCard.js";
import type { ToolCallView } from "../../../src/tui/state/types.js";
import { spinnerFrame } from "../../../src/tui/theme.js";
import { frame, visibleWidth } from "./helpers.js";

const tool = (over: Partial<ToolCallView> = {}): ToolCallView => ({
  id: "t1",
  name: "bash",
  args: { command: "npm test" },
  status: "ok",
  output: "all good\nsecond line",
  startedAt: 1_000,
  endedAt: 2_500,
  ...over,
});

const lines100 = Array.from({ length: 100 }, (_, i) => `out ${i + 1}`).join("\n");

describe("ToolCard collapsed", () => {
  it("shows ✓, the name, the summary, the elapsed time and a first output line", () => {
    const { lines } = frame(<ToolCard tool={tool()} />);
    expect(lines).toEqual(["✓ bash npm test · 1.5s  all good"]);
  });

  it("shows the spinner frame and the time so far while running, and no output", () => {
    const { lines } = frame(<ToolCard tool={tool({ status: "running", output: "", endedAt: undefined })} now={1_000 + 12_080} />);
    expect(lines).toEqual([`${spinnerFrame(13_080)} bash npm test · 12s`]);
  });

  it("marks errors with ✗", () => {
    const { text } = frame(<ToolCard tool={tool({ status: "error", output: "Error: boom" })} />);
    expect(text).toContain("✗ bash npm test");
    expect(text).toContain("Error: boom");
  });

  it("omits the elapsed time for restored calls without timestamps", () => {
    const { text } = frame(<ToolCard tool={tool({ startedAt: undefined, endedAt: undefined })} />);
    expect(text).toBe("✓ bash npm test  all good");
  });

  it("stays one line, truncated, for a long command at 60 columns", () => {
    const cmd = `find . -name '*.ts' ${"-o -name '*.tsx' ".repeat(20)}| xargs wc -l`;
    const { lines } = frame(<ToolCard tool={tool({ args: { command: cmd }, output: lines100 })} />, 60);
    expect(lines).toHaveLength(1);
    expect(visibleWidth(lines[0]!)).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/…$/);
  });

  it("shows only the collapsed line for a 100-line output", () => {
    const { lines } = frame(<ToolCard tool={tool({ output: lines100 })} />);
    expect(lines).toEqual(["✓ bash npm test · 1.5s  out 1"]);
  });
});

describe("ToolCard expanded", () => {
  it("shows the header and the whole indented output", () => {
    const { lines } = frame(<ToolCard tool={tool({ output: lines100 })} expanded />);
    expect(lines[0]).toBe("✓ bash npm test · 1.5s");
    expect(lines).toHaveLength(101);
    expect(lines[1]).toBe("  out 1");
    expect(lines[100]).toBe("  out 100");
  });

  it("cuts at 200 lines with a note", () => {
    const out = Array.from({ length: 250 }, (_, i) => `x${i}`).join("\n");
    const { lines } = frame(<ToolCard tool={tool({ output: out })} expanded />);
    expect(lines).toHaveLength(1 + 200 + 1);
    expect(lines[200]).toBe("  x199");
    expect(lines[201]).toBe("  … 50 more lines");
  });

  it('says "(no output)" for empty output', () => {
    const { lines } = frame(<ToolCard tool={tool({ output: "  \n" })} expanded />);
    expect(lines).toEqual(["✓ bash npm test · 1.5s", "  (no output)"]);
  });

  it("wraps the header rather than hiding a long command", () => {
    const cmd = `echo ${"word ".repeat(30)}END`;
    const { text, lines } = frame(<ToolCard tool={tool({ args: { command: cmd }, output: "ok" })} expanded />, 60);
    expect(text).toContain("END");
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
  });
});

describe("ToolCard for the web tools", () => {
  it("web_fetch shows the URL, then the size from its result's first line; web_search shows the query", () => {
    const url = "https://docs.widgetlib.example/retry";
    const fetched = tool({ name: "web_fetch", args: { url }, output: `Fetched 14.2 KB from ${url} (HTTP 200, text/html, Markdown from HTML)\n…` });
    expect(frame(<ToolCard tool={fetched} />, 120).lines[0]).toBe(`✓ web_fetch ${url} · 1.5s  Fetched 14.2 KB from ${url} (HTT…`);
    const searched = tool({ name: "web_search", args: { query: "widgetlib retry policy" }, output: '2 results from searxng for "widgetlib retry policy"\n…' });
    expect(frame(<ToolCard tool={searched} />, 120).lines[0]).toBe('✓ web_search widgetlib retry policy · 1.5s  2 results from searxng for "widgetlib retry policy"');
  });
});
