// How a rewind and the runs it can go back over read for a person: one home for the CLI's text output and the TUI.
// (The shapes are the runtime's RewindableRun / RewindOutcome, restated here so the words need nothing of deerflow's.)

interface RunLike {
  back: number;
  started_at: string;
  status: string;
  input: string | null;
  files_changed: string[] | null;
}

interface FilesLike {
  restored: string[];
  skipped: string[];
  /** Changed by the user since the last run (left as they are unless forced). */
  edited: string[];
}

interface RewindLike {
  rewind_id: string;
  thread_id: string;
  target_run: string;
  runs: string[];
  conversation: boolean;
  files: FilesLike | null;
  files_before: { git_dir: string; ref: string } | null;
  force: boolean;
  resumed: boolean;
}

interface UndoLike {
  rewind_id: string;
  thread_id: string;
  conversation: boolean;
  files: FilesLike | null;
  files_before: { git_dir: string; ref: string } | null;
  force: boolean;
}

/** "a, b, … (3 more)": at most `max` paths named. */
function someOf(paths: readonly string[], max = 10): string {
  return `${paths.slice(0, max).join(", ")}${paths.length > max ? `, … (${paths.length - max} more)` : ""}`;
}

/** The user's own edits since the last run: left as they are (and how to take them too), or rewound as asked. */
function editedText(threadId: string, files: FilesLike | null, force: boolean, flagHint: string): string {
  if (!files || files.edited.length === 0) return "";
  if (force) return ` Changed since the last run and rewound too (--force): ${someOf(files.edited)}.`;
  return ` Changed since the last run, left as they are: ${someOf(files.edited)}${flagHint ? ` (\`deerflow rewind ${threadId} ${flagHint}\` takes them too)` : ""}.`;
}

/** "3 files: a.js, b.js, c.js" (the first few named). */
export function filesSummary(files: readonly string[], max = 4): string {
  if (files.length === 0) return "no files";
  const named = files.slice(0, max).join(", ");
  return `${files.length} file${files.length === 1 ? "" : "s"}: ${named}${files.length > max ? `, … (${files.length - max} more)` : ""}`;
}

export function runLine(r: RunLike): string {
  const when = r.started_at.replace("T", " ").slice(0, 19);
  const input = r.input === null ? "(continuation)" : JSON.stringify(r.input);
  const files = r.files_changed === null ? "files not recorded" : filesSummary(r.files_changed, 3);
  return `${String(r.back).padStart(2)}. ${when}  ${r.status.padEnd(11)} ${input}  · ${files}`;
}

/** `undo`: how the reader undoes it (the chat says `/rewind undo`). */
export function rewindText(r: RewindLike, undo = `deerflow rewind ${r.thread_id} --undo`): string {
  const what: string[] = [];
  if (r.conversation) what.push("the conversation");
  if (r.files) what.push(filesSummary(r.files.restored));
  const skipped = r.files && r.files.skipped.length > 0 ? ` Left as they are (never recorded: ignored, over the size cap, or nested repositories): ${someOf(r.files.skipped)}.` : "";
  const edited = editedText(r.thread_id, r.files, r.force, r.resumed ? "" : "--force");
  const kept = r.files_before ? ` The files from before the rewind are kept at ${r.files_before.ref} in ${r.files_before.git_dir}.` : "";
  const head = r.resumed ? `Finished rewind ${r.rewind_id}, which was interrupted: thread ${r.thread_id} is rewound` : `Rewound thread ${r.thread_id}`;
  return `${head} to before run ${r.target_run} (${r.runs.length} run${r.runs.length === 1 ? "" : "s"} undone): ${what.join(" and ") || "nothing"} restored.${skipped}${edited}${kept} Undo with \`${undo}\`.\n`;
}

export function undoText(r: UndoLike): string {
  const what = [r.conversation ? "the conversation" : "", r.files ? filesSummary(r.files.restored) : ""].filter(Boolean).join(" and ");
  const edited = editedText(r.thread_id, r.files, r.force, "--undo --force");
  const kept = r.files_before ? ` The files from before the undo are kept at ${r.files_before.ref} in ${r.files_before.git_dir}.` : "";
  return `Undid rewind ${r.rewind_id} on thread ${r.thread_id}: ${what || "nothing"} put back.${edited}${kept}\n`;
}
