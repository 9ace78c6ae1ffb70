// Race-free file access inside the sandbox mounts. resolveSandboxPath checks a path, but between that check and
// the open anything (bash, another process) may swap a directory for a symlink. So every open here uses
// O_NOFOLLOW for the last component and then verifies what was ACTUALLY opened: the fd's real path
// (readlink /proc/self/fd/<fd>) must be inside the mounts, it must be a regular file (fstat), and it must not be
// a hard link (nlink > 1: it could be the same inode as a file outside the mounts). Writes open without O_TRUNC
// and only truncate after the verification; a file this call created in the wrong place is unlinked again.
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, unlink, type FileHandle } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { SandboxPathError, isInsideMounts, toVirtualPath } from "./paths.js";
import type { ThreadPaths } from "./provider.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0; // a FIFO must never block the open
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** Largest file safeReadFile reads whole (bigger files are refused unless maxBytes says otherwise). */
export const SAFE_READ_MAX_BYTES = 20 * 1024 * 1024;

/** Test seam: runs right before a file is opened (after the path was checked). Never set in production. */
export const safeFsTestHooks: { beforeOpen?: (hostPath: string, op: "read" | "write") => void | Promise<void> } = {};

function label(hostPath: string, mounts: ThreadPaths): string {
  try {
    return toVirtualPath(hostPath, mounts);
  } catch {
    return "the file";
  }
}

/** The real path of an open fd; falls back to realpath + inode comparison where /proc is unavailable. */
async function fdRealPath(fh: FileHandle, hostPath: string, st: Stats): Promise<string | undefined> {
  try {
    const p = await readlink(`/proc/self/fd/${fh.fd}`);
    if (p.endsWith(" (deleted)")) return undefined;
    return p;
  } catch {
    const rp = await realpath(hostPath).catch(() => undefined);
    if (!rp) return undefined;
    const again = await lstat(rp).catch(() => undefined);
    return again && again.ino === st.ino && again.dev === st.dev ? rp : undefined;
  }
}

/** Throws unless the opened fd is a regular, singly-linked file inside the mounts. Returns its real path. */
async function verifyFd(fh: FileHandle, hostPath: string, mounts: ThreadPaths, op: "read" | "write"): Promise<{ st: Stats; real: string | undefined; inside: boolean }> {
  const st = await fh.stat();
  const real = await fdRealPath(fh, hostPath, st);
  const inside = real !== undefined && (await isInsideMounts(real, mounts));
  return { st, real, inside };
}

function refuseFor(v: { st: Stats; inside: boolean }, what: string, op: "read" | "write"): SandboxPathError | undefined {
  if (!v.inside) return new SandboxPathError(`${what} turned out to be outside the thread's directories when opened (a symlink was swapped in?); refusing to ${op} it.`);
  if (!v.st.isFile()) return new SandboxPathError(`${what} is not a regular file (device, FIFO, socket or directory); refusing to ${op} it.`);
  if (v.st.nlink > 1) {
    return new SandboxPathError(
      `${what} has ${v.st.nlink} hard links; a hard link may point at a file outside the sandbox, so it cannot be ${op === "read" ? "read" : "written"} with the file tools. Copy it to a new file instead.`,
    );
  }
  return undefined;
}

function openError(err: unknown, what: string, op: "read" | "write"): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP" || code === "EMLINK") return new SandboxPathError(`${what} is a symlink; the file tools do not follow symlinks when opening.`);
  if (code === "ENOENT") return new SandboxPathError(`${what} does not exist.`);
  if (code === "EISDIR") return new SandboxPathError(`${what} is a directory, not a file.`);
  if (code === "ENXIO") return new SandboxPathError(`${what} is a FIFO or socket; only regular files are allowed.`);
  return new Error(`Cannot ${op} ${what} (${code ?? String(err)}).`);
}

export interface SafeReadResult {
  data: Buffer;
  /** Size of the file when opened. */
  size: number;
  /** True when the file was bigger than maxBytes and only its start was read. */
  truncated: boolean;
  /** The verified real host path. */
  realPath: string;
}

/** Read a regular file inside the mounts (O_NOFOLLOW + fd verification). `maxBytes`: read at most this much. */
export async function safeReadFile(hostPath: string, mounts: ThreadPaths, options: { maxBytes?: number } = {}): Promise<SafeReadResult> {
  const what = label(hostPath, mounts);
  await safeFsTestHooks.beforeOpen?.(hostPath, "read");
  let fh: FileHandle;
  try {
    fh = await open(hostPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (err) {
    throw openError(err, what, "read");
  }
  try {
    const v = await verifyFd(fh, hostPath, mounts, "read");
    const refusal = refuseFor(v, what, "read");
    if (refusal) throw refusal;
    const size = v.st.size;
    const limit = options.maxBytes ?? SAFE_READ_MAX_BYTES;
    if (options.maxBytes === undefined && size > limit) {
      throw new SandboxPathError(`${what} is ${size} bytes, more than the ${limit}-byte limit of the file tools; use bash (head, sed -n) for it.`);
    }
    const want = Math.min(size, limit);
    const buf = Buffer.alloc(want);
    let off = 0;
    while (off < want) {
      const { bytesRead } = await fh.read(buf, off, want - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return { data: off === want ? buf : buf.subarray(0, off), size, truncated: size > off, realPath: v.real ?? hostPath };
  } finally {
    await fh.close();
  }
}

/** lstat-free stat of a path inside the mounts: realpath containment, then stat. */
export async function safeStat(hostPath: string, mounts: ThreadPaths): Promise<Stats> {
  const real = await realpath(hostPath).catch((err) => {
    throw openError(err, label(hostPath, mounts), "read");
  });
  if (!(await isInsideMounts(real, mounts))) throw new SandboxPathError(`${label(hostPath, mounts)} resolves outside the thread's directories.`);
  const st = await lstat(real);
  if (!st.isFile() && !st.isDirectory()) throw new SandboxPathError(`${label(real, mounts)} is not a regular file or directory.`);
  return st;
}

/**
 * mkdir -p, one directory at a time, each checked to be inside the mounts after it exists. Known limit: Node has
 * no mkdirat, so a parent swapped for a symlink in the instant of a mkdir can leave an EMPTY directory outside
 * (never a file, never bytes); the write is then refused.
 */
export async function safeMkdirp(dirHostPath: string, mounts: ThreadPaths): Promise<void> {
  const chain: string[] = [];
  let p = resolve(dirHostPath);
  for (;;) {
    const st = await lstat(p).catch(() => undefined);
    if (st) break;
    chain.unshift(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  for (const dir of chain) {
    try {
      await mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw openError(err, label(dir, mounts), "write");
    }
    const real = await realpath(dir).catch(() => {
      throw new SandboxPathError(`${label(dir, mounts)} vanished while it was being created (changed concurrently?); try again.`);
    });
    if (!(await isInsideMounts(real, mounts))) {
      // Never remove anything outside: `real` may be a pre-existing directory someone swapped in.
      throw new SandboxPathError("A directory on the way turned out to be outside the thread's directories (symlink swapped in?); refusing to write.");
    }
  }
}

export interface SafeWriteResult {
  bytesWritten: number;
  created: boolean;
  realPath: string;
}

/** Write (or append) a regular file inside the mounts; the parent directory must exist. */
export async function safeWriteFile(
  hostPath: string,
  mounts: ThreadPaths,
  data: string | Buffer,
  options: { append?: boolean } = {},
): Promise<SafeWriteResult> {
  const what = label(hostPath, mounts);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  await safeFsTestHooks.beforeOpen?.(hostPath, "write");
  const base = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | (options.append ? O_APPEND : 0);
  let fh: FileHandle;
  let created = false;
  try {
    fh = await open(hostPath, base | O_CREAT | O_EXCL, 0o644);
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw openError(err, what, "write");
    try {
      fh = await open(hostPath, base);
    } catch (err2) {
      throw openError(err2, what, "write");
    }
  }
  try {
    const v = await verifyFd(fh, hostPath, mounts, "write");
    const refusal = refuseFor(v, what, "write");
    if (refusal) {
      if (created) {
        // Remove exactly what we created (the fd's real path, wherever it landed); it is still empty.
        const target = v.real ?? hostPath;
        const again = await lstat(target).catch(() => undefined);
        if (again && again.ino === v.st.ino && again.dev === v.st.dev) await unlink(target).catch(() => undefined);
      }
      throw refusal;
    }
    if (!options.append) await fh.truncate(0);
    let off = 0;
    while (off < bytes.length) {
      const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, options.append ? null : off);
      off += bytesWritten;
    }
    return { bytesWritten: off, created, realPath: v.real ?? hostPath };
  } finally {
    await fh.close();
  }
}
