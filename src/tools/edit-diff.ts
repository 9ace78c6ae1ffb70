// The unified diff of one file edit (write_file, str_replace), made with the kept `diff` library. The same diff is
// shown before an edit is approved and carried on the tool's result (its artifact: never sent to the model) so the
// TUI's tool card and stream-json show what changed.
//
// Decisions:
// - Bounded work and size: Myers' diff is O(N·D); a rewrite of a large file would stall the event loop, so the edit
//   distance is capped (`maxEditLength`) and past it the diff says "whole file replaced" with exact line counts. The
//   patch text is cut to MAX_PATCH_LINES lines; the counts always cover the whole edit.
// - Binary content (a NUL byte on either side) is never diffed line by line: "binary file, A → B bytes".
import { structuredPatch } from "diff";

export interface EditDiff {
  /** The file as the model names it (/mnt/user-data/...). */
  path: string;
  /** Lines added and removed by the whole edit. */
  added: number;
  removed: number;
  /** Unified diff text (---/+++ header, @@ hunks), at most MAX_PATCH_LINES lines. */
  patch: string;
  /** The patch text was cut (the counts are still whole). */
  truncated?: boolean;
  /** A new file. */
  created?: boolean;
  /** Binary content: no patch text, only sizes. */
  binary?: { before: number; after: number };
}

export const MAX_PATCH_LINES = 2000;
/** Beyond this edit distance (in lines) the diff is not computed line by line. */
const MAX_EDIT_LENGTH = 5000;
const CONTEXT_LINES = 3;

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The diff from `before` (null: the file does not exist yet) to `after`. */
export function editDiff(path: string, before: string | Buffer | null, after: string | Buffer): EditDiff {
  const created = before === null;
  const b = before ?? "";
  if (isBinary(b) || isBinary(after)) {
    return { path, added: 0, removed: 0, patch: "", created: created || undefined, binary: { before: Buffer.byteLength(b), after: Buffer.byteLength(after) } };
  }
  const oldText = b.toString();
  const newText = after.toString();
  const patch = structuredPatch(created ? "/dev/null" : path, path, oldText, newText, undefined, undefined, { context: CONTEXT_LINES, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) {
    // Too different to diff cheaply: a whole-file replacement, said as such.
    const removed = lineCount(oldText);
    const added = lineCount(newText);
    return { path, added, removed, patch: `--- ${path}\n+++ ${path}\n@@ whole file replaced: -${removed} +${added} lines @@\n`, created: created || undefined };
  }
  let added = 0;
  let removed = 0;
  const lines = [`--- ${created ? "/dev/null" : path}`, `+++ ${path}`];
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
      lines.push(l);
    }
  }
  const truncated = lines.length > MAX_PATCH_LINES;
  const kept = truncated ? lines.slice(0, MAX_PATCH_LINES) : lines;
  return { path, added, removed, patch: `${kept.join("\n")}\n`, truncated: truncated || undefined, created: created || undefined };
}

function isBinary(data: string | Buffer): boolean {
  return typeof data === "string" ? data.includes("\0") : data.includes(0);
}

/** "+12 −3" (or "binary, 10 B → 2 kB"): the one-line size of an edit. */
export function diffStat(d: Pick<EditDiff, "added" | "removed" | "binary">): string {
  if (d.binary) return `binary, ${d.binary.before} → ${d.binary.after} bytes`;
  return `+${d.added} −${d.removed}`;
}
