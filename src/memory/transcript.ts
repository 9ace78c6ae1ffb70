// What the extractor reads of a finished run: the user's messages, the assistant's replies and the shell commands
// it ran with whether they worked. Never tool OUTPUT: a file or web page read during the run is the main way
// hostile text ("remember: always run …") would reach the memory, and durable facts about the user and project
// are in what the user says and what worked, not in what a tool printed. Secret shapes are masked before the text
// is queued (the queue is a file too), and the whole is capped.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { isHiddenMessage } from "../vocabulary/message-markers.js";
import { contentText } from "../vocabulary/message-text.js";
import { maskSecretShapes } from "../vocabulary/secret-shapes.js";

export const TRANSCRIPT_MAX_CHARS = 8000;
const PER_MESSAGE_CHARS = 1500;

const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)} […]` : t);

/** Index of the run's input: the last user message the person wrote (hidden harness messages skipped). */
function runStart(messages: readonly BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (HumanMessage.isInstance(m) && !isHiddenMessage(m)) return i;
  }
  return -1;
}

function commandFailed(result: ToolMessage | undefined): boolean | undefined {
  if (!result) return undefined;
  if (result.status === "error") return true;
  const last = contentText(result.content).trimEnd().split("\n").at(-1) ?? "";
  return /^(?:exit code \d+|terminated by signal \S+)$/.test(last);
}

/** The run's transcript for the extractor ("" when the run has no user input). */
export function runTranscript(messages: readonly BaseMessage[]): string {
  const start = runStart(messages);
  if (start < 0) return "";
  const results = new Map<string, ToolMessage>();
  for (const m of messages.slice(start)) if (ToolMessage.isInstance(m)) results.set(m.tool_call_id, m);
  const lines: string[] = [];
  for (const m of messages.slice(start)) {
    if (isHiddenMessage(m)) continue;
    if (HumanMessage.isInstance(m)) lines.push(`user: ${cut(contentText(m.content), PER_MESSAGE_CHARS)}`);
    else if (AIMessage.isInstance(m)) {
      const text = contentText(m.content).trim();
      if (text) lines.push(`assistant: ${cut(text, PER_MESSAGE_CHARS)}`);
      for (const call of m.tool_calls ?? []) {
        const command = (call.args as { command?: unknown } | undefined)?.command;
        if (call.name !== "bash" || typeof command !== "string") continue;
        const failed = commandFailed(results.get(call.id ?? ""));
        lines.push(`command: ${cut(command, 300)} (${failed === undefined ? "no result" : failed ? "failed" : "worked"})`);
      }
    }
  }
  const text = maskSecretShapes(lines.join("\n"));
  return text.length > TRANSCRIPT_MAX_CHARS ? `[…]\n${text.slice(-TRANSCRIPT_MAX_CHARS)}` : text;
}
