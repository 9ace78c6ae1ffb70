// Every repository checked out inside a workspace, whether or not the workspace's index records it: a `.git` folder,
// a `.git` file (gitdir: …) or a link named `.git`. The user's own `git status` run in one of those folders reads ITS
// config on the host, and a command in the sandbox can make one with `git init` (the fourteenth pass: a workspace that
// had no repository, `docs/.git`, a gitlink file `site/.git`), so the nested-repository guard looks at each one, not
// only at the gitlinks an index lists. A walk of the workspace, without following links, with a budget of entries.
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { namesAGitDir } from "./git-dir-code.js";

/** How many directory entries one walk reads at most (a test lowers it); past it the walk says so. */
export const checkoutWalkLimits = { entries: 200_000 };

export interface Checkouts {
  /** The folders holding a `.git` entry (the workspace itself included when it has one), and bare repositories. */
  roots: string[];
  /** The walk stopped at the budget: folders below were not looked at. */
  truncated: boolean;
}

const RACY_MS = 1_000;

/** Per folder: its identity when last listed (inode and ctime, which no command can set back) and what it held. */
const listed = new Map<string, { id: string; entries: number; subdirs: string[]; hasGit: boolean }>();

/** What `dir` holds: listed again only when its ctime changed (an entry added, removed or renamed changes it). */
function contentsOf(dir: string): { entries: number; subdirs: string[]; hasGit: boolean } | undefined {
  let id: string;
  let racy: boolean;
  try {
    const st = lstatSync(dir);
    id = `${st.ino}:${st.ctimeMs}`;
    // As git's "racy" index entries: a change in the same clock tick as the listing leaves the ctime as it was, so a
    // folder changed in the last second is listed again next time (a background job could add a `.git` right then).
    racy = st.ctimeMs > Date.now() - RACY_MS;
  } catch {
    listed.delete(dir);
    return undefined; // gone: git cannot enter it either
  }
  const hit = listed.get(dir);
  if (hit?.id === id) return hit;
  let listing: Dirent[];
  try {
    listing = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  // A link is not followed: its target is not the workspace's.
  const names = new Map(listing.map((e) => [e.name, e]));
  // A bare repository (HEAD, objects, refs: a git dir of its own, git-dir-code.ts isGitDir) is one too; a push runs its
  // hooks (the thirty-first pass's A31b-2). A git dir's own folders are git's, not a worktree's: only the ones that hold
  // more git dirs are walked, `modules/` (a submodule's, reused as it is by `git submodule update --init`: the
  // thirty-second pass's A32b-3 planted one with a hook) and `worktrees/`, also under a checkout's `.git` folder.
  const bare = namesAGitDir((n) => names.has(n));
  const gitDirsIn = (gitDir: string) => ["modules", "worktrees"].map((n) => join(gitDir, n));
  const subdirs = bare
    ? gitDirsIn(dir)
    : [...listing.filter((e) => e.isDirectory() && e.name !== ".git").map((e) => join(dir, e.name)), ...(names.get(".git")?.isDirectory() ? gitDirsIn(join(dir, ".git")) : [])];
  const found = { id, entries: listing.length, subdirs, hasGit: names.has(".git") || bare === true };
  if (racy) listed.delete(dir);
  else listed.set(dir, found);
  return found;
}

/**
 * The folders under `workspace` (itself included) that hold an entry named `.git`; never descends into a `.git`.
 * Folders unchanged since the last walk are not listed again (the first walk of 30 000 entries took ~150 ms).
 */
export function checkoutsIn(workspace: string): Checkouts {
  const roots: string[] = [];
  const stack = [workspace];
  let entries = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const c = contentsOf(dir);
    if (!c) continue;
    entries += c.entries;
    if (entries > checkoutWalkLimits.entries) return { roots, truncated: true };
    if (c.hasGit) roots.push(dir);
    stack.push(...c.subdirs);
  }
  return { roots, truncated: false };
}

/** The end of a chat or run: forget what was listed. */
export function forgetCheckouts(): void {
  listed.clear();
}
