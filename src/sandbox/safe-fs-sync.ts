// The synchronous readers of the safe-fs family (safe-fs.ts says why each open is verified): a search's many small
// reads, and the host-side readers of files a sandboxed command can change — AGENTS.md, a skill's or a custom
// command's files, a project's agent types. Those were checked by name and then opened by name again: a background
// job swapping the file for a link to `~/.someapp/token` between the two got the host file into the model's context
// (the seventeenth pass's AG1). Here a file is opened once and what was opened is judged: its real path (from
// /proc/self/fd) inside the folder, a regular file, within the size limit.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { OTHER_USERS_FILE, isUserOrRoot } from "../config/project-folders.js";
import { isInside, hardLinksReadable, isInsideMountsSync } from "./paths.js";
import type { ThreadPaths } from "./provider.js";

const { O_RDONLY } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0; // a FIFO must never block the open
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** The real path of an open fd; where /proc is unavailable, the path's real path when it is still the same inode. */
export function fdRealPathSync(fd: number, hostPath: string, st: Stats): string | undefined {
  try {
    const p = readlinkSync(`/proc/self/fd/${fd}`);
    return p.endsWith(" (deleted)") ? undefined : p;
  } catch {
    try {
      const rp = realpathSync(hostPath);
      const again = lstatSync(rp);
      return again.ino === st.ino && again.dev === st.dev ? rp : undefined;
    } catch {
      return undefined;
    }
  }
}

function readAll(fd: number, want: number): Buffer {
  const buf = Buffer.allocUnsafe(want);
  let off = 0;
  while (off < want) {
    const n = readSync(fd, buf, off, want - off, off);
    if (n === 0) break;
    off += n;
  }
  return off === want ? buf : buf.subarray(0, off);
}

/**
 * The bytes of `file`, a regular file whose real path lies inside `realDir`, opened once. `realDir` must be a real
 * path the caller resolved before (resolving it here again would follow a folder swapped for a link just as well).
 * A link inside the folder to another file inside it is followed; anything else throws one line saying why (`it is a
 * symlink that leads outside <folder>`, not a regular file, over `maxBytes` unless `cut` says to read only its
 * start); an open that fails throws its errno error. `project`: a project file, refused when another user owns what was
 * opened (in a group-shared repository another member could add or swap one in: the forty-third pass's A43a-1/2/5).
 */
export function readFileInsideSync(realDir: string, file: string, maxBytes: number, opts: { folder?: string; cut?: boolean; project?: boolean } = {}): { data: Buffer; realPath: string } {
  const fd = openSync(file, O_RDONLY | O_NONBLOCK | O_NOCTTY); // its error (ENOENT…) is the caller's to word
  try {
    const st = fstatSync(fd);
    const real = fdRealPathSync(fd, file, st);
    if (real === undefined || !isInside(real, realDir)) throw new Error(`it is a symlink that leads outside ${opts.folder ?? "its folder"}`);
    if (!st.isFile()) throw new Error("it is not a regular file");
    if (opts.project && !isUserOrRoot(st.uid)) throw new Error(OTHER_USERS_FILE);
    if (st.size > maxBytes && !opts.cut) throw new Error(`it is ${st.size} bytes, over the limit of ${maxBytes}`);
    return { data: readAll(fd, Math.min(st.size, maxBytes)), realPath: real };
  } finally {
    closeSync(fd);
  }
}

/**
 * safeReadFile for a search over many files, synchronously (the same checks, no thread-pool round trip per system
 * call: a walker grep over 50,000 files spent most of its time there). Undefined for anything safeReadFile refuses,
 * a file over `maxBytes`, or where /proc cannot tell the fd's real path. The caller reads in small batches and
 * yields to the event loop between them.
 */
export function readForSearchSync(hostPath: string, mounts: ThreadPaths, maxBytes: number): { data: Buffer; realPath: string } | undefined {
  let fd: number;
  try {
    fd = openSync(hostPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes || (st.nlink > 1 && !hardLinksReadable(mounts))) return undefined;
    const real = fdRealPathSync(fd, hostPath, st);
    if (!real || !isInsideMountsSync(real, mounts)) return undefined;
    return { data: readAll(fd, st.size), realPath: real };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
