// Messages waiting for the running request to end, oldest first, one row each; they are sent in this order.
import { Box, Text } from "ink";
import { oneLine } from "../format.js";

/** Rows the list takes for `count` queued messages (the App reserves them). */
export function queuedRows(count: number): number {
  return count === 0 ? 0 : Math.min(count, QUEUED_SHOWN) + (count > QUEUED_SHOWN ? 1 : 0) + 1;
}

const QUEUED_SHOWN = 3;

export function QueuedMessages({ queued }: { queued: readonly string[] }) {
  if (queued.length === 0) return null;
  const hidden = queued.length - QUEUED_SHOWN;
  return (
    <Box flexDirection="column">
      {hidden > 0 ? <Text dimColor>… {hidden} more queued</Text> : null}
      {queued.slice(-QUEUED_SHOWN).map((text, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          ⏸ queued: {oneLine(text)}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        sent when the run ends · esc takes the last one back
      </Text>
    </Box>
  );
}
