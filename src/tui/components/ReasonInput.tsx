// The words typed after choosing Deny on an approval (or "keep planning" on a plan): the model reads them.
import { Box, Text } from "ink";
import { marks, theme } from "../theme.js";

export function ReasonInput({ text, cursor, plan = false }: { text: string; cursor: number; plan?: boolean }) {
  const at = Math.max(0, Math.min(cursor, text.length));
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={theme.warning}>
        {plan ? "Keep planning: what should change? (the model reads it)" : "Deny: why? (the model reads it)"}
      </Text>
      <Text wrap="wrap">
        <Text color={theme.user}>{marks.prompt} </Text>
        {text.slice(0, at)}
        <Text inverse>{text.slice(at, at + 1) || " "}</Text>
        {text.slice(at + 1)}
      </Text>
      <Text dimColor wrap="truncate-end">
        {plan ? "enter send · esc keep planning without a word" : "enter deny with this reason · esc deny without one"}
      </Text>
    </Box>
  );
}
