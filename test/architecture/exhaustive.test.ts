// The switches over the RunEvent union (TUI reducer, headless printer) and the transcript item kinds end in
// `unhandled(x, fallback)`: a member without a case is a type error (`npm run typecheck` checks this file too).
import { describe, expect, it } from "vitest";
import { unhandled } from "../../src/vocabulary/exhaustive.js";

type Shape = { kind: "circle"; r: number } | { kind: "square"; side: number };

function area(s: Shape): number {
  switch (s.kind) {
    case "circle":
      return Math.PI * s.r * s.r;
    case "square":
      return s.side * s.side;
    default:
      return unhandled(s, Number.NaN);
  }
}

function forgetful(s: Shape): number {
  switch (s.kind) {
    case "circle":
      return s.r;
    default:
      // @ts-expect-error "square" has no case: the switch does not compile until it gets one.
      return unhandled(s, -1);
  }
}

describe("exhaustive switches", () => {
  it("a complete switch compiles; at run time a value from a newer peer falls back instead of throwing", () => {
    expect(area({ kind: "square", side: 2 })).toBe(4);
    expect(area({ kind: "hexagon" } as unknown as Shape)).toBeNaN();
    expect(forgetful({ kind: "square", side: 3 })).toBe(-1);
  });
});
