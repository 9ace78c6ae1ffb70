// TaskNotes — the agent's working notes (`task_notes`): state of the task, open problems, next steps. A separate
// tool from write_todos on purpose: todos are a short checklist the user watches (and replaced whole), notes are
// free text the agent keeps for itself across long work; both show on `/todos`.
// WHY tools: `write_notes` is the only writer (a Command update, so the notes change exactly when the tool answers
// and the runtime sees `task_notes` in the stream's "updates" chunk: the `notes.updated` event).
// WHY wrapModelCall: notes live in state, not in messages, so they survive compaction and resume; when the last
// write_notes call is no longer in the request (compacted away, or a new run on an old thread), the current notes
// are appended to that request only, as a trailing `<system-reminder>` (never stored; deterministic text, so it does
// not disturb the provider's prefix cache while the notes are unchanged).
// Size: at most MAX_NOTES_CHARS; a write past it is refused with an error the model can act on (condense), and the
// notes stay as they were.
import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, StateSchema } from "@langchain/langgraph";
import { createMiddleware, tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import type { TaskNotes } from "../state/types.js";
import { TRANSIENT_MARKER } from "../vocabulary/message-markers.js";

export const WRITE_NOTES = "write_notes";
export const MAX_NOTES_CHARS = 8000;

export const writeNotesSchema = z.object({
  notes: z.string().describe("The notes text (Markdown is fine)."),
  mode: z.enum(["replace", "append"]).optional().describe("replace (default): these become the notes; append: added at the end."),
});

export const WRITE_NOTES_DESCRIPTION = [
  "Keep working notes for this task: what you found, decisions and why, open problems, what to do next.",
  "They are kept outside the conversation, so they survive when older messages are summarized, and the user sees",
  `them with /todos. mode "replace" (default) rewrites them, "append" adds to the end; at most ${MAX_NOTES_CHARS} characters,`,
  "so keep them condensed. Use them on long or multi-step work; skip them for quick requests.",
].join(" ");

/** The notes text of a `task_notes` value (its shape: `{ text, updated_at }`). */
export function notesText(notes: TaskNotes | null | undefined): string {
  const t = notes?.text;
  return typeof t === "string" ? t : "";
}

function errorResult(toolCallId: string, detail: string): ToolMessage {
  return new ToolMessage({ tool_call_id: toolCallId, name: WRITE_NOTES, status: "error", content: `Error: ${detail} The notes were not changed.` });
}

export const writeNotesTool = tool(
  async (input: z.infer<typeof writeNotesSchema>, runtime: ToolRuntime) => {
    const toolCallId = runtime?.toolCallId ?? "";
    const current = notesText((runtime?.state as { task_notes?: TaskNotes | null } | undefined)?.task_notes);
    // Control characters other than newlines and tabs have no place in notes (they would reach the terminal).
    const incoming = input.notes.replace(/\r\n?/g, "\n").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
    const text = input.mode === "append" && current ? `${current}\n${incoming}` : incoming;
    if (text.length > MAX_NOTES_CHARS) {
      return errorResult(toolCallId, `the notes would be ${text.length} characters, over the limit of ${MAX_NOTES_CHARS}: condense them and write them again with mode "replace".`);
    }
    const notes = text.trim() ? { text, updated_at: new Date().toISOString() } : null;
    const said = notes ? `Notes saved (${text.length} characters).` : "Notes cleared.";
    return new Command({ update: { task_notes: notes, messages: [new ToolMessage({ tool_call_id: toolCallId, name: WRITE_NOTES, status: "success", content: said })] } });
  },
  { name: WRITE_NOTES, description: WRITE_NOTES_DESCRIPTION, schema: writeNotesSchema },
);

const stateSchema = new StateSchema({ task_notes: THREAD_STATE_VALUES.task_notes });

/** The request's last write_notes call wrote exactly the current notes (so the model already sees them). */
function notesVisible(messages: readonly unknown[], text: string): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!AIMessage.isInstance(m)) continue;
    const call = [...(m.tool_calls ?? [])].reverse().find((c) => c.name === WRITE_NOTES);
    if (!call) continue;
    const args = (call.args ?? {}) as { notes?: unknown; mode?: unknown };
    return args.mode !== "append" && typeof args.notes === "string" && args.notes.replace(/\r\n?/g, "\n") === text;
  }
  return false;
}

export function taskNotesMiddleware() {
  return createMiddleware({
    name: "TaskNotes",
    stateSchema,
    tools: [writeNotesTool],
    wrapModelCall: (request, handler) => {
      const text = notesText((request.state as { task_notes?: TaskNotes | null }).task_notes);
      if (!text || notesVisible(request.messages, text)) return handler(request);
      const body = `Your working notes for this task (kept with write_notes):\n${text.replace(/<(\/?)system-reminder>/gi, "[$1system-reminder]")}`;
      const reminder = new HumanMessage({
        id: `task-notes-${createHash("sha256").update(body).digest("hex").slice(0, 8)}`,
        content: `<system-reminder>\n${body}\n</system-reminder>`,
        additional_kwargs: { [TRANSIENT_MARKER]: "task_notes" },
      });
      return handler({ ...request, messages: [...request.messages, reminder] });
    },
  });
}
