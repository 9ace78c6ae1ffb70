// The agent's question to the user. Options are numbered; the last entry lets the user type a free answer.
// The App owns the keys: it moves `selected` and sets `typing` once the user starts typing in the input.
import { Box, Text } from "ink";
import type { ClarificationRequest } from "../state/types.js";
import { marks, theme } from "../theme.js";

export interface ClarificationPromptProps {
  clarification: ClarificationRequest;
  /** 0-based over the options plus the last "Type your own answer" entry. */
  selected: number;
  typing: boolean;
}

const TYPE_LABELS: Record<string, string> = {
  missing_info: "Missing information",
  ambiguous_requirement: "Ambiguous request",
  approach_choice: "Choose an approach",
  risk_confirmation: "Confirm a risky step",
  suggestion: "Suggestion",
};

/** The clarification_type in words ("Question" when unknown). */
export function clarificationLabel(type: string): string {
  return TYPE_LABELS[type] ?? "Question";
}

export const TYPE_OWN_ANSWER = "Type your own answer";
const TYPE_BELOW = "Type your answer below and press Enter";

export function ClarificationPrompt({ clarification, selected, typing }: ClarificationPromptProps) {
  const options = clarification.options ?? [];
  const entries = options.length > 0 ? [...options, TYPE_OWN_ANSWER] : [];
  return (
    <Box flexDirection="column">
      <Text color={theme.accent} bold>
        {marks.question} {clarificationLabel(clarification.clarification_type)}
      </Text>
      <Text bold>{clarification.question}</Text>
      {clarification.context ? <Text dimColor>{clarification.context}</Text> : null}
      {entries.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          {entries.map((label, i) => {
            const on = i === selected;
            return (
              <Box key={i}>
                <Box width={2} flexShrink={0}>
                  <Text color={theme.accent}>{on ? marks.selected : " "}</Text>
                </Box>
                <Text color={on ? theme.accent : undefined} bold={on} dimColor={i === options.length && !on}>
                  {i + 1}. {label}
                </Text>
              </Box>
            );
          })}
        </Box>
      ) : null}
      {entries.length === 0 || typing ? (
        <Box marginTop={entries.length === 0 ? 1 : 0}>
          <Text color={theme.accent}>{TYPE_BELOW}</Text>
        </Box>
      ) : (
        <Text dimColor>↑↓ select · 1-9 pick · enter confirm · or just type</Text>
      )}
    </Box>
  );
}
