import { describe, expect, it } from "vitest";
import { InputBox } from "../../../src/tui/components/InputBox.js";
import { frame, visibleWidth, withColor } from "./helpers.js";

const INV = "\u001b[7m";
/** The characters drawn inverse (the cursor) in a raw frame. */
const inverse = (raw: string) => [...raw.matchAll(/\u001b\[7m(.*?)\u001b\[27m/g)].map((m) => m[1]);

describe("InputBox", () => {
  it("draws a rule, the prompt and the text", () => {
    const { lines } = frame(<InputBox value="hello" cursor={5} />, 60);
    expect(lines[0]).toBe("─".repeat(60));
    expect(lines[1]).toBe("❯ hello");
    expect(lines).toHaveLength(2);
  });

  it("shows the cursor inverse on the character under it, or a space at the end", () => {
    withColor(() => {
      expect(inverse(frame(<InputBox value="hello" cursor={1} />).raw)).toEqual(["e"]);
      expect(inverse(frame(<InputBox value="hello" cursor={5} />).raw)).toEqual([" "]);
      expect(inverse(frame(<InputBox value="hello" cursor={99} />).raw)).toEqual([" "]);
    });
  });

  it("renders multi-line values with continuation lines indented by 2, the cursor on the right line", () => {
    const value = "first line\nsecond\nthird";
    const { lines } = frame(<InputBox value={value} cursor={value.indexOf("second") + 2} />);
    expect(lines.slice(1)).toEqual(["❯ first line", "  second", "  third"]);
    withColor(() => {
      const raw = frame(<InputBox value={value} cursor={value.indexOf("second") + 2} />).raw;
      expect(inverse(raw)).toEqual(["c"]);
      expect(raw.split("\n")[2]).toContain(INV);
      // Cursor right after a newline sits at the start of the next line.
      expect(inverse(frame(<InputBox value={"ab\n"} cursor={3} />).raw)).toEqual([" "]);
      expect(frame(<InputBox value={"ab\n"} cursor={3} />).lines).toHaveLength(3);
    });
  });

  it("shows the placeholder dim with the cursor on its first character when empty", () => {
    expect(frame(<InputBox value="" cursor={0} placeholder="Ask deerflow…" />).lines[1]).toBe("❯ Ask deerflow…");
    withColor(() => expect(inverse(frame(<InputBox value="" cursor={0} placeholder="Ask deerflow…" />).raw)).toEqual(["A"]));
    withColor(() => expect(inverse(frame(<InputBox value="" cursor={0} />).raw)).toEqual([" "]));
  });

  it("shows the hint under the input", () => {
    const { lines } = frame(<InputBox value="" cursor={0} hint="Press Ctrl+C again to exit" />);
    expect(lines[lines.length - 1]).toBe("Press Ctrl+C again to exit");
  });

  it("draws no cursor when disabled", () => {
    withColor(() => expect(frame(<InputBox value="busy" cursor={2} disabled />).raw).not.toContain(INV));
  });

  it("wraps a long value within 60 columns, keeping the indent", () => {
    const { lines } = frame(<InputBox value={"lorem ipsum ".repeat(20)} cursor={0} />, 60);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    for (const l of lines.slice(2)) expect(l.startsWith("  ")).toBe(true);
  });
});
