// The one home for deerflow itself (the host process, outside any sandbox) writing a file into a thread directory
// that sandboxed commands can write too: uploads/ (@file, --upload), outputs/.subagent-results/,
// outputs/.tool-results/. A command may have planted a symlink there first (the tenth adversarial pass linked
// uploads/README.md to ~/.bashrc, and outputs/.subagent-results to ~ and to <data>/agents), and a plain
// mkdir + writeFile/copyFile follows it: the host, not the sandbox, then overwrites a file of the user's choosing.
// So: every folder from a trusted base down is checked not to be a link (an absent one is created, one level at a
// time, and checked again), the bytes go to a fresh temporary name opened O_CREAT|O_EXCL|O_NOFOLLOW whose real path
// is verified, and that name is renamed over the destination: rename replaces a link itself, never its target.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** The write was refused: a link or something other than a folder on the way (planted by a command?). */
export class HostWriteError extends Error {
  override name = "HostWriteError";
}

export interface HostWriteTarget {
  /** A folder deerflow trusts (the data directory, a thread's folder): checked from here down, not above. */
  base: string;
  /** The folder to write into (created when absent); must be `base` or below it. */
  dir: string;
  /** The file's name in `dir` (one component). */
  name: string;
}

/** Every folder from `base` to `dir` exists as a real folder (created when absent), none a link; its real path. */
async function checkedDir(base: string, dir: string): Promise<string> {
  const rel = relative(resolve(base), resolve(dir));
  if (rel.startsWith("..") || rel.startsWith(sep)) throw new HostWriteError(`${dir} is not inside ${base}.`);
  let p = resolve(base);
  // The base itself may be a link the user made (a data directory on another disk): trusted, followed.
  if (!(await stat(p).catch(() => undefined))?.isDirectory()) await mkdir(p, { recursive: true });
  for (const step of rel ? rel.split(sep) : []) {
    p = join(p, step);
    let st = await lstat(p).catch(() => undefined);
    if (!st) {
      await mkdir(p).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
      });
      st = await lstat(p).catch(() => undefined);
    }
    if (!st) throw new HostWriteError(`${p} does not exist.`);
    if (st.isSymbolicLink()) throw new HostWriteError(`${p} is a symbolic link (planted by a command?); deerflow does not write through it.`);
    if (!st.isDirectory()) throw new HostWriteError(`${p} is not a folder; deerflow does not write there.`);
  }
  return realpath(p);
}

/** The real path of an open fd (/proc), or realpath + inode where /proc is missing. */
async function fdRealPath(fh: FileHandle, path: string): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    const st = await fh.stat();
    const rp = await realpath(path).catch(() => undefined);
    const again = rp ? await lstat(rp).catch(() => undefined) : undefined;
    return again && again.ino === st.ino && again.dev === st.dev ? rp : undefined;
  }
}

async function writeAll(fh: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let off = 0; off < bytes.length; ) {
    const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, position + off);
    off += bytesWritten;
  }
}

/** Copy a regular file's bytes in chunks (an upload may be large); only the file checked as `checkedAs`, when given. */
async function copyInto(fh: FileHandle, sourcePath: string, checkedAs?: string): Promise<void> {
  const src = await open(sourcePath, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    if (!(await src.stat()).isFile()) throw new HostWriteError(`${sourcePath} is not a regular file.`);
    // Judged by what was opened: a link swapped in after the checks leads elsewhere (the nineteenth pass's UP1).
    if (checkedAs !== undefined && (await fdRealPath(src, sourcePath)) !== checkedAs) {
      throw new HostWriteError(`${sourcePath} changed after deerflow checked it (it now leads to another file); nothing was copied.`);
    }
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; ; ) {
      const { bytesRead } = await src.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return;
      await writeAll(fh, buf.subarray(0, bytesRead), pos);
      pos += bytesRead;
    }
  } finally {
    await src.close();
  }
}

/**
 * Write `data` (or the bytes of the file `copyFrom`) to `<dir>/<name>`, replacing whatever is there (a planted link
 * is replaced, not followed). Returns the written path. Throws HostWriteError when a folder on the way is a link.
 */
export async function hostWriteFile(target: HostWriteTarget, content: { data: string | Buffer } | { copyFrom: string; checkedAs?: string }): Promise<string> {
  const { name } = target;
  if (!name || name !== basename(name) || name === "." || name === "..") throw new HostWriteError(`${name} is not a file name.`);
  const realDir = await checkedDir(target.base, target.dir);
  const dest = join(resolve(target.dir), name);
  const tmp = join(resolve(target.dir), `.${name.slice(0, 200)}.deerflow-${randomBytes(6).toString("hex")}.tmp`);
  const fh = await open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o644);
  let done = false;
  try {
    // The folder may have been swapped for a link between the check and the open: judge where the fd landed.
    if ((await fdRealPath(fh, tmp)) !== join(realDir, basename(tmp))) {
      throw new HostWriteError(`${target.dir} changed while deerflow was writing into it (a link swapped in?); nothing was written.`);
    }
    if ("data" in content) await writeAll(fh, typeof content.data === "string" ? Buffer.from(content.data, "utf8") : content.data, 0);
    else await copyInto(fh, content.copyFrom, content.checkedAs);
    await fh.close();
    done = true;
    await rename(tmp, dest);
    return dest;
  } catch (err) {
    if (!done) await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
