// Which project a thread works on, for project-scoped memory: the nearest repository root above its workspace
// (the directory holding `.git`), else the workspace itself, by real path. A fresh per-thread workspace (inside
// the data directory's threads/) belongs to no project: facts learned there are global or nothing.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/** Nearest ancestor of `dir` (itself included) holding `.git` (a directory, or a worktree's `.git` file). */
export function findRepoRoot(dir: string): string | undefined {
  let current = resolve(dir);
  for (;;) {
    if (existsSync(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
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
