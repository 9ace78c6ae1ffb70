// The host folders a sandboxed command can write besides the workspace: `sandbox.readWrite` and deerflow's data
// directory (the thread's outputs). Whatever deerflow later runs on the host (bubblewrap itself, a hook's programs)
// must not come from one of them: the fourteenth pass planted `~/.local/bin/bwrap` through `readWrite: ["~/.local"]`,
// and the next start ran it as "the sandbox" (P3). Noted when a run's shell settings are made, kept for the process
// (a union: a folder once writable stays suspect), read by hostPath (env-scrub.ts).
// The workspaces of earlier runs count too: a command there could write `bin/bwrap` into `~/dotfiles`, and a later
// start elsewhere with `~/dotfiles/bin` on PATH ran it (the sixteenth pass's P4). And so do earlier runs' readWrite
// folders: a setting gone since (another project's, or trimmed by the user) left the `bwrap` a command wrote there (the
// seventeenth pass's P5). So every folder a sandbox could write is kept in a small list in the data directory, read back
// when the next run's settings are made. Lines are only ever appended (one write each, O_APPEND: two runs at once never
// drop each other's), and kept while their folder is absent (an unmounted disk comes back).
import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
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

/** The list of folders sandboxed commands could write, in the data directory (its name from when it held workspaces only). */
const LEDGER = "sandbox-workspaces";
/** How much of the list is read at most: its END, where the newest folders are (a data directory is the user's; a
 *  command cannot write it, so this only bounds a start's work). */
export const ledgerLimits = { bytes: 1 << 20 };

/** Every folder listed in `dataDir` (present or not: an absent one is simply no PATH entry). */
function listed(dataDir: string): string[] {
  let fd: number;
  try {
    fd = openSync(join(dataDir, LEDGER), "r");
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, ledgerLimits.bytes);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const lines = buf.toString("utf8").split("\n");
    if (size > length) lines.shift(); // cut mid-line
    return [...new Set(lines.filter((l) => l.startsWith("/")))];
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/** Notes the folders of earlier runs recorded in `dataDir` (when a run's settings are made). */
export function notePastWorkspaces(dataDir: string): void {
  noteSandboxWritable(listed(dataDir).filter((l) => existsSync(l)));
}

const recorded = new Set<string>();
/**
 * A sandbox starts that can write `folders` (its workspace, sandbox.readWrite): noted for this process, and appended
 * to the list in `dataDir` for later ones, each folder once.
 */
export function recordWritable(dataDir: string, writable: readonly string[]): void {
  const reals = writable.filter(Boolean).map((p) => realOrSelf(p));
  noteSandboxWritable(reals);
  const fresh = reals.filter((r) => !recorded.has(`${dataDir}\0${r}`));
  if (fresh.length === 0) return;
  for (const r of fresh) recorded.add(`${dataDir}\0${r}`);
  const before = new Set(listed(dataDir));
  const add = [...new Set(fresh)].filter((r) => !before.has(r));
  if (add.length === 0) return;
  try {
    appendFileSync(join(dataDir, LEDGER), add.map((r) => `${r}\n`).join(""));
  } catch {
    // no data directory yet (or read-only): this process still avoids them
  }
}
