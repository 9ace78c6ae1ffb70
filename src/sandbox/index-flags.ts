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
import { moveAsideWithin } from "./repair-within.js";

/** Per git dir: the index's identity when last listed, the paths flagged then, and its lock's identity at the start. */
const seen = new Map<string, { id: string; flagged: Set<string>; lockAtStart: string }>();

const indexOf = (gitDir: string) => join(gitDir, "index");
const lockOf = (gitDir: string) => join(gitDir, "index.lock");

/**
 * The flagged paths of an index (`ls-files -v`: a lowercase tag is assume-unchanged, `S` skip-worktree), read under
 * deerflow's own empty repository so nothing of the workspace's config runs; undefined when git cannot read it.
 */
function flaggedIn(gitDir: string, top: string): { flagged: Set<string>; format: "sha1" | "sha256" } | undefined {
  for (const format of ["sha1", "sha256"] as const) {
    try {
      const out = plainGit(["ls-files", "-v", "-z"], { cwd: top, index: indexOf(gitDir), format });
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

/** The run's start: the bits the user had. `empty`: a repository first seen after a command, whose bits are the run's. */
export function noteIndexFlags(gitDir: string, empty = false): void {
  if (seen.has(gitDir)) return;
  const id = empty ? "" : identityOf(indexOf(gitDir));
  seen.set(gitDir, { id, flagged: (id && flaggedIn(gitDir, dirname(gitDir))?.flagged) || new Set(), lockAtStart: identityOf(lockOf(gitDir)) });
}

const inWorktree = (top: string, path: string) => lstatSync(join(top, path), { throwIfNoEntry: false }) !== undefined;

/**
 * After a command: a bit the run set on a file in the worktree `top` (the workspace's, or a nested checkout's: the
 * thirty-sixth pass's A36a-6) is cleared; the lines saying so. `ending`: the run's
 * last check, when nothing of the sandbox runs any more, so an `index.lock` the run left (not the user's from before)
 * is stale: it is moved aside (it kept the bits and would stop the user's own git too: the thirty-sixth pass's A36a-3).
 */
export function checkIndexFlags(gitDir: string, top: string, roots: readonly string[], ending = false): string[] {
  noteIndexFlags(gitDir, true);
  const known = seen.get(gitDir)!;
  const id = identityOf(indexOf(gitDir));
  if (id === known.id) return [];
  const listed = flaggedIn(gitDir, top);
  if (!listed) return [];
  const { flagged, format } = listed;
  const added = [...flagged].filter((p) => !known.flagged.has(p) && inWorktree(top, p));
  const names = added.slice(0, 5).join(", ") + (added.length > 5 ? ` and ${added.length - 5} more` : "");
  const lines: string[] = [];
  if (added.length > 0) {
    const lock = lockOf(gitDir);
    if (ending && identityOf(lock) !== "" && identityOf(lock) !== known.lockAtStart) {
      lines.push(`deerflow moved ${lock} to ${moveAsideWithin(lock, roots)}: a command left it, and it kept your git from writing the index.`);
    }
    try {
      // One bit per call: given both, update-index applies only the first to each path.
      const opts = { cwd: top, workTree: top, index: indexOf(gitDir), format, input: `${added.join("\0")}\0` };
      for (const bit of ["--no-assume-unchanged", "--no-skip-worktree"]) plainGit(["update-index", bit, "-z", "--stdin"], opts);
    } catch {
      // Locked (a background job's git, or a lock a command left): said now, tried again after the next command.
      return [
        ...lines,
        `deerflow could not clear the assume-unchanged or skip-worktree bit a command set on ${names} (the index is locked: ${lockOf(gitDir)}): until it is cleared, your git status and git diff do not show changes to ${added.length === 1 ? "that file" : "those files"} (git update-index --no-skip-worktree --no-assume-unchanged -- <file> clears it).`,
      ];
    }
    for (const p of added) flagged.delete(p);
    lines.push(
      `deerflow: cleared the assume-unchanged or skip-worktree bit a command set on ${names} in the index: with it, your git status and git diff would not show changes to ${added.length === 1 ? "that file" : "those files"}.`,
    );
  }
  seen.set(gitDir, { ...known, id: identityOf(indexOf(gitDir)), flagged });
  return lines;
}

/** The end of a chat or run. */
export function forgetIndexFlags(): void {
  seen.clear();
}
