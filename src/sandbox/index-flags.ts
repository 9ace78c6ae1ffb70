// The index bits that make the user's git look away from a file: assume-unchanged and skip-worktree. A run that set one
// on a file it then edited hid the edit from `git status` and `git diff`, and the user's `npm test` ran the hidden
// package.json script (the thirty-third pass's A33a-5). Like the replace refs of git-dir-definitions.ts, such a bit is
// a review view that lies, so a bit the run set on a file that is in the worktree is cleared after the command, and
// the user hears it. The user's own bits stay; a file that is not in the worktree keeps its bit (a sparse checkout
// leaves the files outside its cone out, with the bit: clearing it would show them deleted).
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { identityOf } from "./file-identity.js";
import { plainGit } from "./plain-git.js";

/** Per git dir: the index's identity when last listed, and the paths flagged then. */
const seen = new Map<string, { id: string; flagged: Set<string> }>();

const indexOf = (gitDir: string) => join(gitDir, "index");

/**
 * The flagged paths of an index (`ls-files -v`: a lowercase tag is assume-unchanged, `S` skip-worktree), read under
 * deerflow's own empty repository so nothing of the workspace's config runs; undefined when git cannot read it.
 */
function flaggedIn(gitDir: string): { flagged: Set<string>; format: "sha1" | "sha256" } | undefined {
  for (const format of ["sha1", "sha256"] as const) {
    try {
      const out = plainGit(["ls-files", "-v", "-z"], { cwd: dirname(gitDir), index: indexOf(gitDir), format });
      const flagged = new Set<string>();
      for (const entry of out.split("\0")) {
        const tag = entry[0];
        if (tag && entry[1] === " " && (tag === "S" || tag !== tag.toUpperCase())) flagged.add(entry.slice(2));
      }
      return { flagged, format };
    } catch {
      // the other object format next
    }
  }
  return undefined;
}

/** The run's start: the bits the user had. */
export function noteIndexFlags(gitDir: string): void {
  if (seen.has(gitDir)) return;
  const id = identityOf(indexOf(gitDir));
  seen.set(gitDir, { id, flagged: (id && flaggedIn(gitDir)?.flagged) || new Set() });
}

const inWorktree = (top: string, path: string) => lstatSync(join(top, path), { throwIfNoEntry: false }) !== undefined;

/** After a command: a bit the run set on a file in the worktree is cleared; the lines saying so. */
export function checkIndexFlags(gitDir: string): string[] {
  const known = seen.get(gitDir);
  const id = identityOf(indexOf(gitDir));
  if (!known || id === known.id) return [];
  const listed = flaggedIn(gitDir);
  if (!listed) return [];
  const { flagged, format } = listed;
  const top = dirname(gitDir);
  const added = [...flagged].filter((p) => !known.flagged.has(p) && inWorktree(top, p));
  if (added.length > 0) {
    try {
      // One bit per call: given both, update-index applies only the first to each path.
      const opts = { cwd: top, workTree: top, index: indexOf(gitDir), format, input: `${added.join("\0")}\0` };
      for (const bit of ["--no-assume-unchanged", "--no-skip-worktree"]) plainGit(["update-index", bit, "-z", "--stdin"], opts);
    } catch {
      // The index is locked (a git of a background job): the next command's check tries again (the identity is kept).
      return [];
    }
    for (const p of added) flagged.delete(p);
  }
  seen.set(gitDir, { id: identityOf(indexOf(gitDir)), flagged });
  if (added.length === 0) return [];
  const names = added.slice(0, 5).join(", ") + (added.length > 5 ? ` and ${added.length - 5} more` : "");
  return [
    `deerflow: cleared the assume-unchanged or skip-worktree bit a command set on ${names} in the index: with it, your git status and git diff would not show changes to ${added.length === 1 ? "that file" : "those files"}.`,
  ];
}

/** The end of a chat or run. */
export function forgetIndexFlags(): void {
  seen.clear();
}
