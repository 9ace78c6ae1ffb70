// Read-only commands run with an untrusted project's dangerous keys left out, and say so on stderr (one line), so
// nobody mistakes what they show for what a trusted run would use.
import type { ResolvedConfig } from "../config/load.js";
import { ignoredNotice } from "../config/project-trust.js";
import { forTerminal } from "../vocabulary/terminal-text.js";

export function noteUntrusted(config: ResolvedConfig): void {
  if (config.untrusted) process.stderr.write(`deerflow: ${forTerminal(ignoredNotice(config.untrusted))}\n`);
}
