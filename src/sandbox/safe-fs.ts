// Race-free file access inside the sandbox mounts. resolveSandboxPath checks a path, but between that check and
// the open anything (bash, another process) may swap a directory for a symlink. So every open here uses
// O_NOFOLLOW for the last component and then verifies what was ACTUALLY opened: the fd's real path
// (readlink /proc/self/fd/<fd>) must be inside the mounts and it must be a regular file (fstat).
// Hard links (nlink > 1) could be the same inode as a file outside the mounts. They are readable only when the
// mounts say so (the file tools allow it when the shell is confined by bubblewrap: a command inside it cannot
// link a file from outside, a link across mounts fails with EXDEV; pnpm's node_modules and `cp -al` trees are
// links the user made). A write never goes THROUGH a link: an existing file is replaced by a new one renamed over
// it (as editors do), so the other names of the old inode (pnpm's store) keep their content. A new file is created
// with O_EXCL, checked, then written; a file this call created in the wrong place is unlinked again.
import { constants, existsSync, type Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readlink, realpath, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { SandboxPathError, hardLinksReadable, isInsideMounts, toVirtualPath } from "./paths.js";
import type { ThreadPaths } from "./provider.js";
import { repoCodePathOf } from "./repo-code-paths.js";

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND } = constants;
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

/**
 * git's own directory (`.git/config`, `.git/hooks/*`) holds commands the user's git runs later on the host, outside
 * any sandbox; a `.git` FILE redirects git to another directory. The file tools never write there (nor create a
 * directory there): git writes it through the git command, which the shell audit judges.
 */
const GIT_INTERNAL = /(?:^|\/)\.git(?:\/|$)/i;
export function refuseGitInternalWrite(virtualPath: string): void {
  if (GIT_INTERNAL.test(virtualPath)) {
    throw new SandboxPathError(
      `${virtualPath} is inside git's own directory (.git: its config and hooks run commands on your host); the file tools do not write there. Use the git command (e.g. git config) instead.`,
    );
  }
}

/**
 * A git directory under another name (a bare repository, `git init --separate-git-dir=gd`): its `config` runs
 * commands just as `.git/config` does, for whoever runs git where it is used (the fifth adversarial pass planted
 * core.fsmonitor in `gd/config`, and the user's `git status` in the parent ran it through a gitlink). Refused like
 * `.git`: any directory between the file and the mount that has HEAD, objects/ and refs/.
 */
export function refuseGitDirShapedWrite(hostPath: string, mounts: ThreadPaths): void {
  const roots = [mounts.workspace_path, mounts.uploads_path, mounts.outputs_path].filter(Boolean).map((p) => resolve(p));
  for (let dir = dirname(resolve(hostPath)); !roots.includes(dir) && dir !== dirname(dir); dir = dirname(dir)) {
    if (!roots.some((r) => dir.startsWith(`${r}/`))) return;
    if (existsSync(join(dir, "HEAD")) && existsSync(join(dir, "objects")) && existsSync(join(dir, "refs"))) {
      throw new SandboxPathError(
        `${label(hostPath, mounts)} is inside a git directory (${label(dir, mounts)}: its config and hooks run commands on your host); the file tools do not write there. Use the git command instead.`,
      );
    }
  }
}

/**
 * A file the repository's config makes code while it sits in the worktree: the `core.hooksPath` folder (husky) or a
 * config file it includes (repo-code-paths.ts). Refused like `.git`: the user's git runs them on the host.
 */
export function refuseRepoCodeWrite(hostPath: string, mounts: ThreadPaths): void {
  if (!mounts.workspace_path) return;
  const hit = repoCodePathOf(hostPath, mounts.workspace_path);
  if (hit !== undefined) {
    throw new SandboxPathError(
      `${label(hostPath, mounts)} is inside ${label(hit, mounts)}, which your git config names as its hooks folder, a config file it reads or a program it runs (your git runs what is there on your host); the file tools do not write there. Edit it yourself.`,
    );
  }
}

/** Every refusal above, for a write to `hostPath`: what the file tools check before asking and again when writing. */
export function refuseGitCodeWrite(hostPath: string, mounts: ThreadPaths, virtualPath = label(hostPath, mounts)): void {
  refuseGitInternalWrite(virtualPath);
  refuseGitDirShapedWrite(hostPath, mounts);
  refuseRepoCodeWrite(hostPath, mounts);
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

interface Verified {
  st: Stats;
  real: string | undefined;
  inside: boolean;
  linksReadable: boolean;
}

/** What the opened fd really is: its stat, its real path and whether that is inside the mounts. */
async function verifyFd(fh: FileHandle, hostPath: string, mounts: ThreadPaths): Promise<Verified> {
  const st = await fh.stat();
  const real = await fdRealPath(fh, hostPath, st);
  const inside = real !== undefined && (await isInsideMounts(real, mounts));
  return { st, real, inside, linksReadable: hardLinksReadable(mounts) };
}

function refuseFor(v: Verified, what: string, op: "read" | "write", mounts?: ThreadPaths): SandboxPathError | undefined {
  // The checked path may pass a symlinked directory: judge where the write really lands.
  if (op === "write" && v.real !== undefined && mounts !== undefined) {
    if (GIT_INTERNAL.test(label(v.real, mounts)))
      return new SandboxPathError(`${what} leads into git's own directory (.git: its config and hooks run commands on your host); the file tools do not write there.`);
    try {
      refuseRepoCodeWrite(v.real, mounts);
    } catch (err) {
      return err as SandboxPathError;
    }
  }
  if (!v.inside) return new SandboxPathError(`${what} turned out to be outside the thread's directories when opened (a symlink was swapped in?); refusing to ${op} it.`);
  if (!v.st.isFile()) return new SandboxPathError(`${what} is not a regular file (device, FIFO, socket or directory); refusing to ${op} it.`);
  if (v.st.nlink > 1 && !v.linksReadable) {
    return new SandboxPathError(
      `${what} has ${v.st.nlink} hard links, and the shell runs unconfined (bubblewrap is not available), so a command could have linked a file from outside the sandbox here: it cannot be ${op === "read" ? "read" : "written"} with the file tools. Install the \`bubblewrap\` package (hard-linked files such as pnpm's node_modules are readable in the confined shell), or copy the file (cp --no-preserve=links) and use the copy.`,
    );
  }
  return undefined;
}

function openError(err: unknown, what: string, op: "read" | "write"): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP" || code === "EMLINK") return new SandboxPathError(`${what} is a symlink; the file tools do not follow symlinks when opening.`);
  if (code === "ENOENT") return new SandboxPathError(`${what} does not exist.`, "invalid");
  if (code === "EISDIR") return new SandboxPathError(`${what} is a directory, not a file.`, "invalid");
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
    const v = await verifyFd(fh, hostPath, mounts);
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
  refuseGitCodeWrite(dirHostPath, mounts);
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
export async function safeWriteFile(hostPath: string, mounts: ThreadPaths, data: string | Buffer, options: { append?: boolean } = {}): Promise<SafeWriteResult> {
  const what = label(hostPath, mounts);
  refuseGitCodeWrite(hostPath, mounts, what);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  await safeFsTestHooks.beforeOpen?.(hostPath, "write");
  const base = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
  let fh: FileHandle;
  let created = false;
  try {
    fh = await open(hostPath, O_WRONLY | base | O_CREAT | O_EXCL, 0o644);
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw openError(err, what, "write");
    try {
      // Read access too: an append that replaces the file copies the old content first.
      fh = await open(hostPath, (options.append ? O_RDWR | O_APPEND : O_WRONLY) | base);
    } catch (err2) {
      throw openError(err2, what, "write");
    }
  }
  let replaced = false;
  try {
    const v = await verifyFd(fh, hostPath, mounts);
    const refusal = refuseFor(v, what, "write", mounts);
    if (refusal) {
      if (created) {
        // Remove exactly what we created (the fd's real path, wherever it landed); it is still empty.
        const target = v.real ?? hostPath;
        const again = await lstat(target).catch(() => undefined);
        if (again && again.ino === v.st.ino && again.dev === v.st.dev) await unlink(target).catch(() => undefined);
      }
      throw refusal;
    }
    const realPath = v.real ?? hostPath;
    if (created || (options.append && v.st.nlink === 1)) {
      await writeAll(fh, bytes, created ? 0 : null);
      return { bytesWritten: bytes.length, created, realPath };
    }
    const before = options.append ? await readAll(fh, v.st.size) : Buffer.alloc(0);
    await fh.close();
    replaced = true;
    await replaceFile(realPath, mounts, v.st, before.length ? Buffer.concat([before, bytes]) : bytes, what);
    return { bytesWritten: bytes.length, created: false, realPath };
  } finally {
    if (!replaced) await fh.close();
  }
}

async function writeAll(fh: FileHandle, bytes: Buffer, position: number | null): Promise<void> {
  let off = 0;
  while (off < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, position === null ? null : position + off);
    off += bytesWritten;
  }
}

async function readAll(fh: FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await fh.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return buf.subarray(0, off);
}

/**
 * Replace the file at `realPath` by a new inode with `bytes`: a temporary file beside it (O_EXCL, checked to be
 * inside the mounts), written, given the old file's mode, then renamed over the old name. Another name of the old
 * inode (a hard link: pnpm's store, a `cp -al` copy) keeps the old content. The rename cannot carry our bytes out:
 * both names are looked up again, and a swapped parent makes the temporary name vanish, not move (rename across
 * the sandbox's mounts fails).
 */
async function replaceFile(realPath: string, mounts: ThreadPaths, old: Stats, bytes: Buffer, what: string): Promise<void> {
  const tmp = join(dirname(realPath), `.${basename(realPath).slice(0, 200)}.deerflow-${randomBytes(6).toString("hex")}.tmp`);
  let fh: FileHandle;
  try {
    fh = await open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, old.mode & 0o7777);
  } catch (err) {
    throw openError(err, what, "write");
  }
  let ok = false;
  let v: Verified | undefined;
  try {
    v = await verifyFd(fh, tmp, mounts);
    if (!v.inside || !v.st.isFile() || dirname(v.real ?? "") !== dirname(realPath)) {
      throw new SandboxPathError(`${what}: its directory changed while it was being written (a symlink was swapped in?); refusing to write.`);
    }
    // The old file's owner and group too (an edit under sudo, or of a group-shared file, must not take it over);
    // where we may not give it away, the file is ours as any editor would leave it. chmod last: chown clears set-id bits.
    await fh.chown(old.uid, old.gid).catch(() => undefined);
    await fh.chmod(old.mode & 0o7777).catch(() => undefined);
    await writeAll(fh, bytes, 0);
    await fh.close();
    await rename(tmp, realPath);
    ok = true;
  } finally {
    if (!ok) {
      await fh.close().catch(() => undefined);
      // Remove exactly the file we created, where it landed (through a swapped folder: outside the workspace, the
      // sixteenth pass found empty `..bash_aliases.deerflow-….tmp` files in the home; `tmp` may now name elsewhere).
      const target = v?.real ?? tmp;
      const again = await lstat(target).catch(() => undefined);
      if (again && (!v || (again.ino === v.st.ino && again.dev === v.st.dev))) await unlink(target).catch(() => undefined);
    }
  }
}
