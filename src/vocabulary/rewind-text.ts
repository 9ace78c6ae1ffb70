// How a rewind and the runs it can go back over read for a person: one home for the CLI's text output and the TUI.
// (The shapes are the runtime's RewindableRun / RewindOutcome, restated here so the words need nothing of deerflow's.)

interface RunLike {
  back: number;
  started_at: string;
  status: string;
  input: string | null;
  files_changed: string[] | null;
}

interface RewindLike {
  thread_id: string;
  target_run: string;
  runs: string[];
  conversation: boolean;
  files: { restored: string[]; skipped: string[] } | null;
  files_before: { git_dir: string; ref: string } | null;
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

export function rewindText(r: RewindLike): string {
  const what: string[] = [];
  if (r.conversation) what.push("the conversation");
  if (r.files) what.push(filesSummary(r.files.restored));
  const skipped = r.files && r.files.skipped.length > 0 ? ` Left as they are (never recorded: ignored, over the size cap, or nested repositories): ${r.files.skipped.slice(0, 10).join(", ")}${r.files.skipped.length > 10 ? `, … (${r.files.skipped.length - 10} more)` : ""}.` : "";
  const kept = r.files_before ? ` The files from before the rewind are kept at ${r.files_before.ref} in ${r.files_before.git_dir}.` : "";
  return `Rewound thread ${r.thread_id} to before run ${r.target_run} (${r.runs.length} run${r.runs.length === 1 ? "" : "s"} undone): ${what.join(" and ") || "nothing"} restored.${skipped}${kept} Undo with \`deerflow rewind ${r.thread_id} --undo\`.\n`;
}

