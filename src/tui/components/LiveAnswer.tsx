// The answer while it streams. Ink clears the whole screen when the live region gets taller than the terminal,
// so this shows only the tail that fits: exactly at most `maxLines` rows, the "earlier lines" note included.
import { Box, Text } from "ink";
import { tailLines } from "../format.js";
import { marks, theme } from "../theme.js";

export interface LiveAnswerProps {
  text: string;
  /** Rows this component may use, the "… N earlier lines" note included. */
  maxLines: number;
  /** Columns available to the component (the 2-column lead is taken out of it). */
  width: number;
}

const LEAD = 2;

export function LiveAnswer({ text, maxLines, width }: LiveAnswerProps) {
  if (text.trim() === "" || maxLines < 1) return null;
  const inner = Math.max(1, width - LEAD);
  let { lines, hidden } = tailLines(text, maxLines, inner);
  // The note takes a row; with a single row the last line is worth more than the note.
  if (hidden > 0 && maxLines > 1) ({ lines, hidden } = tailLines(text, maxLines - 1, inner));
  const showNote = hidden > 0 && maxLines > 1;
  return (
    <Box flexDirection="column">
      {showNote ? (
        <Text dimColor>
          … {hidden} earlier {hidden === 1 ? "line" : "lines"}
        </Text>
      ) : null}
      <Box>
        <Box width={LEAD} flexShrink={0}>
          <Text color={theme.accent}>{showNote ? " " : marks.assistant}</Text>
        </Box>
        <Box flexDirection="column" width={inner}>
          {lines.map((line, i) => (
            <Text key={i} wrap="truncate-end">
              {line === "" ? " " : line}
            </Text>
          ))}
        </Box>
      </Box>
    </Box>
  );
}
