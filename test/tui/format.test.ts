import { afterEach, describe, expect, it } from "vitest";
import { formatElapsed, formatTokens, headLines, summarizeArgs, tailLines, truncate, formatDateTime, oneLine } from "../../src/tui/format.js";
import { SPINNER_FRAMES, spinnerFrame, theme } from "../../src/tui/theme.js";

describe("formatTokens", () => {
  it.each([
    [0, "0"],
    [950, "950"],
    [999, "999"],
    [1000, "1k"],
    [1234, "1.2k"],
    [9960, "10k"],
    [34_400, "34k"],
    [999_400, "999k"],
    [999_600, "1M"],
    [1_234_567, "1.2M"],
    [45_000_000, "45M"],
    [-5, "0"],
  ])("%d → %s", (n, s) => expect(formatTokens(n)).toBe(s));
});

describe("formatElapsed", () => {
  it.each([
    [0, "0.0s"],
    [400, "0.4s"],
    [9_990, "9.9s"],
    [10_000, "10s"],
    [12_345, "12s"],
    [59_999, "59s"],
    [60_000, "1m 00s"],
    [185_000, "3m 05s"],
    [3_725_000, "1h 02m"],
    [-100, "0.0s"],
  ])("%d ms → %s", (ms, s) => expect(formatElapsed(ms)).toBe(s));
});

describe("summarizeArgs", () => {
  it("bash shows the command on one line", () => {
    expect(summarizeArgs("bash", { command: "ls -la\n  && pwd", description: "list" })).toBe("ls -la && pwd");
  });
  it("file tools show the path", () => {
    expect(summarizeArgs("read_file", { path: "src/a.ts", start_line: 3 })).toBe("src/a.ts");
    expect(summarizeArgs("write_file", { path: "b.txt", content: "x".repeat(10_000) })).toBe("b.txt");
    expect(summarizeArgs("str_replace", { path: "c.ts", old_str: "a", new_str: "b" })).toBe("c.ts");
    // Workspace paths as the user reads them: relative to the workspace; uploads and outputs keep their virtual path.
    expect(summarizeArgs("ls", { path: "/mnt/user-data/workspace" })).toBe(".");
    expect(summarizeArgs("read_file", { path: "/mnt/user-data/workspace/src/a.ts" })).toBe("src/a.ts");
    expect(summarizeArgs("read_file", { path: "/mnt/user-data/uploads/notes.md" })).toBe("/mnt/user-data/uploads/notes.md");
    expect(summarizeArgs("view_image", { image_path: "shot.png" })).toBe("shot.png");
  });
  it("glob/grep show the pattern and the path", () => {
    expect(summarizeArgs("glob", { pattern: "**/*.ts" })).toBe("**/*.ts");
    expect(summarizeArgs("grep", { pattern: "TODO", path: "src" })).toBe("TODO in src");
  });
  it("task shows the description and the subagent type", () => {
    expect(summarizeArgs("task", { description: "Explore", prompt: "long…", subagent_type: "explorer" })).toBe("Explore (explorer)");
  });
  it("write_todos counts items; present_files lists names", () => {
    expect(summarizeArgs("write_todos", { todos: [{}, {}, {}] })).toBe("3 items");
    expect(summarizeArgs("write_todos", { todos: [{}] })).toBe("1 item");
    expect(summarizeArgs("present_files", { filepaths: ["/mnt/user-data/outputs/a.md", "/x/b.csv"] })).toBe("a.md, b.csv");
  });
  it("other tools get compact JSON, capped", () => {
    expect(summarizeArgs("some_mcp_tool", { query: "ink", n: 3 })).toBe('{"query":"ink","n":3}');
    expect(summarizeArgs("x", {})).toBe("");
    expect(summarizeArgs("x", undefined)).toBe("");
    expect(summarizeArgs("x", { big: "y".repeat(5000) }).length).toBeLessThanOrEqual(300);
  });
  it("tolerates wrong shapes", () => {
    expect(summarizeArgs("bash", "echo hi")).toBe("echo hi");
    expect(summarizeArgs("bash", { command: 42 })).toBe('{"command":42}');
    expect(summarizeArgs("present_files", { filepaths: "nope" })).toBe('{"filepaths":"nope"}');
  });
});

describe("tailLines / headLines", () => {
  it("keeps the last visual lines after hard-wrapping", () => {
    const r = tailLines("abcdefghij\nxy", 2, 4);
    // abcd efgh ij xy → last two
    expect(r).toEqual({ lines: ["ij", "xy"], hidden: 2 });
  });
  it("returns everything when it fits, and drops trailing blank lines", () => {
    expect(tailLines("a\n\nb\n\n", 10, 80)).toEqual({ lines: ["a", "", "b"], hidden: 0 });
  });
  it("counts wide characters as two columns and strips ANSI", () => {
    expect(tailLines("日本語です", 10, 4).lines).toEqual(["日本", "語で", "す"]);
    expect(tailLines("\u001b[31mred\u001b[0m", 10, 80).lines).toEqual(["red"]);
  });
  it("handles 0 lines and 100-line input", () => {
    const text = Array.from({ length: 100 }, (_, i) => `l${i}`).join("\n");
    expect(tailLines(text, 0, 80)).toEqual({ lines: [], hidden: 100 });
    const r = tailLines(text, 10, 80);
    expect(r.lines[9]).toBe("l99");
    expect(r.hidden).toBe(90);
    expect(headLines(text, 3)).toEqual({ lines: ["l0", "l1", "l2"], hidden: 97 });
  });
});

describe("truncate / oneLine / formatDateTime", () => {
  it("cuts with an ellipsis to exactly the width", () => {
    expect(truncate("hello world", 20)).toBe("hello world");
    expect(truncate("hello world", 6)).toBe("hello…");
    expect(truncate("hello", 0)).toBe("");
    expect(truncate("日本語", 4)).toBe("日…");
  });
  it("collapses whitespace", () => expect(oneLine(" a\n\tb  c ")).toBe("a b c"));
  it("formats dates as YYYY-MM-DD HH:MM", () => {
    expect(formatDateTime("2024-03-05T07:08:00")).toBe("2024-03-05 07:08");
    expect(formatDateTime("garbage")).toBe("garbage");
  });
});

describe("theme", () => {
  const saved = process.env.NO_COLOR;
  afterEach(() => {
    if (saved === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved;
  });
  it("spinner frames advance every 80 ms and wrap", () => {
    expect(spinnerFrame(0)).toBe(SPINNER_FRAMES[0]);
    expect(spinnerFrame(79)).toBe(SPINNER_FRAMES[0]);
    expect(spinnerFrame(80)).toBe(SPINNER_FRAMES[1]);
    expect(spinnerFrame(80 * SPINNER_FRAMES.length)).toBe(SPINNER_FRAMES[0]);
    expect(spinnerFrame(Number.NaN)).toBe(SPINNER_FRAMES[0]);
  });
  it("reads NO_COLOR at call time", () => {
    delete process.env.NO_COLOR;
    expect(theme.error).toBe("red");
    process.env.NO_COLOR = "1";
    expect(theme.error).toBeUndefined();
    expect(Object.values(theme).every((c) => c === undefined)).toBe(true);
    process.env.NO_COLOR = "";
    expect(theme.error).toBe("red");
  });
});
