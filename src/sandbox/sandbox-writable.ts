// The host folders a sandboxed command can write besides the workspace: `sandbox.readWrite` and deerflow's data
// directory (the thread's outputs). Whatever deerflow later runs on the host (bubblewrap itself, a hook's programs)
// must not come from one of them: the fourteenth pass planted `~/.local/bin/bwrap` through `readWrite: ["~/.local"]`,
// and the next start ran it as "the sandbox" (P3). Noted when a run's shell settings are made, kept for the process
// (a union: a folder once writable stays suspect), read by hostPath (env-scrub.ts).
// The workspaces of earlier runs count too: a command there could write `bin/bwrap` into `~/dotfiles`, and a later
// start elsewhere with `~/dotfiles/bin` on PATH ran it (the sixteenth pass's P4). So each workspace a command runs in
// is kept in a small list in the data directory, read back when the next run's settings are made.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

/** The list of workspaces sandboxed commands ran in, in the data directory. */
const LEDGER = "sandbox-workspaces";
/** Bigger than this, the list is not read (a data directory is the user's; a command cannot write it). */
const LEDGER_MAX = 1 << 20;

/** The workspaces listed in `dataDir` that still exist. */
function listed(dataDir: string): string[] {
  try {
    const file = join(dataDir, LEDGER);
    if (statSync(file).size > LEDGER_MAX) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("/") && existsSync(l));
  } catch {
    return [];
  }
}

/** Notes the workspaces of earlier runs recorded in `dataDir` (when a run's settings are made). */
export function notePastWorkspaces(dataDir: string): void {
  noteSandboxWritable(listed(dataDir));
}

const recorded = new Set<string>();
/** A sandboxed command runs in `workspace`: noted for this process, and listed in `dataDir` for later ones. */
export function recordWorkspace(dataDir: string, workspace: string): void {
  const real = realOrSelf(workspace);
  noteSandboxWritable([real]);
  if (recorded.has(`${dataDir}\0${real}`)) return;
  recorded.add(`${dataDir}\0${real}`);
  const before = listed(dataDir);
  if (before.includes(real)) return;
  try {
    writeFileSync(join(dataDir, LEDGER), [...before, real, ""].join("\n"));
  } catch {
    // no data directory yet (or read-only): this process still avoids it
  }
}
