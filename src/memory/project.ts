// Which project a thread works on, for project-scoped memory: the nearest repository root above its workspace
// (the directory holding `.git`), else the workspace itself, by real path. A fresh per-thread workspace (inside
// the data directory's threads/) belongs to no project: facts learned there are global or nothing.
import { realpathSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { ownedByUserOrRoot, projectFoldersUp } from "../config/project-folders.js";

/**
 * Nearest ancestor of `dir` (itself included) holding `.git` (a directory, or a worktree's `.git` file), among the
 * folders whose project files count (project-folders.ts): a `.git` and an AGENTS.md another local user left in a
 * world-writable folder above the workspace became every run's repository instructions, and its memory project (the
 * forty-first pass's A41a-1).
 */
export function findRepoRoot(dir: string): string | undefined {
  return projectFoldersUp(dir).find((d) => ownedByUserOrRoot(join(d, ".git")));
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** The project key of a workspace ("" when it has none). */
export function projectKeyOf(workspace: string | undefined | null, home: string): string {
  if (!workspace) return "";
  const ws = real(workspace);
  const threads = real(join(home, "threads"));
  if (ws === threads || ws.startsWith(threads + sep)) return "";
  return real(findRepoRoot(ws) ?? ws);
}
