// The one status line under the input: model · thread · tokens · context fill · goal · approval mode · plan · workspace.
import { Text } from "ink";
import type { GoalView, StatusView } from "../state/types.js";
import { formatTokens, oneLine } from "../format.js";
import { textWidth } from "../text-width.js";
import { theme } from "../theme.js";

export interface StatusLineProps {
  status: StatusView;
  /** False until the runtime is loaded. */
  ready: boolean;
  /** Columns available; parts are given up (see fitParts) until the line fits. */
  width?: number;
}

interface Part {
  text: string;
  color?: string;
  dim?: boolean;
  /** Given up first when the line is too wide: lower goes first; undefined: never given up. */
  drop?: number;
  /** A shorter form tried before giving the part up. */
  short?: string;
}

/**
 * The parts that fit `width`: the low-value ones are given up first (the thread's title, the shift+tab hint, the workspace, the
 * token count, the model, the context fill, the goal), so the approval mode is never cut. The thread id is cut
 * only when nothing else is left to give up.
 */
export function fitParts(parts: Part[], width: number): Part[] {
  const total = (ps: Part[]) => ps.reduce((n, p, i) => n + textWidth(p.text) + (i > 0 ? SEP.length : 0), 0);
  let kept = parts.slice();
  const order = parts.filter((p) => p.drop !== undefined).sort((a, b) => a.drop! - b.drop!);
  for (const p of order) {
    if (total(kept) <= width) break;
    kept = p.short !== undefined ? kept.map((k) => (k === p ? { ...p, text: p.short!, short: undefined } : k)) : kept.filter((k) => k !== p);
  }
  return kept;
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

export function StatusLine({ status, ready, width = Infinity }: StatusLineProps) {
  const thread = status.threadId ? shortThreadId(status.threadId) : status.resuming ? "latest thread" : "new thread";
  const title = status.title ? ` ${oneLine(status.title)}` : "";
  const parts: Part[] = [
    { text: ready && status.model ? status.model : "loading…", dim: !ready, drop: 4 },
    { text: thread + title, dim: !status.threadId, drop: 1, short: thread },
  ];
  // "~": part of the count is estimated (the provider reported no usage).
  if (status.usage.total_tokens > 0) parts.push({ text: `${status.usage.estimated ? "~" : ""}${formatTokens(status.usage.total_tokens)} tokens`, drop: 3 });
  const fill = contextFill(status);
  if (fill) parts.push({ ...fill, drop: 5 });
  if (status.goal) {
    const g = status.goal.status;
    parts.push({ text: goalText(status.goal), color: g === "achieved" ? theme.ok : g === "active" ? theme.accent : theme.warning, drop: 6 });
  }
  const approval = `approval: ${status.approvalMode}`;
  parts.push({
    text: `${approval} (shift+tab)`,
    color: status.approvalMode === "yolo" ? theme.error : status.approvalMode === "auto-edit" ? theme.warning : status.approvalMode === "plan" ? theme.active : undefined,
    drop: 2,
    short: approval,
  });
  // Given up after the title and the shift+tab hint, before the token count (the header names the whole path).
  if (status.workspace) parts.push({ text: `in ${status.workspace}`, dim: true, drop: 2.5 });
  const shown = fitParts(parts, width);
  return (
    <Text wrap="truncate-end">
      {shown.map((p, i) => (
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
