// Something waiting for the user's yes: a guarded command, shown in full — wrapped, never truncated — because the
// user must see exactly what they approve; or a file edit, shown as its diff (the first rows that fit; ctrl+o prints
// all of it above). Choosing Deny asks why: the reason reaches the model in the tool result.
import { Box, Text } from "ink";
import type { ApprovalRequestedEvent } from "../state/types.js";
import { marks, theme } from "../theme.js";
import { DiffView } from "./DiffView.js";

export interface ApprovalPromptProps {
  request: ApprovalRequestedEvent;
  /** 0 allow once, 1 allow always for this thread, 2 deny. */
  selected: number;
  /** Requests waiting behind this one. */
  queued: number;
  /** Set once Deny was chosen: the reason typed so far (and where the cursor is). */
  reason?: { text: string; cursor: number } | null;
  /** Rows the diff of an edit may take (its counts row included). */
  maxDiffRows?: number;
  width?: number;
}

export const APPROVAL_OPTIONS = ["Allow once", "Allow always for this thread", "Deny"] as const;
const EDIT_OPTIONS = ["Allow once", "Allow edits for this thread", "Deny"] as const;

export function approvalOptions(request: ApprovalRequestedEvent): readonly string[] {
  return request.kind === "edit" ? EDIT_OPTIONS : APPROVAL_OPTIONS;
}

function title(request: ApprovalRequestedEvent): string {
  // A bash command that writes files is an edit without a diff (what it writes is known only once it runs).
  if (request.kind === "edit") return !request.diff ? "Allow this command's edits?" : request.diff.created ? "Create this file?" : "Apply this edit?";
  return request.kind === "tool" ? "Allow this tool call?" : "Allow this command?";
}

function ReasonInput({ text, cursor }: { text: string; cursor: number }) {
  const at = Math.max(0, Math.min(cursor, text.length));
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={theme.warning}>
        Deny: why? (the model reads it)
      </Text>
      <Text wrap="wrap">
        <Text color={theme.user}>{marks.prompt} </Text>
        {text.slice(0, at)}
        <Text inverse>{text.slice(at, at + 1) || " "}</Text>
        {text.slice(at + 1)}
      </Text>
      <Text dimColor wrap="truncate-end">
        enter deny with this reason · esc deny without one
      </Text>
    </Box>
  );
}

export function ApprovalPrompt({ request, selected, queued, reason, maxDiffRows = 12, width = 80 }: ApprovalPromptProps) {
  const edit = request.kind === "edit" && request.diff;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={theme.warning}>
          {title(request)}
        </Text>
        {request.tool && request.tool !== "bash" ? <Text dimColor> ({request.tool})</Text> : null}
        {queued > 0 ? <Text dimColor> (+{queued} more waiting)</Text> : null}
      </Text>
      <Box borderStyle="round" borderColor={theme.warning} paddingX={1}>
        <Text wrap="wrap">{edit ? request.diff!.path : request.command}</Text>
      </Box>
      {edit ? (
        <DiffView diff={request.diff!} width={width} maxRows={Math.max(1, maxDiffRows - 1)} moreHint="ctrl+o to print all of it" />
      ) : request.reason ? (
        <Text dimColor>why it asks: {request.reason}</Text>
      ) : null}
      {reason ? (
        <ReasonInput text={reason.text} cursor={reason.cursor} />
      ) : (
        <>
          <Box flexDirection="column" marginTop={1}>
            {approvalOptions(request).map((label, i) => {
              const on = i === selected;
              return (
                <Text key={i} wrap="truncate-end" color={on ? theme.accent : undefined} bold={on}>
                  {on ? marks.selected : " "} {i + 1}. {label}
                </Text>
              );
            })}
          </Box>
          <Text dimColor wrap="truncate-end">
            ↑↓ select · 1-3 pick · enter confirm · esc deny
          </Text>
        </>
      )}
    </Box>
  );
}
