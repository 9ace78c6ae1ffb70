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
  return JSON.stringify(name).replace(/[<\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Characters that make a name print as another one: controls, quotes and backslashes, bidi marks and overrides. */
const UNPLAIN = /[\u0000-\u001f\u007f-\u009f"\\\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A path shown as it is when plain, quoted as quotedFileName when it holds what would print as something else
 *  (a presented `r\e]0;…\u202eport.md` showed as `report.md`: the eleventh pass's L2). */
export function shownFileName(name: string): string {
  return UNPLAIN.test(name) ? quotedFileName(name) : name;
}
