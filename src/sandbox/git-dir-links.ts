// Links planted in a git dir. git writes some of its files in place, opening them to write or append, which follows a
// link: COMMIT_EDITMSG, FETCH_HEAD, MERGE_MSG, a reflog under logs/. A command in the sandbox can put a link there to
// a host file (it dangles inside the sandbox and resolves on the host), and the user's next `git commit` or `git
// fetch` truncates and rewrites that file (the thirty-first pass's A31b-4 rewrote ~/.bashrc; a branch name the agent
// chose put a `$(…)` into it through FETCH_HEAD), and `git worktree prune`, which a commit's automatic gc runs, empties
// the folder a link in `worktrees/` leads to (the thirty-second pass's A32b-1). git makes no links in a git dir by
// itself, so every link the run added is removed after the command — removed, not moved aside: prune reads every entry
// of `worktrees/`, a renamed one too, and a link holds nothing of the user's. The user's own links there stay.
// Hooks are planted-hooks.ts's.
import { type Dirent, readlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { identityOf } from "./file-identity.js";
import { isMovedAside, removeFileWithin } from "./repair-within.js";
import { listForGuard } from "./guard-listing.js";

/** How many entries one git dir's walk reads at most (loose refs and reflogs of a big repository stay far below). */
export const gitDirWalkLimits = { entries: 100_000 };

/** Per git dir: the path and identity (file-identity.ts) of each link in it when the run saw it. */
const baseline = new Map<string, Set<string>>();
const saidTruncated = new Set<string>();

const idOf = (p: string) => `${p}\0${identityOf(p)}`;

/** The links under `gitDir` (not followed), by identity; truncated past the walk's budget. */
function linksIn(gitDir: string): { links: Map<string, string>; truncated: boolean } {
  const links = new Map<string, string>();
  const stack = [gitDir];
  let entries = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let listing: Dirent[];
    try {
      listing = listForGuard(dir, true);
    } catch {
      continue;
    }
    entries += listing.length;
    if (entries > gitDirWalkLimits.entries) return { links, truncated: true };
    // A git dir of its own (the top, a submodule's under modules/, a worktree's): its hooks are planted-hooks.ts's. In
    // objects/ a link in place of a fan-out folder or `pack` makes `git prune`/`repack` delete another repository's
    // objects (the thirty-third pass's A33a-1); the fan-out folders themselves hold only object files, not read.
    const isGitDir = listing.some((e) => e.name === "HEAD");
    const fanOut = basename(dir) === "objects";
    for (const e of listing) {
      const p = join(dir, e.name);
      if (e.isSymbolicLink()) {
        if (!isMovedAside(e.name)) links.set(p, idOf(p));
      } else if (e.isDirectory() && !(isGitDir && e.name === "hooks") && !(fanOut && /^[0-9a-f]{2}$/.test(e.name))) stack.push(p);
    }
  }
  return { links, truncated: false };
}

/** Remembers the links in `gitDir` now as the user's (once per run). `empty`: a repository the run made, none is. */
export function noteGitDirLinks(gitDir: string, empty = false): void {
  if (baseline.has(gitDir)) return;
  baseline.set(gitDir, new Set(empty ? [] : linksIn(gitDir).links.values()));
}

/** Removes each link the run added under `gitDir`; the lines saying so. `roots`: where deerflow may repair. */
export function checkGitDirLinks(gitDir: string, roots: readonly string[]): string[] {
  noteGitDirLinks(gitDir, true);
  const known = baseline.get(gitDir)!;
  const { links, truncated } = linksIn(gitDir);
  const lines: string[] = [];
  for (const [path, id] of links) {
    if (known.has(id)) continue;
    let target = "?";
    try {
      target = readlinkSync(path);
      removeFileWithin(path, roots);
      lines.push(`deerflow removed the link ${path} (to ${target}): a command in the sandbox put it in a git dir, and your own git would write or delete through it.`);
    } catch (err) {
      lines.push(`deerflow could not remove the link ${path} (${(err as Error).message}): remove it before you run git there, or git writes or deletes through it.`);
    }
  }
  if (truncated && !saidTruncated.has(gitDir)) {
    saidTruncated.add(gitDir);
    lines.push(`deerflow stopped looking for links in ${gitDir} after ${gitDirWalkLimits.entries} entries; look for links there before you run git.`);
  }
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetGitDirLinks(): void {
  baseline.clear();
  saidTruncated.clear();
}
