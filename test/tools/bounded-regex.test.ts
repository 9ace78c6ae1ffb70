// The walker's time budget per batch of files: 5 s, and the test-facing switch can only shorten it (a test of the stop
// sets 1 s; a user's environment cannot lift the guard with it).
import { describe, expect, it } from "vitest";
import { MATCH_BATCH_BUDGET_MS, MATCH_BUDGET_ENV, boundedMatcher, matchBatchBudgetMs } from "../../src/tools/bounded-regex.js";

describe("matchBatchBudgetMs", () => {
  it("is 5 s unless the test-only variable names a shorter whole number of ms", () => {
    expect(MATCH_BATCH_BUDGET_MS).toBe(5_000);
    expect(matchBatchBudgetMs({})).toBe(5_000);
    expect(matchBatchBudgetMs({ [MATCH_BUDGET_ENV]: "1000" })).toBe(1_000);
    for (const v of ["60000", "0", "-5", "1.5", "soon", ""]) expect(matchBatchBudgetMs({ [MATCH_BUDGET_ENV]: v }), v).toBe(5_000);
  });

  it("a backtracking pattern stops at the budget with 'timeout'; a plain one gives its [file, line] hits", () => {
    const trap = [`${"a".repeat(40)}b`];
    // Look-around: beyond V8's linear engine, so only the budget stops it.
    expect(boundedMatcher(/(?=(a+)+$)b/i)([trap], 200)).toBe("timeout");
    expect(
      boundedMatcher(/needle/i)(
        [
          ["x", "a Needle"],
          ["needle", ""],
        ],
        5_000,
      ),
    ).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });
});
