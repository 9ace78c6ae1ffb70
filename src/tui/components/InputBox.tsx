// The prompt input. Pure: the App owns the value, the cursor and the keys; this only draws them.
import { Box, Text } from "ink";
import { splitLines, wrapLine } from "../format.js";
import { marks, theme } from "../theme.js";

export interface InputBoxProps {
  value: string;
  /** UTF-16 index into `value` (as String#slice uses); clamped. */
  cursor: number;
  placeholder?: string;
  /** A dim line under the input, e.g. "Press Ctrl+C again to exit". */
  hint?: string;
  /** While disabled no cursor is drawn and the text is dim. */
  disabled?: boolean;
  /**
   * At most this many rows of text (a long paste): the tail is shown under an "… N earlier lines" row, so the live
   * region never outgrows the terminal (Ink would clear the screen on every frame). Needs `width`.
   */
  maxRows?: number;
  /** Columns available to the whole box (the text gets width - 2). */
  width?: number;
}

/** Splits `s` at `i` without cutting a surrogate pair: [before, the char at i (or ""), after]. */
function splitAt(s: string, i: number): [string, string, string] {
  if (i >= s.length) return [s, "", ""];
  const cp = s.codePointAt(i)!;
  const len = cp > 0xffff ? 2 : 1;
  return [s.slice(0, i), s.slice(i, i + len), s.slice(i + len)];
}

function Line({ text, cursorAt, showCursor, dim }: { text: string; cursorAt: number | null; showCursor: boolean; dim?: boolean }) {
  if (cursorAt === null || !showCursor) return <Text dimColor={dim}>{text === "" ? " " : text}</Text>;
  const [before, at, after] = splitAt(text, cursorAt);
  return (
    <Text dimColor={dim}>
      {before}
      <Text inverse>{at === "" ? " " : at}</Text>
      {after}
    </Text>
  );
}

/** A long input: its last rows, the cursor at the end when it is there. */
function Collapsed({ rows, keep, chars, hint, cursorAtEnd }: { rows: string[]; keep: number; chars: number; hint?: string; cursorAtEnd: boolean }) {
  const shown = rows.slice(-keep);
  return (
    <Box flexDirection="column" width="100%">
      <Box borderStyle="single" borderTop borderBottom={false} borderLeft={false} borderRight={false} borderDimColor>
        <Box width={2} flexShrink={0}>
          <Text color={theme.user}>{marks.prompt}</Text>
        </Box>
        <Box flexDirection="column" flexGrow={1}>
          <Text dimColor>
            … {rows.length - keep} earlier lines ({chars} characters in all)
          </Text>
          {shown.map((text, i) => (
            <Line key={i} text={text} cursorAt={i === shown.length - 1 && cursorAtEnd ? text.length : null} showCursor={cursorAtEnd} />
          ))}
        </Box>
      </Box>
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}

export function InputBox({ value, cursor, placeholder, hint, disabled = false, maxRows, width }: InputBoxProps) {
  const c = Math.max(0, Math.min(Math.floor(cursor), value.length));
  const empty = value === "";
  if (!empty && maxRows !== undefined && width !== undefined) {
    const rows = splitLines(value).flatMap((l) => wrapLine(l, Math.max(1, width - 2)));
    if (rows.length > maxRows) return <Collapsed rows={rows} keep={Math.max(1, maxRows - 1)} chars={value.length} hint={hint} cursorAtEnd={c === value.length && !disabled} />;
  }
  const lines = empty ? [placeholder ?? ""] : value.split("\n");
  // Find the line and column of the cursor (a cursor right after a "\n" sits at the start of the next line).
  let line = 0;
  let col = empty ? 0 : c;
  if (!empty) {
    for (; line < lines.length - 1 && col > lines[line]!.length; line++) col -= lines[line]!.length + 1;
  }
  // Full width, so the top rule spans the terminal whatever the parent's direction.
  return (
    <Box flexDirection="column" width="100%">
      <Box borderStyle="single" borderTop borderBottom={false} borderLeft={false} borderRight={false} borderDimColor>
        <Box width={2} flexShrink={0}>
          <Text color={disabled ? undefined : theme.user} dimColor={disabled}>
            {marks.prompt}
          </Text>
        </Box>
        <Box flexDirection="column" flexGrow={1}>
          {lines.map((text, i) => (
            <Line key={i} text={text} cursorAt={i === line ? col : null} showCursor={!disabled} dim={empty || disabled} />
          ))}
        </Box>
      </Box>
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}
