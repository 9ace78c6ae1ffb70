// Sandbox paths: the model names files by virtual paths (/mnt/user-data/{workspace,uploads,outputs}/...) or by
// paths relative to the workspace; this module maps them to the thread's host directories and refuses anything
// that would leave them. WHY realpath on every call: bash (or anything else) may create or swap symlinks at any
// time, so no earlier answer can be trusted. Nothing is decoded: "%2e%2e" or a unicode look-alike of ".." is a
// literal file name. Tools show the model virtual paths only (toVirtualPath), never host paths.
import { lstat, realpath, stat } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, normalize, posix, relative, resolve, sep } from "node:path";
import type { ThreadPaths } from "./provider.js";

import { VIRTUAL_ROOT } from "../vocabulary/workspace-path.js";
import { realOrSelf } from "./real-path.js";
import { secretLocations } from "./secret-locations.js";
import { cacheHomeOf } from "../config/cache-home.js";
import { replacedFolder } from "./pinned-folders.js";
export { VIRTUAL_ROOT };
/** Installed skills, read-only: /mnt/skills/<name> (see skills/catalog.ts). */
export const SKILLS_VIRTUAL_ROOT = "/mnt/skills";
export const MOUNT_NAMES = ["workspace", "uploads", "outputs"] as const;
export type MountName = (typeof MOUNT_NAMES)[number];

const ALLOWED = "Allowed: paths relative to the workspace, or under /mnt/user-data/workspace, /mnt/user-data/uploads or /mnt/user-data/outputs.";

/** A path the sandbox refuses; the message tells the model what is allowed instead. */
export class SandboxPathError extends Error {
  /** `refused`: the sandbox will not let a tool there (a denial the run reports); `invalid`: no such file, wrong kind. */
  readonly kind: "refused" | "invalid";
  constructor(message: string, kind: "refused" | "invalid" = "refused") {
    super(message);
    this.name = "SandboxPathError";
    this.kind = kind;
  }
}

export interface ResolveOptions {
  /** Refuse paths that do not exist (default false). */
  mustExist?: boolean;
  /** What an existing path must be (default "any": a regular file or a directory). */
  kind?: "file" | "dir" | "any";
}

export interface ResolvedPath {
  /** The real host path (symlinks resolved for the existing part). */
  hostPath: string;
  /** The same place as the model should see it. */
  virtualPath: string;
  mount: MountName;
  exists: boolean;
  isDirectory: boolean;
}

function mountPath(mounts: ThreadPaths, name: MountName): string {
  const p = mounts[`${name}_path`];
  if (typeof p !== "string" || p === "" || !isAbsolute(p)) {
    throw new SandboxPathError(`The thread has no ${name} directory configured; file tools are unavailable.`);
  }
  return normalize(p);
}

/** `child` is `parent` or inside it (both normalized absolute paths). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(base);
}

type MountList = Array<{ name: MountName; lexical: string; real: string }>;

const RESOLVED = Symbol("deerflow.resolvedMounts");

/**
 * Thread paths whose mounts were resolved once, for one tool call: every check in that call reuses the same real
 * paths instead of resolving them again (a grep over 100 files used to realpath the three mounts 300 times).
 * Made fresh per call by the file tools (getMounts): a later call resolves again, so a swap is still seen.
 */
export interface ResolvedMounts extends ThreadPaths {
  readonly [RESOLVED]: { list: MountList; hidden: (realPath: string) => string | undefined; hardLinksReadable: boolean };
}

function listOf(mounts: ThreadPaths): MountList | undefined {
  return (mounts as Partial<ResolvedMounts>)[RESOLVED]?.list;
}

/**
 * Resolve the mounts once (see ResolvedMounts). `hardLinksReadable`: whether files with several hard links may be
 * read and replaced (the file tools decide it from the shell's confinement; see safe-fs.ts).
 */
export function resolveMounts(mounts: ThreadPaths, options: { hardLinksReadable?: boolean } = {}): ResolvedMounts {
  const paths: ThreadPaths = { workspace_path: mounts.workspace_path, uploads_path: mounts.uploads_path, outputs_path: mounts.outputs_path };
  const list = realMountsSync(paths);
  return Object.assign(paths, { [RESOLVED]: { list, hidden: hiddenCheck(paths, list), hardLinksReadable: options.hardLinksReadable ?? false } });
}

/** Whether these mounts allow reading hard-linked files (false unless resolved with it). */
export function hardLinksReadable(mounts: ThreadPaths): boolean {
  return (mounts as Partial<ResolvedMounts>)[RESOLVED]?.hardLinksReadable ?? false;
}

/** The real paths of the mounts (a mount that does not exist yet counts by its lexical path). */
export async function realMounts(mounts: ThreadPaths): Promise<MountList> {
  const cached = listOf(mounts);
  if (cached) return cached;
  notReplaced(mounts);
  return Promise.all(
    MOUNT_NAMES.map(async (name) => {
      const lexical = mountPath(mounts, name);
      const real = await realpath(lexical).catch(() => lexical);
      return { name, lexical, real };
    }),
  );
}

/** Throws when the workspace was replaced since the run judged it (pinned-folders.ts): its path now leads elsewhere. */
function notReplaced(mounts: ThreadPaths): void {
  const why = mounts.workspace_path ? replacedFolder(mounts.workspace_path, "The workspace") : undefined;
  if (why) throw new Error(`${why}.`);
}

function realMountsSync(mounts: ThreadPaths): MountList {
  const cached = listOf(mounts);
  if (cached) return cached;
  notReplaced(mounts);
  return MOUNT_NAMES.map((name) => {
    const lexical = mountPath(mounts, name);
    let real = lexical;
    try {
      real = realpathSync(lexical);
    } catch {
      /* not created yet */
    }
    return { name, lexical, real };
  });
}

/** The mount (longest match) that contains a host path, or undefined. */
function containing(hostPath: string, list: MountList, key: "lexical" | "real" | "both") {
  let best: { name: MountName; base: string } | undefined;
  for (const m of list) {
    const bases = key === "both" ? [m.real, m.lexical] : [m[key]];
    for (const base of bases) {
      if (isInside(hostPath, base) && (!best || base.length > best.base.length)) best = { name: m.name, base };
    }
  }
  return best;
}

/** isInsideMounts without waiting: for ResolvedMounts (resolved once), or resolving synchronously. */
export function isInsideMountsSync(realHostPath: string, mounts: ThreadPaths): boolean {
  return containing(realHostPath, realMountsSync(mounts), "real") !== undefined;
}

/** `true` when the real host path is inside one of the thread's mounts. */
export async function isInsideMounts(realHostPath: string, mounts: ThreadPaths): Promise<boolean> {
  return containing(realHostPath, await realMounts(mounts), "real") !== undefined;
}

/** The virtual path (/mnt/user-data/...) of a host path inside the mounts; throws for anything outside. */
export function toVirtualPath(hostPath: string, mounts: ThreadPaths): string {
  const p = normalize(hostPath);
  const hit = containing(p, realMountsSync(mounts), "both");
  if (!hit) throw new SandboxPathError("That path is outside the thread's directories. " + ALLOWED);
  const rel = relative(hit.base, p).split(sep).join("/");
  return rel ? `${VIRTUAL_ROOT}/${hit.name}/${rel}` : `${VIRTUAL_ROOT}/${hit.name}`;
}

// ---------------------------------------------------------------------------------------------
// the data directory and .deerflowrc: never reachable through a tool, even from a workspace that contains them

const RC_FILE = ".deerflowrc";

/** The data directory a thread's mounts live in (`<data>/threads/<id>/uploads`), or undefined. */
function dataDirOf(mounts: ThreadPaths): string | undefined {
  const up = mounts.uploads_path;
  if (typeof up !== "string" || !isAbsolute(up)) return undefined;
  const threads = dirname(dirname(normalize(up)));
  return basename(threads) === "threads" ? realOrSelf(dirname(threads)) : undefined;
}

/**
 * Why a real host path is off-limits to tools, or undefined when it is fine: .deerflowrc files (they hold keys)
 * and the data directory (the database, other threads), except this thread's own directories inside it.
 */
export function hiddenReason(realPath: string, mounts: ThreadPaths): string | undefined {
  return hiddenCheck(mounts)(realPath);
}

/**
 * The secret folders and files the sandbox hides under the home (secret-paths.ts), and deerflow's code cache, by
 * real path: bash cannot see them from a workspace that contains them (`-w ~/.config`), so the file tools, which
 * run on the host, must not show them either (the twenty-third pass read ~/.config/gh through read_file and grep, A23-11,
 * and rewrote the code cache's signing key from a workspace at ~/.cache, A23-10).
 */
function homeSecrets(): { dirs: string[]; files: string[] } {
  const { dirs, files } = secretLocations(process.env.HOME || homedir());
  return { dirs: [...dirs, realOrSelf(cacheHomeOf())], files };
}

function hiddenCheck(mounts: ThreadPaths, list?: MountList): (realPath: string) => string | undefined {
  const cached = (mounts as Partial<ResolvedMounts>)[RESOLVED]?.hidden;
  if (cached) return cached;
  const data = dataDirOf(mounts);
  const own = data ? (list ?? realMountsSync(mounts)).filter((m) => isInside(m.real, data)) : [];
  const secrets = homeSecrets();
  return (realPath) => {
    if (basename(realPath) === RC_FILE) return "is a deerflow configuration file, which tools never read or write";
    if (secrets.dirs.some((d) => isInside(realPath, d)) || secrets.files.includes(realPath)) return "is where credentials are kept (the sandbox hides it), which tools never read or write";
    if (!data || !isInside(realPath, data)) return undefined;
    if (own.some((m) => isInside(realPath, m.real))) return undefined;
    return "is inside deerflow's data directory (the database and other threads), which tools never touch";
  };
}

/** A predicate for directory walks (ls, glob, grep): true for what they must skip. */
export function hiddenFromTools(mounts: ThreadPaths): (realPath: string) => boolean {
  const check = hiddenCheck(mounts);
  return (p) => check(p) !== undefined;
}

function show(input: string): string {
  const s = JSON.stringify(input);
  return s.length > 160 ? s.slice(0, 157) + '…"' : s;
}

/**
 * True when `word` is one of the thread's /mnt/user-data folders or a path inside one: `/mnt/user-data/workspace.env`
 * is not (bash joins `"/mnt/user-data/workspace".env` into it, and the host path that replaces the quoted part made it
 * the workspace's sibling: the twenty-eighth pass's A28b-1).
 */
export function isMountPath(word: string): boolean {
  // Normalized first: `/mnt/user-data/outputs/../../../etc/x` is /etc/x. The root itself names no host folder.
  const w = posix.normalize(word).replace(/(.)\/$/, "$1");
  return w === VIRTUAL_ROOT || MOUNT_NAMES.some((name) => w === `${VIRTUAL_ROOT}/${name}` || w.startsWith(`${VIRTUAL_ROOT}/${name}/`));
}

/** The lexical host path of a model-supplied path (no filesystem access). */
function lexicalHostPath(input: string, mounts: ThreadPaths): string {
  if (input === VIRTUAL_ROOT || input.startsWith(VIRTUAL_ROOT + "/")) {
    const v = posix.normalize(input);
    for (const name of MOUNT_NAMES) {
      const root = `${VIRTUAL_ROOT}/${name}`;
      if (v === root || v === root + "/" || v.startsWith(root + "/")) {
        const rest = v.slice(root.length).replace(/^\/+/, "");
        return rest ? join(mountPath(mounts, name), ...rest.split("/")) : mountPath(mounts, name);
      }
    }
    throw new SandboxPathError(`${show(input)} is not inside a thread directory. ${ALLOWED}`);
  }
  if (isAbsolute(input)) return normalize(input);
  return resolve(mountPath(mounts, "workspace"), input);
}

/**
 * Map a model-supplied path to a real host path inside the thread's mounts, or throw SandboxPathError.
 * The deepest existing ancestor is realpath'd (every symlink on the way resolved), the missing rest appended,
 * and the result must lie inside the realpath of a mount. Existing paths must be regular files or directories.
 */
export async function resolveSandboxPath(input: string, mounts: ThreadPaths, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const { mustExist = false, kind = "any" } = options;
  if (typeof input !== "string" || input.length === 0) throw new SandboxPathError(`An empty path was given. ${ALLOWED}`, "invalid");
  if (input.includes("\0")) throw new SandboxPathError(`The path contains a NUL byte, which is never allowed. ${ALLOWED}`);
  if (input.length > 4096) throw new SandboxPathError("The path is longer than 4096 characters.", "invalid");

  const lexical = lexicalHostPath(input, mounts);
  const list = await realMounts(mounts);
  if (lexical === "/proc" || lexical.startsWith("/proc/")) throw new SandboxPathError(`${show(input)} is in /proc, which is never allowed. ${ALLOWED}`);
  if (!containing(lexical, list, "both")) {
    throw new SandboxPathError(`${show(input)} is outside the thread's directories (no "..", host paths or other threads). ${ALLOWED}`);
  }

  // Split into the deepest existing ancestor and the missing rest.
  let existing = lexical;
  const missing: string[] = [];
  let leaf: Awaited<ReturnType<typeof lstat>> | undefined;
  for (;;) {
    try {
      leaf = await lstat(existing);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw new SandboxPathError(`${show(input)} cannot be accessed (${code}).`);
      const parent = resolve(existing, "..");
      if (parent === existing) throw new SandboxPathError(`${show(input)} cannot be resolved. ${ALLOWED}`);
      missing.unshift(existing.slice(parent.length).replace(/^[/\\]+/, ""));
      existing = parent;
    }
  }
  // A name to be created with a newline or an escape in it misleads every listing that shows it (A24-11).
  if (missing.some((n) => /[\u0000-\u001f\u007f-\u009f]/.test(n)))
    throw new SandboxPathError(`${show(input)} holds a control character (a newline, a tab, an escape); deerflow never creates a file or folder named with one.`, "invalid");
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch {
    // lstat saw it but realpath cannot follow it: a dangling symlink (or a loop).
    throw new SandboxPathError(`${show(input)} is (or goes through) a symlink whose target does not exist; refusing to follow it. ${ALLOWED}`);
  }
  const real = missing.length ? join(realExisting, ...missing) : realExisting;
  if (real === "/proc" || real.startsWith("/proc/")) throw new SandboxPathError(`${show(input)} leads into /proc, which is never allowed. ${ALLOWED}`);
  const hit = containing(real, list, "real");
  if (!hit) {
    throw new SandboxPathError(`${show(input)} resolves (through a symlink) to a place outside the thread's directories; refusing. ${ALLOWED}`);
  }
  const hidden = hiddenReason(real, mounts);
  if (hidden) throw new SandboxPathError(`${show(input)} ${hidden}. ${ALLOWED}`);
  const virtualPath = toVirtualPath(real, mounts);
  const exists = missing.length === 0;
  if (!exists) {
    if (leaf && !leaf.isDirectory() && !leaf.isSymbolicLink()) {
      throw new SandboxPathError(`${show(input)}: a parent of it is not a directory.`, "invalid");
    }
    if (mustExist) throw new SandboxPathError(`${virtualPath} does not exist.`, "invalid");
    return { hostPath: real, virtualPath, mount: hit.name, exists: false, isDirectory: false };
  }
  const st = await stat(real).catch(() => undefined);
  if (!st) throw new SandboxPathError(`${virtualPath} cannot be accessed.`, "invalid");
  if (!st.isFile() && !st.isDirectory()) {
    throw new SandboxPathError(`${virtualPath} is a device, FIFO or socket; only regular files and directories are allowed.`);
  }
  if (kind === "file" && !st.isFile()) throw new SandboxPathError(`${virtualPath} is a directory, not a file.`, "invalid");
  if (kind === "dir" && !st.isDirectory()) throw new SandboxPathError(`${virtualPath} is a file, not a directory.`, "invalid");
  return { hostPath: real, virtualPath, mount: hit.name, exists: true, isDirectory: st.isDirectory() };
}
