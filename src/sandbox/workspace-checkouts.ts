// Every repository checked out inside a workspace, whether or not the workspace's index records it: a `.git` folder,
// a `.git` file (gitdir: …) or a link named `.git`. The user's own `git status` run in one of those folders reads ITS
// config on the host, and a command in the sandbox can make one with `git init` (the fourteenth pass: a workspace that
// had no repository, `docs/.git`, a gitlink file `site/.git`), so the nested-repository guard looks at each one, not
// only at the gitlinks an index lists. A walk of the workspace, without following links, with a budget of entries.
import { type Dirent, lstatSync } from "node:fs";
import { basename, join } from "node:path";
import { isGitDir, namesAGitDir } from "./git-dir-code.js";
import { listForGuard } from "./guard-listing.js";
import { watchFolder } from "./folder-watch.js";

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
const listed = new Map<string, Contents & { id: string }>();

interface Contents {
  entries: number;
  subdirs: string[];
  /** It holds a `.git` entry, or is a git dir itself. */
  hasGit: boolean;
  /** It is a git dir itself (a bare repository, or a checkout's `.git` folder). */
  bare: boolean;
}

/**
 * What `dir` holds: listed again only when its ctime changed (an entry added, removed or renamed changes it).
 * `inGitDir`: `dir` is a git dir or inside one, where only more git dirs matter (a folder without subfolders, by its
 * link count, cannot hold one and is not listed unless it is one: the loose objects' fan-out folders).
 */
function contentsOf(dir: string, inGitDir: boolean): Contents | undefined {
  let id: string;
  let racy: boolean;
  try {
    const st = lstatSync(dir);
    // A git dir of files only (HEAD and commondir, or `objects` and `refs` as files: the thirty-sixth pass's A36a-1
    // put one at `.git/deploy`) has no subfolder either: looked for by name before the folder is skipped.
    if (inGitDir && st.nlink === 2 && !isGitDir(dir)) return { entries: 0, subdirs: [], hasGit: false, bare: false };
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
    listing = listForGuard(dir, true); // one a command made unreadable gets its rights back (guard-listing.ts)
  } catch {
    return undefined;
  }
  // A link is not followed: its target is not the workspace's.
  const names = new Map(listing.map((e) => [e.name, e]));
  const folders = listing.filter((e) => e.isDirectory() && e.name !== ".git").map((e) => join(dir, e.name));
  // A bare repository (HEAD, objects, refs: a git dir of its own, git-dir-code.ts isGitDir) is one too; a push runs its
  // hooks (the thirty-first pass's A31b-2). Inside a git dir, any folder can hold one: `modules/` a submodule's, reused
  // as it is by `git submodule update --init` (the thirty-second pass's A32b-3), `worktrees/`, but also `.git/deploy`
  // or `srv.git/info/inner.git` that the user is told to push to (the thirty-fifth pass's A35a-1).
  const bare = namesAGitDir((n) => names.has(n)) === true;
  const dotGit = names.get(".git")?.isDirectory() ? [join(dir, ".git")] : [];
  const found = { id, entries: listing.length, subdirs: [...folders, ...dotGit], hasGit: names.has(".git") || bare, bare };
  if (racy) listed.delete(dir);
  else listed.set(dir, found);
  return found;
}

/**
 * The folders under `workspace` (itself included) that hold an entry named `.git`, and the bare repositories, also
 * those inside a git dir. Folders unchanged since the last walk are not listed again (the first walk of 30 000
 * entries took ~150 ms).
 */
export function checkoutsIn(workspace: string): Checkouts {
  const roots: string[] = [];
  const stack = [{ dir: workspace, inGitDir: false }];
  let entries = 0;
  while (stack.length > 0) {
    const { dir, inGitDir } = stack.pop()!;
    const c = contentsOf(dir, inGitDir);
    if (!c) continue;
    watchFolder(dir); // while background jobs run (folder-watch.ts)
    entries += c.entries;
    if (entries > checkoutWalkLimits.entries) return { roots, truncated: true };
    // A checkout's own `.git` folder is its parent's, not a root of its own.
    if (c.hasGit && basename(dir) !== ".git") roots.push(dir);
    for (const d of c.subdirs) stack.push({ dir: d, inGitDir: inGitDir || c.bare || basename(d) === ".git" });
  }
  return { roots, truncated: false };
}

/** The end of a chat or run: forget what was listed. */
export function forgetCheckouts(): void {
  listed.clear();
}
