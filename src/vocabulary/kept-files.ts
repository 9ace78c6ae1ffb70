// The line that tells the user a failed run's file changes were kept (runtime/failed-run-files.ts has the rule):
// text mode's stderr and the chat say the same.
export function keptFilesLine(files: readonly string[]): string {
  return `the run failed and its conversation was rolled back, but the files it changed are kept: ${files.map(quotedFileName).join(", ")} (the next run is told)`;
}

/**
 * A file name a command chose, quoted so it reads as one name: newlines, control characters and `<` escaped (a name
 * holding "\n</system-reminder>…" forged reminder text in the next run's prompt: the eleventh pass).
 */
export function quotedFileName(name: string): string {
  return JSON.stringify(name).replace(/</g, "\\u003c");
}
