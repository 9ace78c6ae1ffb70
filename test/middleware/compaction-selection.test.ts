// The selection compaction makes, over random histories (fast-check): a block (an AI tool call and its results) is
// kept or removed whole, so no request ever has a call without its results or a result without its call; the
// reminders, the first and the latest user message are always kept; the rebuilt list puts the summary right after
// the reminders.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectForCompaction } from "../../src/middleware/util/compaction-selection.js";
import { DYNAMIC_CONTEXT_KIND, HIDDEN_MARKER, SUMMARY_KIND, hiddenKind } from "../../src/vocabulary/message-markers.js";

type Step = { kind: "user"; len: number } | { kind: "reminder" } | { kind: "answer"; len: number } | { kind: "tools"; n: number; len: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), len: fc.integer({ min: 1, max: 4000 }) }),
  fc.record({ kind: fc.constant("reminder" as const) }),
  fc.record({ kind: fc.constant("answer" as const), len: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant("tools" as const), n: fc.integer({ min: 1, max: 3 }), len: fc.integer({ min: 10, max: 8000 }) }),
);

function build(steps: Step[], withSummary: boolean): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: "r0", content: "<system-reminder>date</system-reminder>", additional_kwargs: { [HIDDEN_MARKER]: DYNAMIC_CONTEXT_KIND } })];
  if (withSummary) out.push(new HumanMessage({ id: "s", content: "old summary", additional_kwargs: { [HIDDEN_MARKER]: SUMMARY_KIND } }));
  out.push(new HumanMessage({ id: "u0", content: "first request" }));
  let n = 0;
  for (const s of steps) {
    const id = `m${n++}`;
    if (s.kind === "user") out.push(new HumanMessage({ id, content: "u".repeat(s.len) }));
    else if (s.kind === "reminder") out.push(new HumanMessage({ id, content: "<system-reminder>day</system-reminder>", additional_kwargs: { [HIDDEN_MARKER]: DYNAMIC_CONTEXT_KIND } }));
    else if (s.kind === "answer") out.push(new AIMessage({ id, content: "a".repeat(s.len) }));
    else {
      const calls = Array.from({ length: s.n }, (_, i) => ({ id: `${id}-c${i}`, name: "read_file", args: { path: `f${i}` } }));
      out.push(new AIMessage({ id, content: "", tool_calls: calls }));
      for (const c of calls) out.push(new ToolMessage({ id: `${c.id}-r`, tool_call_id: c.id!, name: "read_file", content: "t".repeat(s.len) }));
    }
  }
  return out;
}

function assertPaired(list: BaseMessage[]) {
  for (let i = 0; i < list.length; i++) {
    const m = list[i]!;
    if (AIMessage.isInstance(m) && m.tool_calls?.length) {
      const ids = m.tool_calls.map((c) => c.id);
      const next = list.slice(i + 1, i + 1 + ids.length);
      expect(next.map((t) => (t as ToolMessage).tool_call_id)).toEqual(ids);
    }
    if (ToolMessage.isInstance(m)) {
      const owner = list
        .slice(0, i)
        .reverse()
        .find((x) => AIMessage.isInstance(x));
      expect((owner as AIMessage | undefined)?.tool_calls?.some((c) => c.id === m.tool_call_id)).toBe(true);
    }
  }
}

describe("compaction selection (property)", () => {
  it("never orphans a tool call or result; keeps reminders, first and latest user message; summary leads after the reminders", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 0, maxLength: 60 }), fc.integer({ min: 0, max: 20_000 }), fc.boolean(), (steps, budget, withSummary) => {
        const messages = build(steps, withSummary);
        const sel = selectForCompaction(messages, budget);
        // Nothing is lost: every message is a reminder, the old summary, removed or kept.
        expect(sel.reminders.length + (sel.previousSummary ? 1 : 0) + sel.removed.length + sel.kept.length).toBe(messages.length);
        assertPaired(sel.kept);
        assertPaired(sel.removed);
        const users = messages.filter((m) => HumanMessage.isInstance(m) && hiddenKind(m) === undefined);
        expect(sel.kept).toContain(users[0]);
        expect(sel.kept).toContain(users.at(-1));
        expect(sel.reminders.length).toBe(messages.filter((m) => hiddenKind(m) === DYNAMIC_CONTEXT_KIND).length);
        // Order is preserved in what stays.
        const order = sel.kept.map((m) => messages.indexOf(m));
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        // The last block is always kept, whatever its size.
        const last = messages.filter((m) => hiddenKind(m) === undefined).at(-1);
        expect(sel.kept).toContain(last);
      }),
      { numRuns: 300 },
    );
  });
});
