// git's caches beside the objects (commit-graph, multi-pack-index) checked against the objects by git's own `verify`,
// run in deerflow's empty repository with the workspace's objects (no config of the workspace is read). A cache git
// wrote holds and is kept: before, every one a command wrote was moved aside, and an ordinary `git gc` (which git also
// starts on its own after commits) beside a background job stopped every job with a false "planted code" line (the
// fortieth pass's A40c-2). One forged to give a commit another tree (A37c-5) fails and is moved aside as before.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { objectFormatOf } from "./gitlink-walk.js";
import { plainGit } from "./plain-git.js";

/**
 * How long one verify may take: it runs on the host, in the sweep while background jobs live, and holds deerflow up
 * meanwhile. Past it the cache counts as not verified and is moved aside, as before (git writes it again).
 */
export const cacheCheckLimits = { seconds: 10 };

/**
 * Whether a commit-graph file holds changed-path Bloom filters (chunks BIDX, BDAT), or is not a regular file that
 * reads as one. git's verify does not check them, and `git log -- <path>` trusts them to skip commits: a forged filter
 * would hide the run's commit from a path's history. git gc writes none unless asked (`--changed-paths`).
 */
function hasBloomFilters(file: string): boolean {
  const head = Buffer.alloc(8 + 12 * 256);
  let fd: number;
  try {
    // Never through a link, never waiting on a FIFO the run put there (the thirty-sixth pass's A36a-7).
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return true;
  }
  try {
    if (!fstatSync(fd).isFile()) return true;
    const n = readSync(fd, head, 0, head.length, 0);
    if (n < 8 || head.toString("latin1", 0, 4) !== "CGPH") return true;
    const chunks = head[6]!;
    if (8 + 12 * (chunks + 1) > n) return true;
    for (let i = 0; i < chunks; i++) if (/^(BIDX|BDAT)$/.test(head.toString("latin1", 8 + 12 * i, 12 + 12 * i))) return true;
    return false;
  } finally {
    closeSync(fd);
  }
}

/** The commit-graph files git reads in `gitDir`: the single file and a split chain's. */
function graphFiles(gitDir: string): string[] {
  const info = join(gitDir, "objects", "info");
  let chain: string[] = [];
  try {
    chain = readdirSync(join(info, "commit-graphs"))
      .filter((n) => n.endsWith(".graph"))
      .map((n) => join(info, "commit-graphs", n));
  } catch {
    // no chain
  }
  return [join(info, "commit-graph"), ...chain].filter((f) => lstatSync(f, { throwIfNoEntry: false }) !== undefined);
}

/** Which cache `rel` (relative to the git dir) belongs to: a commit-graph (one file or a split chain's) or a multi-pack-index. */
export const cacheKind = (rel: string) => (rel.startsWith("objects/info/commit-graph") ? "commit-graph" : "multi-pack-index");

/** Whether the cache at `rel` (relative to `gitDir`) holds against the objects; false when git cannot say so. */
export function cacheHolds(gitDir: string, rel: string): boolean {
  const kind = cacheKind(rel);
  // Only a regular file is handed to git (a FIFO would hold its verify, and deerflow, until the time limit).
  if (!lstatSync(join(gitDir, rel), { throwIfNoEntry: false })?.isFile()) return false;
  if (kind === "commit-graph" && graphFiles(gitDir).some(hasBloomFilters)) return false;
  const format = objectFormatOf([join(gitDir, "config")]);
  try {
    plainGit([kind, "verify"], { bare: format, objects: join(gitDir, "objects"), timeoutMs: cacheCheckLimits.seconds * 1000 });
    return true;
  } catch {
    return false;
  }
}
