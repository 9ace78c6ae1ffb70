// The menu under the input while a `/` command or an `@` path is being typed: a row of its keys, then the matching
// rows, the selected one marked, a long list scrolled around the selection. Pure: the rows and the selection come
// from the keys hook. The keys row comes first so the input's end is plain to see (and for tests to read).
import { Box, Text } from "ink";
import type { CompletionList } from "../input/completion.js";
import { marks, theme } from "../theme.js";

export interface CompletionMenuProps {
  list: CompletionList;
  selected: number;
  /** Rows the list may take. */
  maxRows: number;
}

/** Rows the menu takes (the App reserves them): its items up to `maxRows`, or the one note row, and the key hint. */
export function completionMenuRows(list: CompletionList | undefined, maxRows: number): number {
  if (!list) return 0;
  return (list.items.length ? Math.min(list.items.length, maxRows) : 1) + 1;
}

export function CompletionMenu({ list, selected, maxRows }: CompletionMenuProps) {
  if (list.items.length === 0) {
    return (
      <Box flexDirection="column">
        <Text dimColor>esc close</Text>
        <Text dimColor wrap="truncate-end">
          {list.note ?? ""}
        </Text>
      </Box>
    );
  }
  const rows = Math.max(1, Math.min(list.items.length, maxRows));
  const first = Math.min(Math.max(0, selected - rows + 1), list.items.length - rows);
  const labelWidth = Math.min(32, Math.max(...list.items.map((i) => i.label.length)));
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        ↑↓ select · tab complete · enter {list.items[selected]?.value.startsWith("/") && !list.items[selected]?.needsArgs ? "run" : "complete"} · esc close
      </Text>
      {list.items.slice(first, first + rows).map((item, k) => {
        const on = first + k === selected;
        return (
          <Text key={item.value} wrap="truncate-end" color={on ? theme.accent : undefined} bold={on}>
            {on ? marks.selected : " "} {item.detail ? item.label.padEnd(labelWidth) : item.label}
            {item.detail ? <Text dimColor> {item.detail}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
