// The "working" line while a run is in flight; the App ticks `now`.
import { Text } from "ink";
import type { RunView } from "../state/types.js";
import { formatElapsed } from "../format.js";
import { spinnerFrame, theme } from "../theme.js";

export interface SpinnerProps {
  run: RunView;
  now: number;
}

export function Spinner({ run, now }: SpinnerProps) {
  const elapsed = formatElapsed(now - run.startedAt);
  return (
    <Text wrap="truncate-end">
      <Text color={run.cancelling ? theme.warning : theme.accent}>{spinnerFrame(now)}</Text> {run.cancelling ? "Cancelling…" : "Working…"}
      <Text dimColor> ({run.cancelling ? elapsed : `${elapsed} · esc to cancel`})</Text>
    </Text>
  );
}
