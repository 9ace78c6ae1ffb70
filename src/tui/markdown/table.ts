// A Markdown table laid out for the terminal: columns as wide as their widest cell, shrunk (widest first, cells cut
// with "…") until the table fits the width; cells aligned as the table's delimiter row says.
import { padEnd, truncate } from "../format.js";
import { textWidth } from "../text-width.js";

export type Align = "left" | "center" | "right" | null;

const GAP = " │ ";
const MIN_COL = 3;

/** Column widths that fit `width` (each at least MIN_COL, or its natural width when smaller). */
export function columnWidths(cells: string[][], width: number): number[] {
  const n = Math.max(0, ...cells.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, c) => Math.max(1, ...cells.map((r) => textWidth(r[c] ?? ""))));
  const budget = width - GAP.length * Math.max(0, n - 1);
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > budget) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_COL) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}

function place(text: string, w: number, align: Align): string {
  const t = truncate(text, w);
  const room = w - textWidth(t);
  if (align === "right") return " ".repeat(room) + t;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + t + " ".repeat(room - Math.floor(room / 2));
  return padEnd(t, w);
}

/** The table as terminal lines: header, a rule, the rows. */
export function tableLines(header: string[], rows: string[][], align: Align[], width: number): { header: string; rule: string; rows: string[] } {
  const widths = columnWidths([header, ...rows], width);
  const line = (cells: string[]) =>
    widths
      .map((w, c) => place(cells[c] ?? "", w, align[c] ?? null))
      .join(GAP)
      .replace(/\s+$/, "");
  return { header: line(header), rule: widths.map((w) => "─".repeat(w)).join("─┼─"), rows: rows.map(line) };
}
