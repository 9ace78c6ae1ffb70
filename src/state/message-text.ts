// The text of a message: string content as is, content blocks joined by their text parts (images, tool-use blocks
// and other non-text blocks contribute nothing). One definition for every consumer (run results, subagents).
import type { BaseMessage } from "@langchain/core/messages";

export function messageText(m: BaseMessage | undefined): string {
  const c = m?.content as unknown;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .map((b) => (typeof b === "string" ? b : b && typeof b === "object" && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : ""))
    .join("");
}
