// The gitlinks (mode 160000: submodules, registered or not) a repository's index records inside a workspace, and
// theirs in turn: the checkouts the user's `git status` in the workspace enters with their own config and hooks.
// Read without any repository's config (plain-git.ts). The nested-repository guard cleans their configs after each
// command; plan mode's git gate refuses git while any of them would run code.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { type CheckoutGit, configFilesOf, configSetsSha256, gitDirsOfCheckout, isUnreadable } from "./git-dir-code.js";
import { forgedPath } from "./forged-index.js";
import { plainGit } from "./plain-git.js";
import { realOrSelf } from "./real-path.js";

/**
 * Gitlinks nest (a submodule's own submodules) and git's status follows them without a depth bound (the tenth pass hid
 * a key ten deep, past this walk's old bound of 8). So the walk has no depth bound: a cycle guard (each git dir by
 * its real path) and a total budget of indexes; past the budget it says so rather than stop in silence.
 */
export const nestedRepoLimits = { indexes: 256 }; // a test lowers it

export interface Walk {
  links: string[];
  indexes: string[];
  /** Lines for the user: what could not be looked into (the budget ran out, an index could not be read). */
  problems: string[];
  /** Checkouts whose index the budget left unread: the repositories they record are unknown (fail closed on them). */
  unvisited: string[];
  /** Indexes holding an entry git would never add (`../.bashrc`, `.git/hooks/x`), with the first such path. */
  forged: { index: string; path: string }[];
  seen: Set<string>;
}

/** The object format a repository uses, as git reads it (a quoted value, a config of any size). */
const formatOf = (g: CheckoutGit) => objectFormatOf(configFilesOf(g));

/** The object format the config files `configs` set (`extensions.objectFormat`): sha1 unless one says sha256. */
export function objectFormatOf(configs: readonly string[]): "sha1" | "sha256" {
  // Read from the guards' listing of each file (`--file`: that one file, no includes, so nothing of it runs).
  return configs.some(configSetsSha256) ? "sha256" : "sha1";
}

/** `git ls-files --stage` of an index, in the repository's format, else in the other one; undefined when neither reads it. */
function listIndex(root: string, index: string, g: CheckoutGit): string | undefined {
  const first = formatOf(g);
  for (const format of [first, first === "sha1" ? "sha256" : "sha1"] as const) {
    try {
      return plainGit(["ls-files", "--stage", "-z"], { cwd: root, index, format });
    } catch {
      // the other format next
    }
  }
  return existsSync(index) ? undefined : "";
}

export const emptyWalk = (): Walk => ({ links: [], indexes: [], problems: [], unvisited: [], forged: [], seen: new Set() });

/**
 * The gitlinks inside `workspace` of the index of the checkout at `root`, and of their own indexes, with the indexes
 * read (path and mtime, to know when to list again).
 */
export function gitlinks(workspace: string, root: string, g: CheckoutGit, walk: Walk = emptyWalk()): Walk {
  const real = realOrSelf(resolve(g.gitDir));
  if (walk.seen.has(real)) return walk;
  walk.seen.add(real);
  if (walk.indexes.length >= nestedRepoLimits.indexes) {
    // One line for the walk (the seventeenth pass's G13 got 45, one per repository, all to the model).
    if (walk.unvisited.length === 0) {
      walk.problems.push(
        `deerflow stopped looking into nested repositories at ${root}: more than ${nestedRepoLimits.indexes} of them. Code keys in the ones below it were not checked; look at their .git/config before you run git status in the workspace.`,
      );
    }
    walk.unvisited.push(root);
    return walk;
  }
  const index = join(g.gitDir, "index");
  walk.indexes.push(index);
  const listing = listIndex(root, index, g);
  if (listing === undefined) {
    // Never read as "no gitlinks" (the ninth and tenth passes blinded this guard so): say so.
    walk.problems.push(`deerflow could not read the index of ${root}, so it could not check the repositories it records; look at their .git/config before you run git status in the workspace.`);
    return walk;
  }
  for (const entry of listing.split("\0")) {
    const named = entry.slice(entry.indexOf("\t") + 1);
    if (entry && forgedPath(named) && !walk.forged.some((f) => f.index === index)) walk.forged.push({ index, path: named });
    if (!entry.startsWith("160000 ")) continue;
    const path = join(root, named);
    if (path !== workspace && !path.startsWith(`${workspace}/`)) continue;
    walk.links.push(path);
    const sub = gitDirsOfCheckout(path);
    if (sub && !isUnreadable(sub)) gitlinks(workspace, path, sub, walk);
  }
  return walk;
}
