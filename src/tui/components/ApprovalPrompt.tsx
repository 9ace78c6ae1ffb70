// Something waiting for the user's yes: a guarded command, shown in full — wrapped, never truncated — because the
// user must see exactly what they approve; or a file edit, shown as its diff (the first rows that fit; ctrl+o prints
// all of it above). Choosing Deny asks why: the reason reaches the model in the tool result.
import { Box, Text } from "ink";
import type { ApprovalRequestedEvent } from "../state/types.js";
import { marks, theme } from "../theme.js";
import { diffBody, diffCounts, DiffView } from "./DiffView.js";
import { diffWindow } from "./diff-window.js";
import type { ApprovalLayout } from "./approval-layout.js";
import { truncateStart } from "../format.js";
import { textWidth } from "../text-width.js";
import { PlanPrompt } from "./PlanPrompt.js";
import { ReasonInput } from "./ReasonInput.js";

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
  /** The layout the screen has room for (approval-layout.ts); without it, the full layout with `maxDiffRows`. */
  layout?: ApprovalLayout;
}

const HINT = "↑↓ select · 1-3 pick · enter confirm · esc deny";

export const APPROVAL_OPTIONS = ["Allow once", "Allow always for this thread", "Deny"] as const;
const EDIT_OPTIONS = ["Allow once", "Allow edits for this thread", "Deny"] as const;

// A plan's question is PlanPrompt's (its own options and title): ApprovalPrompt hands it over first.
function approvalOptions(request: ApprovalRequestedEvent): readonly string[] {
  return request.kind === "edit" ? EDIT_OPTIONS : APPROVAL_OPTIONS;
}

function title(request: ApprovalRequestedEvent): string {
  // A bash command that writes files is an edit without a diff (what it writes is known only once it runs).
  if (request.kind === "edit") return !request.diff ? "Allow this command's edits?" : request.diff.created ? "Create this file?" : "Apply this edit?";
  return request.kind === "tool" ? "Allow this tool call?" : "Allow this command?";
}

export function ApprovalPrompt({ request, selected, queued, reason, maxDiffRows = 12, width = 80, layout }: ApprovalPromptProps) {
  if (request.kind === "plan") return <PlanPrompt request={request} selected={selected} reason={reason} width={width} rows={layout?.diffRows} />;
  const edit = request.kind === "edit" && request.diff;
  const compact = edit && layout?.compact;
  const diffRows = layout ? layout.diffRows : Math.max(1, maxDiffRows - 1);
  // The rows of the diff left out are said in the hint row (the diff shows changed lines first).
  const hidden = edit ? diffWindow(diffBody(request.diff!), diffRows).hidden : 0;
  const waiting = queued > 0 ? ` (+${queued} more waiting)` : "";
  let head = `${title(request)}${waiting}`;
  if (compact) {
    // The path is cut from its start (the file name stays); what the diff leaves out is said last.
    const more = hidden > 0 ? ` · ${hidden} more (ctrl+o)` : "";
    head = `${head} ${diffCounts(request.diff!)} `;
    head += truncateStart(request.diff!.path, Math.max(8, width - textWidth(head) - textWidth(more))) + more;
  }
  return (
    <Box flexDirection="column">
      {compact ? (
        <Text wrap="truncate-end">
          <Text bold color={theme.warning}>
            {title(request)}
          </Text>
          {head.slice(title(request).length)}
        </Text>
      ) : (
        <>
          <Text wrap="truncate-end">
            <Text bold color={theme.warning}>
              {title(request)}
            </Text>
            {request.tool && request.tool !== "bash" ? <Text dimColor> ({request.tool})</Text> : null}
            {waiting ? <Text dimColor>{waiting}</Text> : null}
          </Text>
          <Box borderStyle="round" borderColor={theme.warning} paddingX={1}>
            <Text wrap="wrap">{edit ? request.diff!.path : request.command}</Text>
          </Box>
        </>
      )}
      {edit ? (
        <DiffView diff={request.diff!} width={width} maxRows={diffRows} moreHint="ctrl+o to print all of it" countsRow={!compact} changesFirst />
      ) : request.reason ? (
        <Text dimColor>why it asks: {request.reason}</Text>
      ) : null}
      {reason ? (
        <ReasonInput text={reason.text} cursor={reason.cursor} />
      ) : (
        <>
          <Box flexDirection="column" marginTop={compact ? 0 : 1}>
            {approvalOptions(request).map((label, i) => {
              const on = i === selected;
              return (
                <Text key={i} wrap="truncate-end" color={on ? theme.accent : undefined} bold={on}>
                  {on ? marks.selected : " "} {i + 1}. {label}
                  {compact && i === 2 ? <Text dimColor> (esc)</Text> : null}
                </Text>
              );
            })}
          </Box>
          {compact ? null : (
            <Text dimColor wrap="truncate-end">
              {hidden > 0 ? `… ${hidden} more diff ${hidden === 1 ? "line" : "lines"} · ctrl+o prints all · ${HINT}` : HINT}
            </Text>
          )}
        </>
      )}
    </Box>
  );
}
