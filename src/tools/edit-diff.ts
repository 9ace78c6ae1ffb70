// The unified diff of one file edit (write_file, str_replace), made with the kept `diff` library. The same diff is
// shown before an edit is approved and carried on the tool's result (its artifact: never sent to the model) so the
// TUI's tool card and stream-json show what changed.
//
// Decisions:
// - Bounded work and size: Myers' diff is O(N·D); a rewrite of a large file would stall the event loop, so the edit
//   distance (and time) is capped and past it the diff says "whole file replaced" with the files' line counts; only the
//   changed span (plus context) is handed to the library. The patch text is cut to MAX_PATCH_LINES lines.
// - Binary content (a NUL byte on either side) is never diffed line by line: "binary file, A → B bytes".
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import type { ApprovalDiff } from "../sandbox/approvals.js";
import { userPath } from "../vocabulary/workspace-path.js";

/** An edit's diff: the shape the approval prompt shows (path relative to the workspace, counts of the whole edit, a
 * patch cut at MAX_PATCH_LINES with `truncated`, `created` for a new file, sizes only for binary content). */
export type EditDiff = ApprovalDiff;

export const MAX_PATCH_LINES = 2000;
/** Beyond this edit distance (in lines) the diff is not computed line by line. */
const MAX_EDIT_LENGTH = 1000;
/** And beyond this much time (a huge file on a busy machine): the event loop must stay responsive. */
const MAX_DIFF_MS = 500;
const CONTEXT_LINES = 3;

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/**
 * The path as shown: quoted with escapes (as git and the diff headers do) when it holds control characters, so a
 * name like "a.txt\n+harmless" can never pass for diff lines or split the approval's path box.
 */
export function displayPath(path: string): string {
  return /[\x00-\x1f\x7f"\\]/.test(path) ? JSON.stringify(path) : path;
}

/**
 * The diff from `before` (null: the file does not exist yet) to `after`. `virtualPath` is the model's name for the
 * file; the diff names a workspace file relative to the workspace, with git's a/ b/ headers, so its patch applies
 * with `git apply` in the repository (uploads and outputs keep their virtual paths: they are not in it).
 */
export function editDiff(virtualPath: string, before: string | Buffer | null, after: string | Buffer, budgetMs = MAX_DIFF_MS): EditDiff {
  const rawPath = userPath(virtualPath);
  const inWorkspace = rawPath !== virtualPath;
  const path = displayPath(rawPath);
  const oldName = inWorkspace ? `a/${rawPath}` : rawPath;
  const newName = inWorkspace ? `b/${rawPath}` : rawPath;
  const created = before === null;
  const b = before ?? "";
  if (isBinary(b) || isBinary(after)) {
    return { path, added: 0, removed: 0, patch: "", created: created || undefined, binary: { before: Buffer.byteLength(b), after: Buffer.byteLength(after) } };
  }
  const oldText = b.toString();
  const newText = after.toString();
  // The library diffs only the part that differs (plus context): a one-line change in a large file stays cheap.
  const span = changedSpan(oldText, newText);
  const patch = structuredPatch(created ? "/dev/null" : oldName, newName, span.oldText, span.newText, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: budgetMs,
  });
  for (const h of patch?.hunks ?? []) {
    h.oldStart += span.skipped;
    h.newStart += span.skipped;
  }
  if (!patch) {
    // Too different to diff cheaply: a whole-file replacement, said as such, with the new text as added lines (the
    // user approving it must see what the file will hold; a new file is exactly that).
    const removed = lineCount(oldText);
    const added = lineCount(newText);
    const header = removed === 0 ? `@@ -0,0 +1,${added} @@` : `@@ whole file replaced: -${removed} +${added} lines @@`;
    const body =
      added === 0
        ? []
        : newText
            .replace(/\n$/, "")
            .split("\n")
            .map((l) => `+${l}`);
    if (added > 0 && !newText.endsWith("\n")) body.push("\\ No newline at end of file");
    const lines = [`--- ${created ? "/dev/null" : displayPath(oldName)}`, `+++ ${displayPath(newName)}`, header, ...body];
    const truncated = lines.length > MAX_PATCH_LINES;
    return { path, added, removed, patch: `${lines.slice(0, MAX_PATCH_LINES).join("\n")}\n`, truncated: truncated || undefined, created: created || undefined };
  }
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
  }
  const lines = formatPatch(patch, FILE_HEADERS_ONLY).replace(/\n$/, "").split("\n");
  const truncated = lines.length > MAX_PATCH_LINES;
  const kept = truncated ? lines.slice(0, MAX_PATCH_LINES) : lines;
  return { path, added, removed, patch: `${kept.join("\n")}\n`, truncated: truncated || undefined, created: created || undefined };
}

/**
 * The lines where two texts differ, with CONTEXT_LINES of the shared lines around them, and how many shared lines
 * were skipped at the top (hunk line numbers are shifted by that). Splitting on "\n" keeps a final "" token when the
 * text ends with a newline, so joining a slice back (plus the newline before a kept suffix) gives the exact text.
 */
function changedSpan(a: string, b: string): { oldText: string; newText: string; skipped: number } {
  if (a === b) return { oldText: a, newText: b, skipped: 0 };
  const x = a.split("\n");
  const y = b.split("\n");
  let p = 0;
  while (p < x.length - 1 && p < y.length - 1 && x[p] === y[p]) p++;
  let q = 0;
  while (q < x.length - p - 1 && q < y.length - p - 1 && x[x.length - 1 - q] === y[y.length - 1 - q]) q++;
  const skip = Math.max(0, p - CONTEXT_LINES);
  const keepTail = Math.max(0, q - CONTEXT_LINES);
  const cut = (t: string[]) => t.slice(skip, t.length - keepTail).join("\n") + (keepTail > 0 ? "\n" : "");
  return { oldText: cut(x), newText: cut(y), skipped: skip };
}

function isBinary(data: string | Buffer): boolean {
  return typeof data === "string" ? data.includes("\0") : data.includes(0);
}

/** "+12 −3" (or "binary, 10 B → 2 kB"): the one-line size of an edit. */
export function diffStat(d: Pick<EditDiff, "added" | "removed" | "binary">): string {
  if (d.binary) return `binary, ${d.binary.before} → ${d.binary.after} bytes`;
  return `+${d.added} −${d.removed}`;
}
