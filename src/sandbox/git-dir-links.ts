// Links planted in a git dir. git writes some of its files in place, opening them to write or append, which follows a
// link: COMMIT_EDITMSG, FETCH_HEAD, MERGE_MSG, a reflog under logs/. A command in the sandbox can put a link there to
// a host file (it dangles inside the sandbox and resolves on the host), and the user's next `git commit` or `git
// fetch` truncates and rewrites that file (the thirty-first pass's A31b-4 rewrote ~/.bashrc; a branch name the agent
// chose put a `$(…)` into it through FETCH_HEAD), and `git worktree prune`, which a commit's automatic gc runs, empties
// the folder a link in `worktrees/` leads to (the thirty-second pass's A32b-1). git makes no links in a git dir by
// itself, so every link the run added is removed after the command — removed, not moved aside: prune reads every entry
// of `worktrees/`, a renamed one too, and a link holds nothing of the user's. The user's own links there stay.
import { type Dirent, readlinkSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { identityOf } from "./file-identity.js";
import { namesAGitDir } from "./git-dir-code.js";
import { toUser } from "./repair-lines.js";
import { removeFileWithin } from "./repair-within.js";
import { listForGuard } from "./guard-listing.js";

/** How many entries one git dir's walk reads at most (loose refs and reflogs of a big repository stay far below). */
export const gitDirWalkLimits = { entries: 100_000 };

/** Per git dir: the path and identity (file-identity.ts) of each link in it when the run saw it. */
const baseline = new Map<string, Set<string>>();
const saidTruncated = new Set<string>();

const idOf = (p: string) => `${p}\0${identityOf(p)}`;

/**
 * Whether `dir` is an object store's `objects` folder, whose fan-out folders hold only object files (a link among them
 * is unlinked by prune, never written through): not listed, as a repository can have thousands. Judged by the folder
 * above being a git dir by names, and never inside `logs/` or `refs/`: a branch named `objects/ab/deploy` has its
 * reflog in `logs/refs/heads/objects/ab/`, where a skipped link was written through (the thirty-sixth pass's A36a-9).
 */
function isObjectStore(gitDir: string, dir: string, has: (name: string) => boolean): boolean {
  if (basename(dir) !== "objects") return false;
  const parts = relative(gitDir, dirname(dir)).split("/");
  return !parts.includes("logs") && !parts.includes("refs") && namesAGitDir(has);
}

/** The links under `gitDir` (not followed), by identity; truncated past the walk's budget. */
function linksIn(gitDir: string): { links: Map<string, string>; truncated: boolean } {
  const links = new Map<string, string>();
  const stack = [{ dir: gitDir, store: false }];
  let entries = 0;
  while (stack.length > 0) {
    const { dir, store } = stack.pop()!;
    let listing: Dirent[];
    try {
      listing = listForGuard(dir, true);
    } catch {
      continue;
    }
    // Every link and folder a git dir holds, hooks included (a link hook the run added is removed: it holds nothing of
    // the user's); only an object store's fan-out folders are not read. Links named like deerflow's moved-aside ones
    // count too: deerflow removes links, never renames them, and `git worktree prune` reads every entry (A36a-8).
    const names = new Set(listing.map((e) => e.name));
    for (const e of listing) {
      const p = join(dir, e.name);
      if (e.isSymbolicLink()) links.set(p, idOf(p));
      else if (e.isDirectory() && !(store && /^[0-9a-f]{2}$/.test(e.name))) stack.push({ dir: p, store: isObjectStore(gitDir, p, (n) => names.has(n)) });
    }
    // Counted after this folder's own links are seen: a folder of 100 000 files hid a link beside them (A36a-5).
    entries += listing.length;
    if (entries > gitDirWalkLimits.entries) return { links, truncated: true };
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
    // The user hears it too, not only the model (A36a-5): a link past the budget is one git may write through.
    const line = `deerflow stopped looking for links in ${gitDir} after ${gitDirWalkLimits.entries} entries; look for links there before you run git.`;
    lines.push(line);
    toUser.hear(line);
  }
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetGitDirLinks(): void {
  baseline.clear();
  saidTruncated.clear();
}
