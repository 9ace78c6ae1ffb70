// The sum of token counts and its breakdown by source: one source's spending goes under its key; a total added to a
// total merges the breakdowns; the sources always add up to the whole.
import { describe, expect, it } from "vitest";
import { addUsage, countsOf, spentAny } from "../../src/vocabulary/token-usage.js";

const t = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens, total_tokens: input_tokens + output_tokens });

describe("token usage by source", () => {
  it("a source's spending goes under its key; totals merge their breakdowns; the parts add up to the whole", () => {
    const lead = addUsage(addUsage(null, t(10, 1), "lead"), t(20, 2), "lead");
    expect(lead).toEqual({ ...t(30, 3), by_source: { lead: t(30, 3) } });
    const run = addUsage(lead, t(5, 5), "subagents");
    const thread = addUsage(addUsage(null, t(7, 3), "title"), run);
    expect(thread).toEqual({ ...t(42, 11), by_source: { title: t(7, 3), lead: t(30, 3), subagents: t(5, 5) } });
    const parts = Object.values(thread.by_source!);
    expect(parts.reduce((s, p) => s + p.total_tokens, 0)).toBe(thread.total_tokens);
  });

  it("an estimate anywhere marks the sum and its source; a total from before the breakdown keeps its counts", () => {
    const u = addUsage(t(100, 10), { ...t(1, 1), estimated: true }, "memory");
    expect(u).toEqual({ ...t(101, 11), estimated: true, by_source: { memory: { ...t(1, 1), estimated: true } } });
  });

  it("reads usage_metadata (total defaults to input + output) and knows when nothing was spent", () => {
    expect(countsOf({ input_tokens: 4, output_tokens: 6 })).toEqual(t(4, 6));
    expect(countsOf(undefined)).toBeNull();
    expect(spentAny(t(0, 0))).toBe(false);
    expect(spentAny(null)).toBe(false);
    expect(spentAny(t(1, 0))).toBe(true);
  });
});
