// The host folders a sandboxed command can write besides the workspace: `sandbox.readWrite` and deerflow's data
// directory (the thread's outputs). Whatever deerflow later runs on the host (bubblewrap itself, a hook's programs)
// must not come from one of them: the fourteenth pass planted `~/.local/bin/bwrap` through `readWrite: ["~/.local"]`,
// and the next start ran it as "the sandbox" (P3). Noted when a run's shell settings are made, kept for the process
// (a union: a folder once writable stays suspect), read by hostPath (env-scrub.ts).
import { realOrSelf } from "./real-path.js";

const folders = new Set<string>();

/** Adds folders a command can write (by real path). */
export function noteSandboxWritable(paths: readonly string[]): void {
  for (const p of paths) if (p) folders.add(realOrSelf(p));
}

/** Every folder noted so far. */
export function sandboxWritable(): string[] {
  return [...folders];
}
