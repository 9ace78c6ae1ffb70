// The model picker. First run with no model configured: the models the endpoint the user set up (a key or base URL,
// no model) and the local servers offer; the choice is saved to ~/.deerflowrc, so the next start goes straight to
// the chat. `/model` (`switching`): the configured names, what the endpoint lists and the local servers' models; the
// choice is used for the rest of the session.
import { Box, Text } from "ink";
import type { ModelOption } from "../state/types.js";
import { marks, theme } from "../theme.js";
import { OWN_ENDPOINT_NAME } from "../../vocabulary/own-endpoint.js";

export interface ModelPickerProps {
  options: ModelOption[];
  selected: number;
  /** Rows the list may take (long lists scroll around the selection). */
  maxRows: number;
  switching?: boolean;
}

export function ModelPicker({ options, selected, maxRows, switching = false }: ModelPickerProps) {
  const rows = Math.max(1, Math.min(options.length, maxRows));
  const first = Math.min(Math.max(0, selected - rows + 1), options.length - rows);
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent} wrap="truncate-end">
        {switching ? "Switch model (for this session):" : `No model configured. ${options.some((o) => o.server === OWN_ENDPOINT_NAME) ? "Your endpoint serves:" : "Found on this machine:"}`}
      </Text>
      <Box flexDirection="column" marginTop={1}>
        {options.slice(first, first + rows).map((o, k) => {
          const i = first + k;
          const on = i === selected;
          return (
            <Text key={i} wrap="truncate-end" color={on ? theme.accent : undefined} bold={on}>
              {on ? marks.selected : " "} {i < 9 ? `${i + 1}.` : "  "} {o.model}
              <Text dimColor>
                {" "}
                · {o.server}
                {o.baseUrl ? ` at ${o.baseUrl}` : ""}
                {o.current ? " (in use)" : ""}
              </Text>
            </Text>
          );
        })}
      </Box>
      <Text dimColor wrap="truncate-end">
        ↑↓ select · {options.length > 1 ? `1-${Math.min(9, options.length)} pick · ` : ""}
        {switching ? "enter use it · esc keep the current one" : "enter use it (saved to ~/.deerflowrc) · esc quit"}
      </Text>
    </Box>
  );
}
