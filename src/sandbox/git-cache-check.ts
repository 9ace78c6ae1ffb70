// git's caches beside the objects (commit-graph, multi-pack-index) checked against the objects by git's own `verify`,
// run in deerflow's empty repository with the workspace's objects (no config of the workspace is read). A cache git
// wrote holds and is kept: before, every one a command wrote was moved aside, and an ordinary `git gc` (which git also
// starts on its own after commits) beside a background job stopped every job with a false "planted code" line (the
// fortieth pass's A40c-2). One forged to give a commit another tree (A37c-5) fails and is moved aside as before.
import { join } from "node:path";
import { objectFormatOf } from "./gitlink-walk.js";
import { plainGit } from "./plain-git.js";

/**
 * How long one verify may take: it runs on the host, in the sweep while background jobs live, and holds deerflow up
 * meanwhile. Past it the cache counts as not verified and is moved aside, as before (git writes it again).
 */
export const cacheCheckLimits = { seconds: 10 };

/** Whether the cache at `rel` (relative to `gitDir`) holds against the objects; false when git cannot say so. */
export function cacheHolds(gitDir: string, rel: string): boolean {
  const kind = rel.startsWith("objects/info/commit-graph") ? "commit-graph" : "multi-pack-index";
  const format = objectFormatOf([join(gitDir, "config")]);
  try {
    plainGit([kind, "verify"], { bare: format, objects: join(gitDir, "objects"), timeoutMs: cacheCheckLimits.seconds * 1000 });
    return true;
  } catch {
    return false;
  }
}
