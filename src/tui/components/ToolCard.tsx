// One tool call. Collapsed it is exactly one terminal line (truncate-end), so a burst of tool calls never makes
// the live region jump; expanded (Ctrl+O, committed to the transcript) it shows the output, capped at 200 lines.
// A finished file edit also shows its diff under the line: the first rows when committed, all of it expanded.
import { Box, Text } from "ink";
import type { ToolCallView } from "../state/types.js";
import { formatElapsed, headLines, oneLine, summarizeArgs, truncate } from "../format.js";
import { marks, spinnerFrame, theme } from "../theme.js";
import { DiffView } from "./DiffView.js";

export const MAX_EXPANDED_LINES = 200;
/** Rows of a finished edit's diff in the transcript (Ctrl+O shows all). */
export const COMPACT_DIFF_ROWS = 12;
/** Columns of output preview after a finished tool's summary (the line is truncated anyway). */
const PREVIEW_WIDTH = 80;

export interface ToolCardProps {
  tool: ToolCallView;
  expanded?: boolean;
  /** Clock for the spinner and a running tool's elapsed time. */
  now?: number;
  /** Terminal columns (for a diff's rows). */
  width?: number;
}

function elapsedOf(tool: ToolCallView, now: number | undefined): string | undefined {
  if (tool.startedAt === undefined) return undefined;
  const end = tool.status === "running" ? now : tool.endedAt;
  return end === undefined ? undefined : formatElapsed(end - tool.startedAt);
}

function firstOutputLine(output: string): string {
  const line = output.split("\n").find((l) => l.trim() !== "");
  return line === undefined ? "" : truncate(oneLine(line), PREVIEW_WIDTH);
}

export function ToolCard({ tool, expanded = false, now, width = 80 }: ToolCardProps) {
  const mark = tool.status === "running" ? spinnerFrame(now ?? 0) : tool.status === "ok" ? marks.ok : marks.error;
  const markColor = tool.status === "running" ? theme.accent : tool.status === "ok" ? theme.ok : theme.error;
  const summary = summarizeArgs(tool.name, tool.args);
  const elapsed = elapsedOf(tool, now);
  const preview = !expanded && tool.status !== "running" ? firstOutputLine(tool.output) : "";

  // Expanded: the header may wrap (the user asked to see everything); collapsed: never.
  const header = (
    <Text wrap={expanded ? "wrap" : "truncate-end"}>
      <Text color={markColor}>{mark}</Text> <Text bold>{tool.name}</Text>
      {summary ? ` ${summary}` : ""}
      {elapsed ? <Text dimColor> · {elapsed}</Text> : null}
      {preview ? (
        <Text dimColor={tool.status === "ok"} color={tool.status === "error" ? theme.error : undefined}>
          {"  "}
          {preview}
        </Text>
      ) : null}
    </Text>
  );
  const diff =
    tool.diff && tool.status === "ok" ? (
      <Box paddingLeft={2}>
        <DiffView diff={tool.diff} width={width - 2} maxRows={expanded ? undefined : COMPACT_DIFF_ROWS} moreHint="ctrl+o to see all" />
      </Box>
    ) : null;
  if (!expanded)
    return diff ? (
      <Box flexDirection="column">
        {header}
        {diff}
      </Box>
    ) : (
      header
    );
  if (diff)
    return (
      <Box flexDirection="column">
        {header}
        {diff}
      </Box>
    );

  const { lines, hidden } = headLines(tool.output, MAX_EXPANDED_LINES);
  return (
    <Box flexDirection="column">
      {header}
      <Box flexDirection="column" paddingLeft={2}>
        {lines.length === 0 ? <Text dimColor>(no output)</Text> : lines.map((line, i) => <Text key={i}>{line === "" ? " " : line}</Text>)}
        {hidden > 0 ? (
          <Text dimColor>
            … {hidden} more {hidden === 1 ? "line" : "lines"}
          </Text>
        ) : null}
      </Box>
    </Box>
  );
}
