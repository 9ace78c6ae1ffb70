// A saved thread as the chat draws it on resume: which entries (the newest, within a drawing budget) and as which
// transcript items.
import type { TranscriptEntry } from "../runtime/chat-session.js";
import type { NewItem } from "./state/reducer.js";
import { INTERRUPTED_LINE } from "../vocabulary/interruption-text.js";

/**
 * Entries a resumed thread draws: the newest ones, at most RESUME_DRAWN_ENTRIES and about RESUME_DRAWN_CHARS of
 * text (some ten screens), from the start of a turn. Drawing (Markdown, Ink's output, the terminal) costs per
 * character: with 2 KB answers, 60 entries took longer to draw than the rest of the start-up, so a 200-turn thread
 * appeared 1.9x later than a short one. The notice names `deerflow threads show` for the rest; the model still
 * gets the whole conversation.
 */
export const RESUME_DRAWN_ENTRIES = 60;
export const RESUME_DRAWN_CHARS = 16_000;

/** About how much text an entry draws (a tool shows its call and the head of its output). */
function drawnChars(e: TranscriptEntry): number {
  switch (e.kind) {
    case "user":
    case "assistant":
      return e.text.length;
    case "tool":
      return Math.min(JSON.stringify(e.args ?? null).length, 1_000) + Math.min(e.output.length, 1_000);
    case "clarification":
      return 500;
    case "shell":
      return e.command.length + Math.min(e.output.length, 1_000);
  }
}

export function recentTurns(entries: TranscriptEntry[]): TranscriptEntry[] {
  let start = entries.length;
  let chars = 0;
  // The newest entry is always drawn, however long; older ones while both budgets hold.
  while (start > 0 && entries.length - start < RESUME_DRAWN_ENTRIES) {
    chars += drawnChars(entries[start - 1]!);
    if (chars > RESUME_DRAWN_CHARS && start < entries.length) break;
    start--;
  }
  if (start === 0) return entries;
  const turn = entries.findIndex((e, i) => i >= start && e.kind === "user");
  if (turn !== -1) start = turn;
  return entries.slice(start);
}

/** A saved thread's visible history as transcript items. */
export function itemsOfThread(entries: TranscriptEntry[]): NewItem[] {
  return entries.flatMap((e): NewItem | NewItem[] => {
    switch (e.kind) {
      case "user":
        return { kind: "user", text: e.text };
      case "assistant":
        // What an interrupted run kept: the answer as far as it streamed, then the mark the live chat showed.
        if (e.interrupted) return [...(e.text.trim() ? [{ kind: "assistant" as const, text: e.text }] : []), { kind: "notice", level: "warning", text: INTERRUPTED_LINE }];
        return { kind: "assistant", text: e.text };
      case "clarification":
        return { kind: "clarification", clarification: e.clarification };
      case "shell":
        return { kind: "shell", command: e.command, cwd: "", output: e.output, exitCode: e.exitCode };
      case "tool":
        return { kind: "tool", tool: { id: e.id, name: e.name, args: e.args, status: e.status === "running" ? "error" : e.status, output: e.status === "running" ? "not finished" : e.output } };
    }
  });
}
