// Every repository checked out inside a workspace, whether or not the workspace's index records it: a `.git` folder,
// a `.git` file (gitdir: …) or a link named `.git`. The user's own `git status` run in one of those folders reads ITS
// config on the host, and a command in the sandbox can make one with `git init` (the fourteenth pass: a workspace that
// had no repository, `docs/.git`, a gitlink file `site/.git`), so the nested-repository guard looks at each one, not
// only at the gitlinks an index lists. A walk of the workspace, without following links, with a budget of entries.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** How many directory entries one walk reads at most (a test lowers it); past it the walk says so. */
export const checkoutWalkLimits = { entries: 200_000 };

export interface Checkouts {
  /** The folders holding a `.git` entry (the workspace itself included when it has one). */
  roots: string[];
  /** The walk stopped at the budget: folders below were not looked at. */
  truncated: boolean;
}

/** The folders under `workspace` (itself included) that hold an entry named `.git`; never descends into a `.git`. */
export function checkoutsIn(workspace: string): Checkouts {
  const roots: string[] = [];
  const stack = [workspace];
  let entries = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let listing: import("node:fs").Dirent[];
    try {
      listing = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // gone or unreadable: git cannot enter it either
    }
    for (const e of listing) {
      if (++entries > checkoutWalkLimits.entries) return { roots, truncated: true };
      if (e.name === ".git") roots.push(dir);
      else if (e.isDirectory()) stack.push(join(dir, e.name)); // a link is not followed: its target is not the workspace's
    }
  }
  return { roots, truncated: false };
}
