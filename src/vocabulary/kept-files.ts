import { quotedText } from "./terminal-text.js";

// The line that tells the user a failed run's file changes were kept (runtime/failed-run-files.ts has the rule):
// text mode's stderr and the chat say the same.
export function keptFilesLine(files: readonly string[]): string {
  return `the run failed and its conversation was rolled back, but the files it changed are kept: ${files.map(quotedText).join(", ")} (the next run is told)`;
}
