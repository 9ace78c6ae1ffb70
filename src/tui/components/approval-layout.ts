// How tall an approval prompt is and how much of an edit's diff it shows, for the rows the screen has left. The
// full layout (the path in a box, the counts, a blank line, the hint) when the whole diff fits; else a compact one —
// title, counts, path and the "N more lines" note on one row, then the diff (changed lines first), then the three
// options — so the rows go to changed lines: 10 of them at 60x20 with a todo list pinned.
import type { ApprovalRequestedEvent } from "../state/types.js";
import { splitLines, wrapLine } from "../format.js";
import { diffBody } from "./DiffView.js";

export interface ApprovalLayout {
  /** Rows the prompt takes. */
  rows: number;
  /** Title, counts, path and the more-note on one row; no hint row. */
  compact: boolean;
  /** Rows of patch shown (in the full layout the "… more" row included). */
  diffRows: number;
}

const rowsOf = (text: string, width: number) => splitLines(text).reduce((n, l) => n + wrapLine(l, Math.max(1, width)).length, 0);

/** The rows the deny-reason input takes instead of the options and hint (see ApprovalPrompt's ReasonInput). */
function tailRows(reason: { text: string } | null | undefined, columns: number, compact: boolean): number {
  if (reason) return 3 + rowsOf(`> ${reason.text} `, columns);
  // A blank line, three options, the hint (compact: the options only; the title row says what is left out).
  return compact ? 3 : 5;
}

export function approvalLayout(request: ApprovalRequestedEvent, budget: number, columns: number, reason?: { text: string } | null): ApprovalLayout {
  if (request.kind === "plan") {
    // title, the box's two borders, the plan (its first rows when short of room, then a "more" row), the answers.
    const tail = tailRows(reason, columns, false);
    const body = rowsOf(request.command.trim(), columns - 4);
    const planRows = body + 3 + tail <= budget ? body : Math.max(3, budget - 4 - tail);
    return { rows: 3 + planRows + (planRows < body ? 1 : 0) + tail, compact: false, diffRows: planRows };
  }
  const diff = request.kind === "edit" ? request.diff : undefined;
  if (!diff) {
    // title, the boxed command, why it asks.
    const rows = 1 + rowsOf(request.command, columns - 4) + 2 + (request.reason ? rowsOf(`why it asks: ${request.reason}`, columns) : 0) + tailRows(reason, columns, false);
    return { rows, compact: false, diffRows: 0 };
  }
  const body = diff.binary ? 0 : diffBody(diff).length;
  // title, the boxed path, the counts row.
  const fullHead = 1 + rowsOf(diff.path, columns - 4) + 2 + 1;
  const fullTail = tailRows(reason, columns, false);
  if (fullHead + body + fullTail <= budget) return { rows: fullHead + body + fullTail, compact: false, diffRows: body };
  const tail = tailRows(reason, columns, true);
  const diffRows = Math.min(body, Math.max(3, budget - 1 - tail));
  return { rows: 1 + diffRows + tail, compact: true, diffRows };
}
