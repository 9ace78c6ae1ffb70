// The guards' repairs on the host (a planted `.git` or hook moved aside, a config key taken out, `commondir` put back)
// run while the thread's background jobs may still run. Done by path, a job swapping a folder on the way for a link
// between the guard's look and its act redirected the act: the twentieth pass renamed a `.git` in the home that way
// (RW1b). So each act goes through the parent folder opened once and judged by what was opened — its real path (from
// /proc/self/fd) inside one of the folders the guard may repair — and names only the last component relative to that
// open folder, which no later swap can move. Nothing here deletes a folder: an old `.deerflow-removed` is kept and the
// next free name taken, as a recursive delete walks a tree a job can still change.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdtempSync, openSync, readSync, readlinkSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { isInside } from "./paths.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0; // a FIFO at the name must never block the open
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Linux's O_PATH (node does not export it): the folder is opened as a name, so one a command made unreadable opens too. */
export const O_PATH = 0o10000000;

/** A name moveAsideWithin gave: `<name>.deerflow-removed[-n]` (never run as a hook, never repaired again). */
export const isMovedAside = (name: string) => /\.deerflow-removed(-\d+)?$/.test(name);

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
  const fd = openSync(dir, O_PATH | O_DIRECTORY);
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
  const dir = { real, at: (n: string) => `/proc/self/fd/${fd}/${n}`, forChild: (n: string) => `/proc/${process.pid}/fd/${fd}/${n}` };
  try {
    try {
      return act(dir, name);
    } catch (err) {
      // A command took the owner's rights on the folder (chmod 0555 .git, the thirty-fifth pass's A35a-7): the user's
      // own folder gets them back, and the repair is tried once more.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EPERM") throw err;
      giveRights(fd);
      return act(dir, name);
    }
  } finally {
    closeSync(fd);
  }
}

/** The owner's read, write and search on the folder open at `fd` (its /proc entry names the folder opened). */
export function giveRights(fd: number): void {
  chmodSync(`/proc/self/fd/${fd}`, (fstatSync(fd).mode & 0o7777) | 0o700);
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

/** The largest file `editFileWithin` takes by default (a config padded past it is moved aside instead: its callers' fallback). */
export const EDIT_MAX_BYTES = 16 * 1024 * 1024;

/** Copies what is left to read at `from` to `to`, in chunks (a file of any size, never whole in memory). */
function copyFd(from: number, to: number): void {
  const buf = Buffer.alloc(1 << 20);
  for (let n = readSync(from, buf); n > 0; n = readSync(from, buf)) writeSync(to, buf, 0, n);
}

/**
 * Edits the regular file `path` through a private copy: `edit` gets the copy's path (`git config --file <copy> …`), and
 * the result replaces `path` by a rename inside its checked folder. Handing git the path itself was not enough: git's
 * lockfile follows a link at the last component, so a job swapping `config` for a link to `~/.gitconfig` between the
 * guard's look and git's write had git edit the user's own file (the twenty-first pass's A21-1). Here the file is
 * opened once without following a link and must be a regular file; the new content goes in under a fresh name made
 * with O_EXCL|O_NOFOLLOW, and rename(2) replaces the entry itself, never what a link there points at.
 */
export function editFileWithin(path: string, roots: readonly string[], edit: (copy: string) => void, maxBytes = EDIT_MAX_BYTES): void {
  withinParent(path, roots, (dir, name) => {
    const work = mkdtempSync(join(tmpdir(), "deerflow-edit-"));
    try {
      const copy = join(work, name);
      const fd = openSync(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      let mode: number;
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) throw new Error("it is not a regular file");
        if (st.size > maxBytes) throw new Error(`it is larger than ${maxBytes} bytes`);
        mode = st.mode & 0o777;
        const c = openSync(copy, O_WRONLY | O_CREAT | O_EXCL, 0o600);
        try {
          copyFd(fd, c);
        } finally {
          closeSync(c);
        }
      } finally {
        closeSync(fd);
      }
      edit(copy);
      const fresh = `${name}.deerflow-edit-${randomBytes(6).toString("hex")}`;
      const out = openSync(dir.at(fresh), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
      try {
        const c = openSync(copy, O_RDONLY);
        try {
          copyFd(c, out);
        } finally {
          closeSync(c);
        }
      } finally {
        closeSync(out);
      }
      try {
        renameSync(dir.at(fresh), dir.at(name));
      } catch (err) {
        unlinkSync(dir.at(fresh)); // a folder put at the name since: the edit is not made, nothing is left behind
        throw err;
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
