// One committed transcript item (rendered once inside Ink's <Static>, never redrawn). Every item carries a top
// margin of 1, so entries are separated by exactly one blank line.
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { DelegationView, HelpLine, ThreadSummary, TranscriptItem } from "../state/types.js";
import { formatDateTime, formatElapsed, formatTokens, headLines, padEnd, truncate } from "../format.js";
import { textWidth } from "../text-width.js";
import { marks, theme } from "../theme.js";
import { DelegationsPanel } from "./DelegationsPanel.js";
import { DiffView } from "./DiffView.js";
import { Markdown } from "./Markdown.js";
import { TodoPanel } from "./TodoPanel.js";
import { MAX_EXPANDED_LINES, ToolCard } from "./ToolCard.js";
import { unhandled } from "../../vocabulary/exhaustive.js";

export interface TranscriptItemViewProps {
  item: TranscriptItem;
  /** Terminal columns: the threads table fits its title column to it. */
  width: number;
}

/** A 2-column lead mark with the content beside it, so wrapped lines stay indented under the text. */
function Lead({ mark, color, children }: { mark: string; color?: string; children: ReactNode }) {
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Text color={color}>{mark}</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1}>
        {children}
      </Box>
    </Box>
  );
}

function words(s: string): string {
  return s.replace(/_/g, " ");
}

/** A committed delegation panel freezes its clock at the last update it saw. */
function frozenNow(delegations: DelegationView[]): number {
  const times = delegations.flatMap((d) => [d.updated_at, d.created_at]).map((t) => (t ? Date.parse(t) : NaN));
  const valid = times.filter(Number.isFinite);
  return valid.length > 0 ? Math.max(...valid) : 0;
}

function ThreadsTable({ threads, current, width }: { threads: ThreadSummary[]; current?: string; width: number }) {
  if (threads.length === 0) return <Text dimColor>No threads yet.</Text>;
  // Full ids: the user needs them to resume a thread.
  const idW = Math.max(2, ...threads.map((t) => textWidth(t.id)));
  const stW = Math.min(12, Math.max(6, ...threads.map((t) => textWidth(t.status))));
  const titleW = Math.max(10, width - (2 + idW + 2 + 16 + 2 + stW + 2));
  const row = (id: string, date: string, status: string) => `${padEnd(id, idW)}  ${padEnd(date, 16)}  ${padEnd(status, stW)}  `;
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {"  "}
        {row("ID", "UPDATED", "STATUS")}TITLE
      </Text>
      {threads.map((t) => {
        const isCurrent = t.id === current;
        return (
          <Text key={t.id} wrap="truncate-end" bold={isCurrent}>
            <Text color={theme.accent}>{isCurrent ? `${marks.current} ` : "  "}</Text>
            {row(t.id, formatDateTime(t.updated_at), t.status)}
            <Text dimColor={!t.title}>{padEnd(t.title ?? "(untitled)", titleW).trimEnd()}</Text>
          </Text>
        );
      })}
    </Box>
  );
}

function HelpTable({ commands, keys, width }: { commands: HelpLine[]; keys: HelpLine[]; width: number }) {
  const w = Math.max(0, ...[...commands, ...keys].map((l) => textWidth(l.keys))) + 2;
  // On a narrow screen the widest command would leave the descriptions a column or two (one character per row):
  // then each description goes under its command instead.
  const stacked = w > Math.floor((width - 2) / 2);
  const section = (title: string, lines: HelpLine[]) =>
    lines.length === 0 ? null : (
      <Box flexDirection="column">
        <Text bold>{title}</Text>
        {lines.map((l, i) =>
          stacked ? (
            <Box key={i} paddingLeft={2} flexDirection="column">
              <Text color={theme.accent}>{l.keys}</Text>
              <Box paddingLeft={4}>
                <Text dimColor>{l.description}</Text>
              </Box>
            </Box>
          ) : (
            <Box key={i} paddingLeft={2}>
              <Box width={w} flexShrink={0}>
                <Text color={theme.accent}>{l.keys}</Text>
              </Box>
              <Text dimColor>{l.description}</Text>
            </Box>
          ),
        )}
      </Box>
    );
  return (
    <Box flexDirection="column" gap={1}>
      {section("Commands", commands)}
      {section("Keys", keys)}
    </Box>
  );
}

function Body({ item, width }: TranscriptItemViewProps) {
  switch (item.kind) {
    case "banner":
      return (
        <Box flexDirection="column">
          <Text bold color={theme.accent}>
            deerflow v{item.version}
          </Text>
          <Text dimColor>{item.cwd}</Text>
          <Text dimColor>/help for commands · esc cancels · ctrl+c twice exits</Text>
        </Box>
      );
    case "user":
      return (
        <Lead mark={marks.prompt} color={theme.user}>
          <Text color={theme.user}>{item.text}</Text>
        </Lead>
      );
    case "thinking": {
      // Collapsed to a dimmed summary: the reasoning is there to glance at, not to read past.
      const lines = item.text.trim().split("\n");
      const first = truncate(lines[0]!, 100);
      return (
        <Lead mark={marks.assistant} color={theme.accent}>
          <Text dimColor italic>
            thinking: {first}
            {lines.length > 1 ? ` (+${lines.length - 1} more lines)` : ""}
          </Text>
        </Lead>
      );
    }
    case "assistant":
      return (
        <Lead mark={marks.assistant} color={theme.accent}>
          <Markdown text={item.text} width={width - 2} />
        </Lead>
      );
    case "tool":
      return <ToolCard tool={item.tool} expanded={item.expanded === true} width={width} />;
    case "diff":
      return (
        <Box flexDirection="column">
          <Text bold wrap="truncate-end">
            {item.title}
          </Text>
          <Box paddingLeft={2}>
            <DiffView diff={item.diff} width={width - 2} />
          </Box>
        </Box>
      );
    case "clarification": {
      const c = item.clarification;
      return (
        <Lead mark={marks.question} color={theme.accent}>
          <Text bold>{c.question}</Text>
          {c.context ? <Text dimColor>{c.context}</Text> : null}
          {(c.options ?? []).map((o, i) => (
            <Text key={i}>
              {i + 1}. {o}
            </Text>
          ))}
        </Lead>
      );
    }
    case "shell": {
      const { lines, hidden } = headLines(item.output, MAX_EXPANDED_LINES);
      const failed = item.exitCode !== undefined && item.exitCode !== 0;
      return (
        <Box flexDirection="column">
          <Lead mark={marks.shell} color={theme.shell}>
            <Text color={theme.shell}>{item.command}</Text>
          </Lead>
          <Box flexDirection="column" paddingLeft={2}>
            {lines.map((l, i) => (
              <Text key={i} dimColor>
                {l === "" ? " " : l}
              </Text>
            ))}
            {hidden > 0 ? <Text dimColor>… {hidden} more lines</Text> : null}
            {failed ? <Text color={theme.error}>exit {item.exitCode}</Text> : null}
            {item.stoppedBy ? <Text color={theme.warning}>{item.stoppedBy === "timeout" ? "(timed out)" : "(cancelled)"}</Text> : null}
          </Box>
        </Box>
      );
    }
    case "notice":
      if (item.level === "info") return <Text dimColor>{item.text}</Text>;
      return (
        <Lead mark={item.level === "warning" ? marks.warning : marks.error} color={item.level === "warning" ? theme.warning : theme.error}>
          <Text color={item.level === "warning" ? theme.warning : theme.error}>{item.text}</Text>
        </Lead>
      );
    case "delegations":
      return <DelegationsPanel delegations={item.delegations} now={frozenNow(item.delegations)} title="Subagents" folded={!item.expanded} foldedHint="ctrl+t opens it" />;
    case "todos":
      return (
        <Box flexDirection="column">
          {item.todos.length === 0 ? <Text dimColor>No todos.</Text> : <TodoPanel todos={item.todos} expanded hint={false} />}
          {item.notes ? (
            <Box flexDirection="column" marginTop={1}>
              <Text bold>Notes</Text>
              <Text>{item.notes}</Text>
            </Box>
          ) : null}
        </Box>
      );
    case "threads":
      return <ThreadsTable threads={item.threads} current={item.current} width={width} />;
    case "help":
      return <HelpTable commands={item.commands} keys={item.keys} width={width} />;
    case "run-end": {
      const label = item.status === "interrupted" ? "Interrupted" : item.status === "error" ? "Failed" : item.status === "timeout" ? "Timed out" : `Stopped: ${words(item.stop_reason)}`;
      const color = item.status === "error" ? theme.error : theme.warning;
      return (
        <Text wrap="truncate-end">
          <Text color={color}>{label}</Text>
          <Text dimColor>
            {" · "}
            {formatTokens(item.usage.total_tokens)} tokens · {formatElapsed(item.elapsedMs)}
          </Text>
        </Text>
      );
    }
    default:
      return unhandled(item, null);
  }
}

export function TranscriptItemView({ item, width }: TranscriptItemViewProps) {
  return (
    <Box flexDirection="column" width={width} marginTop={item.kind === "banner" ? 0 : 1}>
      <Body item={item} width={width} />
    </Box>
  );
}
