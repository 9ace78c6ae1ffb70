import { describe, expect, it } from "vitest";
import { LiveAnswer } from "../../../src/tui/components/LiveAnswer.js";
import { frame, visibleWidth } from "./helpers.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("LiveAnswer", () => {
  it("renders nothing for empty or blank text", () => {
    expect(frame(<LiveAnswer text="" maxLines={10} width={80} />).text).toBe("");
    expect(frame(<LiveAnswer text={"  \n"} maxLines={10} width={80} />).text).toBe("");
  });

  it("shows short text whole with the assistant lead", () => {
    expect(frame(<LiveAnswer text={"Hello\nthere"} maxLines={10} width={80} />).lines).toEqual(["● Hello", "  there"]);
  });

  it("shows only the tail of 100 lines, the note counting as one of maxLines", () => {
    const { lines } = frame(<LiveAnswer text={numbered(100)} maxLines={10} width={80} />);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe("… 91 earlier lines");
    expect(lines[1]).toBe("  line 92");
    expect(lines[9]).toBe("  line 100");
  });

  it("never exceeds maxLines or the width when one long line wraps (60 columns)", () => {
    const text = "word ".repeat(400);
    const { lines } = frame(<LiveAnswer text={text} maxLines={8} width={60} />, 60);
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(lines[0]).toMatch(/^… \d+ earlier lines$/);
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
  });

  it("uses exactly maxLines when the text just exceeds it", () => {
    const { lines } = frame(<LiveAnswer text={numbered(6)} maxLines={5} width={80} />);
    expect(lines).toEqual(["… 2 earlier lines", "  line 3", "  line 4", "  line 5", "  line 6"]);
    expect(frame(<LiveAnswer text={numbered(5)} maxLines={5} width={80} />).lines).toHaveLength(5);
  });

  it("with a single row shows the last line, not the note", () => {
    expect(frame(<LiveAnswer text={numbered(3)} maxLines={1} width={80} />).lines).toEqual(["● line 3"]);
  });
});
