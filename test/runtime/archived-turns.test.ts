// A compacted thread read whole (what `threads show` prints): the archived originals go back where they stood, also
// when compaction kept the latest user message and archived tool turns that came after it (a long agentic run).
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { placementOf, selectForCompaction } from "../../src/middleware/util/compaction-selection.js";
import type { ArchivedMessage } from "../../src/persistence/message-archive.js";
import { withArchivedTurns } from "../../src/runtime/archived-turns.js";

const big = "x".repeat(800);
function conversation(): BaseMessage[] {
  const out: BaseMessage[] = [
    new HumanMessage({ id: "u1", content: "first question" }),
    new AIMessage({ id: "a1", content: `first answer ${big}` }),
    new HumanMessage({ id: "u2", content: "now do the long job" }),
  ];
  for (let i = 1; i <= 4; i++) {
    out.push(new AIMessage({ id: `c${i}`, content: "", tool_calls: [{ id: `t${i}`, name: "bash", args: { step: i } }] }));
    out.push(new ToolMessage({ id: `r${i}`, tool_call_id: `t${i}`, name: "bash", content: `step ${i} ${big}` }));
  }
  return out;
}

/** The archive rows compaction writes for `removed` (seq from `from`, in order). */
const rowsOf = (removed: BaseMessage[], from = 1): ArchivedMessage[] =>
  removed.map((m, i) => ({ seq: from + i, message_id: m.id!, checkpoint_id: null, role: m.getType(), name: null, text: String(m.content), archived_at: "" }));

const shape = (segments: ReturnType<typeof withArchivedTurns>) =>
  segments.map((s) => ("live" in s ? `live ${s.live.map((m) => m.id).join(",")}` : `archived ${s.archived.map((r) => r.message_id).join(",")}`));

describe("withArchivedTurns", () => {
  it("puts each run of archived messages after the message kept before it, also after the kept latest user message", () => {
    const sel = selectForCompaction(conversation(), 50);
    expect(sel.kept.map((m) => m.id)).toEqual(["u1", "u2", "c4", "r4"]);
    const placed = placementOf(sel);
    expect(placed).toEqual([
      { after: "u1", count: 1 },
      { after: "u2", count: 6 },
    ]);
    const rows = rowsOf(sel.removed);
    expect(shape(withArchivedTurns(sel.kept, rows, [{ archived_from: 1, archived_to: rows.length, placed }]))).toEqual([
      "live u1",
      "archived a1",
      "live u2",
      "archived c1,r1,c2,r2,c3,r3",
      "live c4,r4",
    ]);
  });

  it("a second compaction's rows go back first, so the first one's anchors are found among them", () => {
    const first = selectForCompaction(conversation(), 50);
    const rows1 = rowsOf(first.removed);
    const later = [
      ...first.kept,
      new HumanMessage({ id: "u3", content: `third ${big}` }),
      new AIMessage({ id: "a3", content: `third answer ${big}` }),
      new HumanMessage({ id: "u4", content: "last" }),
    ];
    const second = selectForCompaction(later, 50);
    expect(second.removed.map((m) => m.id)).toEqual(["u2", "c4", "r4", "u3", "a3"]);
    const rows2 = rowsOf(second.removed, rows1.length + 1);
    const compactions = [
      { archived_from: 1, archived_to: rows1.length, placed: placementOf(first) },
      { archived_from: rows1.length + 1, archived_to: rows1.length + rows2.length, placed: placementOf(second) },
    ];
    expect(shape(withArchivedTurns(second.kept, [...rows1, ...rows2], compactions))).toEqual(["live u1", "archived a1,u2,c1,r1,c2,r2,c3,r3,c4,r4,u3,a3", "live u4"]);
  });

  it("without recorded places (a thread compacted before they were kept) the rows follow the first user message", () => {
    const sel = selectForCompaction(conversation(), 50);
    expect(shape(withArchivedTurns(sel.kept, rowsOf(sel.removed), [{ archived_from: 1, archived_to: 7 }]))).toEqual(["live u1", "archived a1,c1,r1,c2,r2,c3,r3", "live u2,c4,r4"]);
  });
});
