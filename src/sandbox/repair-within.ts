// The guards' repairs on the host (a planted `.git` or hook moved aside, a config key taken out, `commondir` put back)
// run while the thread's background jobs may still run. Done by path, a job swapping a folder on the way for a link
// between the guard's look and its act redirected the act: the twentieth pass renamed a `.git` in the home that way
// (RW1b). So each act goes through the parent folder opened once and judged by what was opened — its real path (from
// /proc/self/fd) inside one of the folders the guard may repair — and names only the last component relative to that
// open folder, which no later swap can move. Nothing here deletes a folder: an old `.deerflow-removed` is kept and the
// next free name taken, as a recursive delete walks a tree a job can still change.
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readlinkSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isInside } from "./paths.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** How many `.deerflow-removed`, `.deerflow-removed-2`, … names a move tries before it gives up. */
const ASIDE_NAMES = 50;

/** A folder held open: `at(name)` names an entry of exactly that folder, whatever happens to its path since. */
interface OpenDir {
  real: string;
  at(name: string): string;
  /** The same entry as a child process sees it (git run on a file of this folder). */
  forChild(name: string): string;
}

/** Opens the folder `dir` and checks what was opened is inside `roots`; the fd and its real path. */
function openDirInside(dir: string, roots: readonly string[]): { fd: number; real: string } {
  const fd = openSync(dir, O_RDONLY | O_DIRECTORY);
  try {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    if (!roots.some((r) => isInside(real, r))) throw new Error(`its folder is now ${real}, outside where deerflow repairs (a link was put on the way)`);
    return { fd, real };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Runs `act` on `path`'s parent folder opened and checked inside `roots`; throws with the reason when it is not. */
function withinParent<T>(path: string, roots: readonly string[], act: (dir: OpenDir, name: string) => T): T {
  const name = basename(path);
  if (name === "" || name === "." || name === "..") throw new Error(`${path} names no entry`);
  const { fd, real } = openDirInside(dirname(path), roots);
  try {
    return act({ real, at: (n) => `/proc/self/fd/${fd}/${n}`, forChild: (n) => `/proc/${process.pid}/fd/${fd}/${n}` }, name);
  } finally {
    closeSync(fd);
  }
}

const exists = (p: string) => lstatSync(p, { throwIfNoEntry: false }) !== undefined;

/**
 * Moves `path` (file, folder or link: never followed) to the first free `<name>.deerflow-removed[-n]` beside it.
 * Returns the host path it now has; throws when its folder is outside `roots` or no name is free.
 */
export function moveAsideWithin(path: string, roots: readonly string[]): string {
  return withinParent(path, roots, (dir, name) => {
    if (!exists(dir.at(name))) throw new Error("it is gone");
    for (let n = 1; n <= ASIDE_NAMES; n++) {
      const aside = `${name}.deerflow-removed${n === 1 ? "" : `-${n}`}`;
      if (exists(dir.at(aside))) continue;
      renameSync(dir.at(name), dir.at(aside));
      return `${dirname(path)}/${aside}`;
    }
    throw new Error(`${ASIDE_NAMES} earlier copies moved aside are still there`);
  });
}

/** Removes the file or link `path` (a folder is refused: see above); nothing when it is gone. */
export function removeFileWithin(path: string, roots: readonly string[]): void {
  withinParent(path, roots, (dir, name) => {
    try {
      unlinkSync(dir.at(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  });
}

/** Writes `data` as a new file `path` (it must not exist: a link or file put there since makes this throw). */
export function createFileWithin(path: string, roots: readonly string[], data: string): void {
  withinParent(path, roots, (dir, name) => {
    const fd = openSync(dir.at(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
  });
}

/** Runs `act` with a path naming `path` through its checked parent, for a child process (git config --file). */
export function childPathWithin<T>(path: string, roots: readonly string[], act: (childPath: string) => T): T {
  return withinParent(path, roots, (dir, name) => act(dir.forChild(name)));
}

/** Gives the owner back full rights on the folder `dir` (a command took them: chmod a-w .git), when it is inside `roots`. */
export function ownerRightsWithin(dir: string, roots: readonly string[]): void {
  const { fd } = openDirInside(dir, roots);
  try {
    fchmodSync(fd, fstatSync(fd).mode | 0o700);
  } finally {
    closeSync(fd);
  }
}
