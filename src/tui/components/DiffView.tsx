// A file edit's unified diff, compact: +/− counts, then the patch's first rows (added green, removed red, hunk
// headers cyan), one terminal row per diff line (cut, never wrapped), so a caller can budget its height exactly.
// The text is cleaned (no escape sequences from a hostile file reach the terminal); the +/− marks carry the meaning
// without colour (NO_COLOR).
import { Box, Text } from "ink";
import type { ApprovalDiff } from "../state/types.js";
import { cleanText, truncate } from "../format.js";
import { theme } from "../theme.js";
import { diffWindow } from "./diff-window.js";

export interface DiffViewProps {
  diff: ApprovalDiff;
  /** Rows of patch shown (the "… more" row included); undefined: all of it. */
  maxRows?: number;
  width: number;
  /** Said after "… N more lines" (e.g. "ctrl+o to see all"). */
  moreHint?: string;
  /** The "+N −M" row on top (default true; a compact approval prompt has the counts in its title). */
  countsRow?: boolean;
  /** When the patch does not fit: changed lines first (see diff-window.ts) and no "… more" row (the caller says it). */
  changesFirst?: boolean;
}

/** The patch's lines without its ---/+++ header (the card or prompt names the file). */
export function diffBody(diff: ApprovalDiff): string[] {
  const lines = cleanText(diff.patch).split("\n");
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const body = lines.filter((l, i) => !(i < 2 && (l.startsWith("--- ") || l.startsWith("+++ "))));
  return diff.truncated ? [...body, "… the rest of this diff is not shown (too long)"] : body;
}

/** "+12 −3", "new file, +12", "binary, 10 → 2048 bytes". */
export function diffCounts(diff: ApprovalDiff): string {
  if (diff.binary) return `binary, ${diff.binary.before} → ${diff.binary.after} bytes`;
  return diff.created ? `new file, +${diff.added}` : `+${diff.added} −${diff.removed}`;
}

/** Rows DiffView takes for `diff` with at most `maxRows` patch rows (the counts row included). */
export function diffRows(diff: ApprovalDiff, maxRows?: number): number {
  const body = diff.binary ? 0 : diffBody(diff).length;
  return 1 + (maxRows === undefined ? body : Math.min(body, Math.max(0, maxRows)));
}

function colorOf(line: string): string | undefined {
  if (line.startsWith("+")) return theme.ok;
  if (line.startsWith("-")) return theme.error;
  if (line.startsWith("@@")) return theme.accent;
  return undefined;
}

export function DiffView({ diff, maxRows, width, moreHint, countsRow = true, changesFirst = false }: DiffViewProps) {
  const body = diff.binary ? [] : diffBody(diff);
  const limit = maxRows === undefined ? body.length : Math.max(0, maxRows);
  // The "… more" row takes the last slot when the patch does not fit.
  const cut = body.length > limit;
  const shown = changesFirst ? diffWindow(body, limit).shown : cut ? body.slice(0, Math.max(0, limit - 1)) : body;
  const hidden = body.length - shown.length;
  const inner = Math.max(4, width);
  return (
    <Box flexDirection="column">
      {countsRow ? (
        <Text wrap="truncate-end">
          <Text color={theme.ok}>{diff.binary ? diffCounts(diff) : diff.created ? `new file, +${diff.added}` : `+${diff.added}`}</Text>
          {!diff.binary && !diff.created ? <Text color={theme.error}> −{diff.removed}</Text> : null}
        </Text>
      ) : null}
      {shown.map((line, i) => (
        <Text key={i} color={colorOf(line)} dimColor={line.startsWith(" ")} wrap="truncate-end">
          {truncate(line === "" ? " " : line, inner)}
        </Text>
      ))}
      {cut && limit > 0 && !changesFirst ? (
        <Text dimColor wrap="truncate-end">
          … {hidden} more {hidden === 1 ? "line" : "lines"}
          {moreHint ? ` · ${moreHint}` : ""}
        </Text>
      ) : null}
    </Box>
  );
}
