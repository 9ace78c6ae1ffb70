// Subagent delegations: one line each (truncate-end), so many parallel subagents stay a fixed, small height.
import { Box, Text } from "ink";
import type { DelegationView } from "../state/types.js";
import { formatElapsed, isoElapsed, oneLine } from "../format.js";
import { marks, spinnerFrame, theme } from "../theme.js";

export interface DelegationsPanelProps {
  delegations: DelegationView[];
  /** Clock for spinners and the elapsed time of delegations still running. */
  now: number;
  title?: string;
  /** The counts line only (while a prompt waits; a finished run's panel in the transcript). */
  folded?: boolean;
  /** Said after the folded counts line. */
  foldedHint?: string;
}

const ACTIVE = new Set(["pending", "running"]);

function statusWord(status: string): string {
  return status.replace(/_/g, " ");
}

export function DelegationsPanel({ delegations, now, title = "Subagents", folded = false, foldedHint }: DelegationsPanelProps) {
  if (delegations.length === 0) return null;
  const running = delegations.filter((d) => ACTIVE.has(d.status)).length;
  const done = delegations.filter((d) => d.status === "completed").length;
  const failed = delegations.length - running - done;
  const counts = [running > 0 ? `${running} running` : "", done > 0 ? `${done} done` : "", failed > 0 ? `${failed} failed` : ""].filter(Boolean);
  const head = (
    <Text wrap="truncate-end">
      <Text bold>{title}</Text> <Text dimColor>({counts.join(", ")})</Text>
      {folded && foldedHint ? <Text dimColor> · {foldedHint}</Text> : null}
    </Text>
  );
  if (folded) return head;
  return (
    <Box flexDirection="column">
      {head}
      <Box flexDirection="column" paddingLeft={2}>
        {delegations.map((d) => {
          const active = ACTIVE.has(d.status);
          const ok = d.status === "completed";
          const mark = active ? spinnerFrame(now) : ok ? marks.ok : marks.error;
          const color = active ? theme.accent : ok ? theme.ok : theme.error;
          const ms = isoElapsed(d.created_at, active ? now : (d.updated_at ?? now));
          return (
            <Text key={d.id} wrap="truncate-end">
              <Text color={color}>{mark}</Text> {oneLine(d.description)}
              <Text dimColor> ({d.subagent_type})</Text>
              <Text color={active ? undefined : color} dimColor={active}>
                {" "}
                {statusWord(d.status)}
              </Text>
              {ms !== undefined ? <Text dimColor> · {formatElapsed(ms)}</Text> : null}
              {d.stop_reason ? <Text color={theme.warning}> · {statusWord(d.stop_reason)}</Text> : null}
              {d.verdict ? <Text color={d.verdict.verified ? theme.ok : theme.error}> · {oneLine(d.verdict.summary)}</Text> : null}
            </Text>
          );
        })}
      </Box>
    </Box>
  );
}
