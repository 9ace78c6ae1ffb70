// The one status line under the input: model · thread · tokens · context fill · goal · approval mode · plan · workspace.
import { Text } from "ink";
import type { GoalView, StatusView } from "../state/types.js";
import { formatTokens, oneLine } from "../format.js";
import { theme } from "../theme.js";

export interface StatusLineProps {
  status: StatusView;
  /** False until the runtime is loaded. */
  ready: boolean;
}

/** A thread id as the status line shows it: whole (deerflow's ids are 12 characters and needed to resume). */
export function shortThreadId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 15)}…` : id;
}

function goalText(goal: GoalView): string {
  switch (goal.status) {
    case "active":
      return goal.continuation_count > 0 ? `goal: active (${goal.continuation_count} cont.)` : "goal: active";
    case "achieved":
      return "goal: achieved";
    case "needs_user_input":
      return "goal: needs input";
    case "not_achieved":
      return "goal: not achieved";
  }
}

const SEP = " · ";

/** "ctx 43%" of the model's window (with "~" when estimated); warning colours as it nears the compaction point. */
export function contextFill(status: Pick<StatusView, "contextWindow" | "context">): { text: string; color?: string } | undefined {
  if (!status.contextWindow || !status.context) return undefined;
  const pct = Math.min(999, Math.round((status.context.tokens / status.contextWindow) * 100));
  return { text: `ctx ${status.context.estimated ? "~" : ""}${pct}%`, color: pct >= 90 ? theme.error : pct >= 70 ? theme.warning : undefined };
}

export function StatusLine({ status, ready }: StatusLineProps) {
  const thread = status.threadId ? shortThreadId(status.threadId) : status.resuming ? "latest thread" : "new thread";
  const title = status.title ? ` ${oneLine(status.title)}` : "";
  const parts: { text: string; color?: string; dim?: boolean }[] = [
    { text: ready && status.model ? status.model : "loading…", dim: !ready },
    { text: thread + title, dim: !status.threadId },
  ];
  // "~": part of the count is estimated (the provider reported no usage).
  if (status.usage.total_tokens > 0) parts.push({ text: `${status.usage.estimated ? "~" : ""}${formatTokens(status.usage.total_tokens)} tokens` });
  const fill = contextFill(status);
  if (fill) parts.push(fill);
  if (status.goal) {
    const g = status.goal.status;
    parts.push({ text: goalText(status.goal), color: g === "achieved" ? theme.ok : g === "active" ? theme.accent : theme.warning });
  }
  parts.push({ text: `approval: ${status.approvalMode} (shift+tab)`, color: status.approvalMode === "yolo" ? theme.error : status.approvalMode === "auto-edit" ? theme.warning : undefined });
  if (status.planMode) parts.push({ text: "plan", color: theme.active });
  // Last: the part a narrow terminal cuts first (the header names the whole path).
  if (status.workspace) parts.push({ text: `in ${status.workspace}`, dim: true });
  return (
    <Text wrap="truncate-end">
      {parts.map((p, i) => (
        <Text key={i}>
          {i > 0 ? <Text dimColor>{SEP}</Text> : null}
          <Text color={p.color} dimColor={p.dim}>
            {p.text}
          </Text>
        </Text>
      ))}
    </Text>
  );
}
