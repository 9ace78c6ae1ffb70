// A project folder's .deerflowrc asks for what only a trusted folder may have (commands, sandbox, approvals, endpoints,
// keys): asked once, before anything of the file is used. "Don't trust" is first, so a reflexive Enter is the safe one.
import { Box, Text } from "ink";
import type { TrustPromptView } from "../state/types.js";
import { marks, theme } from "../theme.js";

export const TRUST_CHOICES = ["Don't trust: continue without these", "Trust this folder"] as const;

export interface TrustPromptProps {
  prompt: TrustPromptView;
  selected: number;
  /** Rows the list of wants may take (a long one ends with "… and N more"). */
  maxRows: number;
}

export function TrustPrompt({ prompt, selected, maxRows }: TrustPromptProps) {
  const shown = prompt.wants.length > maxRows ? prompt.wants.slice(0, Math.max(1, maxRows - 1)) : prompt.wants;
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent} wrap="truncate-end">
        {prompt.changed ? `${prompt.file} changed since you trusted it. It now asks to:` : `${prompt.file} is in a folder you have not trusted. It asks to:`}
      </Text>
      {shown.map((w, i) => (
        // Wrapped, never cut: a hostile file would hide the dangerous end of a command past the edge.
        <Text key={i} wrap="wrap">
          {"  "}- {w}
        </Text>
      ))}
      {shown.length < prompt.wants.length ? <Text dimColor>{`  … and ${prompt.wants.length - shown.length} more (deerflow config lists them)`}</Text> : null}
      <Box flexDirection="column" marginTop={1}>
        {TRUST_CHOICES.map((c, i) => (
          <Text key={c} color={i === selected ? theme.accent : undefined} bold={i === selected} wrap="truncate-end">
            {i === selected ? marks.selected : " "} {i + 1}. {c}
          </Text>
        ))}
      </Box>
      <Text dimColor wrap="truncate-end">
        ↑↓ select · 1-2 pick · enter confirm · esc quit
      </Text>
    </Box>
  );
}
