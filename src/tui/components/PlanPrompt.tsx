// The plan exit_plan_mode presents, for the user's approval (docs/plan-mode.md): the plan as Markdown (its first
// rows when the screen is short: ctrl+o prints all of it above), then the three answers — approve and keep asking
// before edits, approve and edit unasked, or keep planning with a few words the model reads.
import { Box, Text } from "ink";
import type { ApprovalRequestedEvent } from "../state/types.js";
import { marks, theme } from "../theme.js";
import { Markdown } from "./Markdown.js";
import { ReasonInput } from "./ReasonInput.js";
import { splitLines, wrapLine } from "../format.js";
import { PLAN_APPROVAL_OPTIONS } from "../../vocabulary/plan-mode.js";

const HINT = "↑↓ select · 1-3 pick · enter confirm · esc keep planning";

/** The plan's first source lines that fit `rows` terminal rows at `width`, and how many lines were left out. */
export function planWindow(plan: string, rows: number, width: number): { text: string; hidden: number } {
  const lines = splitLines(plan.trim());
  let used = 0;
  let kept = 0;
  for (const line of lines) {
    const n = wrapLine(line, Math.max(1, width)).length;
    if (used + n > rows) break;
    used += n;
    kept++;
  }
  return { text: lines.slice(0, kept).join("\n"), hidden: lines.length - kept };
}

export interface PlanPromptProps {
  request: ApprovalRequestedEvent;
  selected: number;
  reason?: { text: string; cursor: number } | null;
  width: number;
  /** Rows the plan may take (approval-layout.ts); all of it when absent. */
  rows?: number;
}

export function PlanPrompt({ request, selected, reason, width, rows }: PlanPromptProps) {
  const inner = Math.max(10, width - 4);
  const { text, hidden } = rows === undefined ? { text: request.command.trim(), hidden: 0 } : planWindow(request.command, rows, inner);
  return (
    <Box flexDirection="column">
      <Text bold color={theme.warning} wrap="truncate-end">
        Approve this plan?
      </Text>
      <Box borderStyle="round" borderColor={theme.warning} paddingX={1} flexDirection="column">
        <Markdown text={text} width={inner} />
        {hidden > 0 ? <Text dimColor>{`… ${hidden} more ${hidden === 1 ? "line" : "lines"} (ctrl+o prints all)`}</Text> : null}
      </Box>
      {reason ? (
        <ReasonInput text={reason.text} cursor={reason.cursor} plan />
      ) : (
        <>
          <Box flexDirection="column" marginTop={1}>
            {PLAN_APPROVAL_OPTIONS.map((label, i) => {
              const on = i === selected;
              return (
                <Text key={label} wrap="truncate-end" color={on ? theme.accent : undefined} bold={on}>
                  {on ? marks.selected : " "} {i + 1}. {label}
                </Text>
              );
            })}
          </Box>
          <Text dimColor wrap="truncate-end">
            {HINT}
          </Text>
        </>
      )}
    </Box>
  );
}
