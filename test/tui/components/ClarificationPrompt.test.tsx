import { describe, expect, it } from "vitest";
import { ClarificationPrompt } from "../../../src/tui/components/ClarificationPrompt.js";
import type { ClarificationRequest } from "../../../src/tui/state/types.js";
import { frame, visibleWidth } from "./helpers.js";

const q = (over: Partial<ClarificationRequest> = {}): ClarificationRequest => ({
  question: "Which database should the service use?",
  clarification_type: "approach_choice",
  context: "I found both a SQLite and a Postgres config.",
  options: ["SQLite", "Postgres"],
  ...over,
});

describe("ClarificationPrompt", () => {
  it("shows the type in words, the question, the context, numbered options and the hint", () => {
    const { lines } = frame(<ClarificationPrompt clarification={q()} selected={0} typing={false} />);
    expect(lines).toEqual([
      "? Choose an approach",
      "Which database should the service use?",
      "I found both a SQLite and a Postgres config.",
      "",
      "❯ 1. SQLite",
      "  2. Postgres",
      "  3. Type your own answer",
      "↑↓ select · 1-9 pick · enter confirm · or just type",
    ]);
  });

  it("marks the selected line, including the last “type your own” entry", () => {
    const { lines } = frame(<ClarificationPrompt clarification={q()} selected={2} typing={false} />);
    expect(lines.filter((l) => l.startsWith("❯"))).toEqual(["❯ 3. Type your own answer"]);
  });

  it("tells the user to type below while typing", () => {
    const { text } = frame(<ClarificationPrompt clarification={q()} selected={2} typing />);
    expect(text).toContain("Type your answer below and press Enter");
    expect(text).not.toContain("1-9 pick");
  });

  it("without options shows only the question and the typing instruction", () => {
    const { lines } = frame(<ClarificationPrompt clarification={q({ options: undefined, context: undefined, clarification_type: "missing_info" })} selected={0} typing={false} />);
    expect(lines).toEqual(["? Missing information", "Which database should the service use?", "", "Type your answer below and press Enter"]);
  });

  it('falls back to "Question" for an unknown type', () => {
    expect(frame(<ClarificationPrompt clarification={q({ clarification_type: "other" })} selected={0} typing={false} />).lines[0]).toBe("? Question");
  });

  it("wraps a long question and long options at 60 columns without losing text", () => {
    const question = `Should I ${"really ".repeat(25)}delete the cache END?`;
    const { text, lines } = frame(<ClarificationPrompt clarification={q({ question, options: ["Yes, delete " + "it ".repeat(30), "No"] })} selected={1} typing={false} />, 60);
    expect(text.replace(/\s+/g, " ")).toContain("delete the cache END?");
    for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(60);
    expect(lines.find((l) => l.startsWith("❯"))).toBe("❯ 2. No");
  });
});
