// A guarded command waiting for the user. The command is shown in full — wrapped, never truncated — because the
// user must see exactly what they approve.
import { Box, Text } from "ink";
import type { ApprovalRequestedEvent } from "../state/types.js";
import { marks, theme } from "../theme.js";

export interface ApprovalPromptProps {
  request: ApprovalRequestedEvent;
  /** 0 allow once, 1 allow always for this thread, 2 deny. */
  selected: number;
  /** Requests waiting behind this one. */
  queued: number;
}

export const APPROVAL_OPTIONS = ["Allow once", "Allow always for this thread", "Deny"] as const;

export function ApprovalPrompt({ request, selected, queued }: ApprovalPromptProps) {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={theme.warning}>
          Allow this command?
        </Text>
        {request.tool && request.tool !== "bash" ? <Text dimColor> ({request.tool})</Text> : null}
        {queued > 0 ? <Text dimColor> (+{queued} more waiting)</Text> : null}
      </Text>
      <Box borderStyle="round" borderColor={theme.warning} paddingX={1}>
        <Text wrap="wrap">{request.command}</Text>
      </Box>
      {request.reason ? <Text dimColor>why it asks: {request.reason}</Text> : null}
      <Box flexDirection="column" marginTop={1}>
        {APPROVAL_OPTIONS.map((label, i) => {
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
    </Box>
  );
}
