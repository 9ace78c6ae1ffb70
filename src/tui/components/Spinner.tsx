// The "working" line while a run is in flight; the App ticks `now`. A model retry shows here, in place, until the
// model answers: "retrying in 4 s, attempt 2 of 4" and why.
import { Text } from "ink";
import { retryStatus } from "../../vocabulary/retry-status.js";
import type { RunView } from "../state/types.js";
import { formatElapsed, oneLine } from "../format.js";
import { spinnerFrame, theme } from "../theme.js";

export interface SpinnerProps {
  run: RunView;
  now: number;
}

export function Spinner({ run, now }: SpinnerProps) {
  const elapsed = formatElapsed(now - run.startedAt);
  const retry = run.cancelling ? undefined : run.retry;
  const label = run.cancelling ? "Cancelling…" : retry ? `Model endpoint: ${retryStatus(retry, retry.until - now)}` : "Working…";
  return (
    <Text wrap="truncate-end">
      <Text color={run.cancelling || retry ? theme.warning : theme.accent}>{spinnerFrame(now)}</Text> {label}
      <Text dimColor> ({run.cancelling ? elapsed : `${retry ? `${oneLine(retry.reason)} · ` : ""}${elapsed} · esc to cancel`})</Text>
    </Text>
  );
}
