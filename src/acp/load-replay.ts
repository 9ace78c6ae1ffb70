// session/load: a saved thread told to the client as the session updates it would have seen live (the user's
// prompts, the answers, each tool call with its result, the questions asked, the todo list), so an editor shows a
// thread started in the terminal, or in another editor session, as a conversation it can continue.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ThreadView, TranscriptEntry } from "../runtime/thread-view.js";
import { hostText, planOf, questionText, textContent } from "./session-updates.js";
import { toolKindOf, toolLocationsOf, toolTitleOf } from "./tool-calls.js";

function entryUpdates(entry: TranscriptEntry, workspace: string): SessionUpdate[] {
  switch (entry.kind) {
    case "user":
      return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: entry.text } }];
    case "assistant":
      return entry.text ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: entry.text } }] : [];
    case "clarification":
      return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: questionText(entry.clarification) } }];
    case "tool": {
      const output = hostText(entry.output, workspace);
      const status = entry.status === "ok" ? "completed" : entry.status === "error" ? "failed" : "in_progress";
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: entry.id,
          title: toolTitleOf(entry.name, entry.args),
          kind: toolKindOf(entry.name),
          status: entry.interrupted ? "failed" : status,
          locations: toolLocationsOf(entry.args, workspace),
          content: output ? [textContent(output)] : [],
          rawInput: entry.args,
        },
      ];
    }
    case "shell":
      // A `!cmd` the user ran in the terminal: shown as the command it was, with its output.
      return [{ sessionUpdate: "tool_call", toolCallId: entry.id, title: `!${entry.command}`, kind: "execute", status: "completed", content: [textContent(entry.output)] }];
    default:
      return [];
  }
}

/** Every update that replays `view` (its workspace is where its paths are). */
export function replayOf(view: ThreadView, workspace: string): SessionUpdate[] {
  const updates = view.entries.flatMap((e) => entryUpdates(e, workspace));
  if (view.todos.length > 0) updates.push(planOf(view.todos));
  return updates;
}
