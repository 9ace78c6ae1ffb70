// A compacted thread read whole: its live messages with the originals compaction archived put back where they stood
// (each compaction records its runs of removed messages after the message kept before them: `placed` in
// task_history.compactions). `threads show` prints the result, the archived parts marked.
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ArchivedMessage } from "../persistence/message-archive.js";
import type { Placement } from "../middleware/util/compaction-selection.js";
import { isHiddenMessage } from "../vocabulary/message-markers.js";

export type ThreadSegment = { live: BaseMessage[] } | { archived: ArchivedMessage[] };

type Item = { live: BaseMessage } | { row: ArchivedMessage };

interface RecordedCompaction {
  archived_from?: unknown;
  archived_to?: unknown;
  placed?: unknown;
}

const idOf = (it: Item): string | undefined => ("live" in it ? it.live.id : it.row.message_id);

/**
 * The conversation in order, as runs of live messages and of archived ones. The latest compaction is undone first
 * (its anchors are live messages or rows an earlier compaction left in place); rows whose place was not recorded
 * (older threads, more than the 20 compactions task_history keeps) go after the first user message, which compaction
 * always keeps.
 */
export function withArchivedTurns(messages: readonly BaseMessage[], archived: readonly ArchivedMessage[], compactions: readonly unknown[]): ThreadSegment[] {
  const items: Item[] = messages.map((m) => ({ live: m }));
  const bySeq = new Map(archived.map((r) => [r.seq, r]));
  const placed = new Set<number>();
  for (const c of [...compactions].reverse() as RecordedCompaction[]) {
    if (typeof c?.archived_from !== "number" || typeof c.archived_to !== "number" || !Array.isArray(c.placed)) continue;
    let seq = c.archived_from;
    for (const p of c.placed as Placement[]) {
      const rows: ArchivedMessage[] = [];
      for (let k = 0; k < p.count && seq <= c.archived_to; k++, seq++) {
        const row = bySeq.get(seq);
        if (row && !placed.has(seq)) rows.push(row);
      }
      const at = p.after === null ? 0 : items.findIndex((it) => idOf(it) === p.after) + 1;
      if (p.after !== null && at === 0) continue;
      for (const r of rows) placed.add(r.seq);
      items.splice(at, 0, ...rows.map((row) => ({ row })));
    }
  }
  const unplaced = archived.filter((r) => !placed.has(r.seq));
  if (unplaced.length > 0) {
    const firstUser = items.findIndex((it) => "live" in it && HumanMessage.isInstance(it.live) && !isHiddenMessage(it.live));
    items.splice(firstUser + 1, 0, ...unplaced.map((row) => ({ row })));
  }
  const out: ThreadSegment[] = [];
  for (const it of items) {
    const last = out.at(-1);
    if ("live" in it) {
      if (last && "live" in last) last.live.push(it.live);
      else out.push({ live: [it.live] });
    } else if (last && "archived" in last) last.archived.push(it.row);
    else out.push({ archived: [it.row] });
  }
  return out;
}
