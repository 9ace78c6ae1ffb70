// The index bits that make the user's git look away from a file: assume-unchanged and skip-worktree. A run that set one
// on a file it then edited hid the edit from `git status` and `git diff`, and the user's `npm test` ran the hidden
// package.json script (the thirty-third pass's A33a-5). Like the replace refs of git-dir-definitions.ts, such a bit is
// a review view that lies, so a bit the run set is cleared after the command, and the user hears it. The user's own
// bits stay. Also on a file the command deleted (the thirty-sixth pass's A36b-7 set the bit, removed the file, and the
// next command wrote it back, hidden): git status then shows it deleted, which is the truth. A sparse checkout the run
// changes shows the files it left out as deleted until `git sparse-checkout reapply`: loud, never hidden. An index a
// command changed also loses git's caches (index-extensions.ts).
import { dirname, join } from "node:path";
import { identityOf } from "./file-identity.js";
import { moveAsideForgedIndexes } from "./forged-index.js";
import { type IndexListing, forgetFileData, listIndex, lyingEntries } from "./index-entries.js";
import { dropIndexCaches } from "./index-extensions.js";
import { plainGit } from "./plain-git.js";
import { moveAsideWithin } from "./repair-within.js";

/** Per git dir: the index's identity when last listed, its entries then, and its lock's identity at the start. */
const seen = new Map<string, { id: string; listing: IndexListing; lockAtStart: string }>();
const nothing = (): IndexListing => ({ format: "sha1", flagged: new Set(), entries: new Map() });

const indexOf = (gitDir: string) => join(gitDir, "index");
const lockOf = (gitDir: string) => join(gitDir, "index.lock");

/** The run's start: the bits the user had. `empty`: a repository first seen after a command, whose bits are the run's. */
export function noteIndexFlags(gitDir: string, empty = false): void {
  if (seen.has(gitDir)) return;
  const id = empty ? "" : identityOf(indexOf(gitDir));
  seen.set(gitDir, { id, listing: (id && listIndex(indexOf(gitDir), dirname(gitDir))) || nothing(), lockAtStart: identityOf(lockOf(gitDir)) });
}

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
  const index = indexOf(gitDir);
  const listing = listIndex(index, top);
  if (!listing) return [];
  // An entry git never adds (`../.bashrc`) in any checkout's index, a linked worktree's too (the thirty-seventh pass's
  // A37c-3/4): the index goes aside whole, as for the workspace's own (forged-index.ts).
  if (listing.forged) {
    seen.set(gitDir, { ...known, id: "", listing: nothing() });
    return moveAsideForgedIndexes([{ index, path: listing.forged }], roots);
  }
  const { flagged, format } = listing;
  const added = [...flagged].filter((p) => !known.listing.flagged.has(p));
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
      `deerflow cleared the assume-unchanged or skip-worktree bit a command set on ${names} in the index: with it, your git status and git diff would not show changes to ${added.length === 1 ? "that file" : "those files"}.`,
    );
  }
  lines.push(...resetLyingEntries(index, top, known.listing, listing));
  try {
    dropIndexCaches(index, format, roots); // caches git rebuilds: said nowhere, as nothing the user sees changes
  } catch {
    // gone or swapped since: the next look takes it again
  }
  seen.set(gitDir, { ...known, id: identityOf(index), listing });
  return lines;
}

/** Entries that hide a change from git by the file data they record (index-entries.ts) are reset; the line saying so. */
function resetLyingEntries(index: string, top: string, before: IndexListing, now: IndexListing): string[] {
  const lying = lyingEntries(index, top, before.entries, now);
  if (lying.length === 0) return [];
  const names = lying.slice(0, 5).join(", ") + (lying.length > 5 ? ` and ${lying.length - 5} more` : "");
  try {
    forgetFileData(index, top, now, lying);
  } catch {
    return [`deerflow found index entries that hide changes to ${names} from git status and git diff, and could not reset them (the index is locked): look at those files before you commit.`];
  }
  return [`deerflow reset the index entries of ${names}: they recorded the data of a file with other content, which kept its changes out of your git status and git diff.`];
}

/** The end of a chat or run. */
export function forgetIndexFlags(): void {
  seen.clear();
}
