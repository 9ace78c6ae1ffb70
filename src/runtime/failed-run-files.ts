// The files after a failed run. The rule (docs/architecture.md, "A failed run"): the conversation is rolled back to
// the last good run, the files the failed run changed are KEPT, the user is told which (the `files.kept` event), and
// the next run's model is told once, in a hidden reminder before the user's message. WHY keep rather than restore:
// a run that fails late (an HTTP 400 after an hour of edits) would otherwise take work the user may want, and a
// restore could overwrite what the user changed meanwhile; `deerflow rewind` still takes the files back on request.
// The note lives in the thread's data folder until a run succeeds (a second failure adds its files to it).
import { quotedText } from "../vocabulary/terminal-text.js";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { FAILED_RUN_FILES_KIND, HIDDEN_MARKER } from "../vocabulary/message-markers.js";
import { shadowRepoOf } from "./workspace-snapshots.js";

const NOTE_FILE = "failed-run-files.json";

const noteFile = (home: string, threadId: string) => join(home, "threads", threadId, NOTE_FILE);

/** The workspace paths (relative) a run changed since its snapshot from before; [] when they cannot be told. */
export async function filesChangedSince(home: string, threadId: string, workspace: string, before: string): Promise<string[]> {
  try {
    return await shadowRepoOf(home, threadId, workspace).changedFiles(before);
  } catch {
    return [];
  }
}

/** Remembers a failed run's changed files for the next run's reminder (added to any earlier failed run's). */
export function noteFailedRunFiles(home: string, threadId: string, files: readonly string[]): void {
  const all = [...new Set([...failedRunFiles(home, threadId), ...files])].sort();
  try {
    writeFileSync(noteFile(home, threadId), JSON.stringify(all), { mode: 0o600 });
  } catch {
    // Not noted: the user was told; only the model's reminder is lost.
  }
}

function failedRunFiles(home: string, threadId: string): string[] {
  try {
    const parsed = JSON.parse(readFileSync(noteFile(home, threadId), "utf8")) as unknown;
    return Array.isArray(parsed) ? parsed.filter((f): f is string => typeof f === "string") : [];
  } catch {
    return [];
  }
}

/** The hidden reminder for the next run, or undefined when no failed run left files. */
export function failedRunReminder(home: string, threadId: string, runId: string): HumanMessage | undefined {
  const files = failedRunFiles(home, threadId);
  if (files.length === 0) return undefined;
  const list = files.map((f) => `- ${quotedText(f)}`).join("\n");
  return new HumanMessage({
    id: `failed-run-files-${runId}`,
    content: `<system-reminder>\nAn earlier run on this thread failed and its conversation was rolled back, but the files it changed were kept as it left them (in the workspace):\n${list}\nThey may be half done. Check them before you rely on them.\n</system-reminder>`,
    additional_kwargs: { [HIDDEN_MARKER]: FAILED_RUN_FILES_KIND },
  });
}

/** After a good run: its reminder is in the conversation now, so the note is done. */
export function clearFailedRunFiles(home: string, threadId: string): void {
  const file = noteFile(home, threadId);
  if (existsSync(file)) rmSync(file, { force: true });
}
