// One home for "does this git dir run code?", shared by the nested-repository guard (nested-repo-guard.ts, which
// takes out what a run planted) and plan mode's git gate (repo-config-code.ts, which refuses git where anything would
// run). Both must see the git dir git itself would use, and both fail closed: a pointer file (`.git` file, commondir)
// or a config they cannot read whole counts as carrying code. The sixteenth pass hid a checkout behind a `.git` file
// padded past the old 64 KiB read (git reads up to 1 MiB), a trailing space the old parse trimmed (git keeps it), and
// a config whose listing overflowed the buffer (read as "no code keys").
import { type Stats, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandTilde, userAndSystemConfigFiles } from "./host-git-config.js";
import { CONFIG_LISTING_BYTES, plainGit } from "./plain-git.js";
import { isMovedAside } from "./repair-within.js";
import { isGitCodeKey } from "./shell-git.js";
import { isGitViewKey } from "../vocabulary/code-settings.js";
import { listForGuard } from "./guard-listing.js";

/** git's own limit for a `.git` file (setup.c read_gitfile_gently); a commondir is read the same way here. */
const POINTER_MAX = 1 << 20;

/** A pointer file that could not be read as git reads it: said, and treated as pointing at code. */
export interface Unreadable {
  pointer: string;
  why: string;
}

/** The git dirs of a checkout: where its config and hooks are (`common`: what its commondir names, if any). */
export interface CheckoutGit {
  gitDir: string;
  common?: string;
}

export const isUnreadable = (x: CheckoutGit | Unreadable | undefined): x is Unreadable => x !== undefined && "why" in x;

/** A pointer file's text as git takes it: the whole file (regular, at most 1 MiB, no NUL), trailing CR/LF off. */
function readPointer(path: string): { text: string } | Unreadable {
  let size: number;
  try {
    const st = statSync(path); // git follows a link
    if (!st.isFile()) return { pointer: path, why: "it is not a regular file" };
    size = st.size;
  } catch (err) {
    return { pointer: path, why: `it cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (size > POINTER_MAX) return { pointer: path, why: `it is larger than ${POINTER_MAX} bytes` };
  let text: string;
  try {
    text = readFileSync(path).toString("utf8");
  } catch (err) {
    return { pointer: path, why: `it cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})` };
  }
  // git trims line ends off the whole file, then reads the path up to a NUL: `gitdir: ../vc\n\0x` sends it to `vc\n`
  // (the seventeenth pass). A NUL anywhere is unreadable rather than one more reading to get right.
  if (text.includes("\0")) return { pointer: path, why: "it holds a NUL byte" };
  return { text: text.replace(/[\r\n]+$/, "") };
}

const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * The git dir of the checkout at `dir` as git finds it: its `.git` folder, or what a `.git` file (or a link to one)
 * names — `gitdir: ` then the rest verbatim (spaces kept), relative to the file's folder —, with its commondir.
 * A folder with no `.git` that is a git dir itself (bare) is its own. Undefined: neither (git status does not look
 * inside). Unreadable: a pointer git may follow that this cannot read.
 */
export function gitDirsOfCheckout(dir: string): CheckoutGit | Unreadable | undefined {
  const dotGit = join(dir, ".git");
  if (!exists(dotGit)) return isGitDir(dir) ? withCommon(realpathOrSelf(dir)) : undefined;
  let gitDir = dotGit;
  let isDir = false;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch {
    return undefined; // a dangling link: git finds nothing there either
  }
  if (!isDir) {
    const read = readPointer(dotGit);
    if ("why" in read) return read;
    if (!read.text.startsWith("gitdir: ") || read.text.length < 9) return { pointer: dotGit, why: "it is not a gitdir line as git writes one" };
    const named = read.text.slice(8);
    gitDir = gitPath(dir, named);
  }
  return withCommon(gitDir);
}

function withCommon(gitDir: string): CheckoutGit | Unreadable {
  const common = commonDirOf(gitDir);
  if (typeof common === "object") return common;
  return common ? { gitDir, common } : { gitDir };
}

const realpathOrSelf = (p: string) => {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
};

/**
 * A folder that is itself a git dir (a bare repository, or a worktree's git dir), as git's is_git_directory judges one,
 * loosely: a HEAD, and objects and refs or a commondir. A `git push` to it runs its hooks on the host (the thirty-first
 * pass's A31b-2 made one in the workspace and pointed a nested repository's remote at it).
 */
export function isGitDir(dir: string): boolean {
  return namesAGitDir((n) => lstatSync(join(dir, n), { throwIfNoEntry: false }) !== undefined);
}

/** isGitDir over a folder's entry names (the checkout walk has its listing): `objects` and `refs` of any kind, as
 *  git asks only access(X_OK), which an executable file or a link passes (A33a-2, A34a-1). */
export const namesAGitDir = (has: (name: string) => boolean): boolean => has("HEAD") && ((has("objects") && has("refs")) || has("commondir"));

/** What `gitDir/commondir` names (relative to the git dir), as git reads it; undefined when there is none. */
function commonDirOf(gitDir: string): string | Unreadable | undefined {
  const file = join(gitDir, "commondir");
  if (!exists(file)) return undefined;
  const read = readPointer(file);
  if ("why" in read) return read;
  if (read.text === "") return { pointer: file, why: "it is empty" };
  return gitPath(gitDir, read.text);
}

/**
 * A path a pointer names, relative to `base`, resolved as git does (its real path, `..` after a link taken from the
 * link's target, not dropped by text); as named when it does not exist (git finds nothing there either).
 */
function gitPath(base: string, named: string): string {
  const joined = isAbsolute(named) ? named : `${base}/${named}`;
  try {
    return realpathSync.native(joined);
  } catch {
    return joined;
  }
}

/** The config files git reads for a checkout's git dirs (the guard checks the git dir's own config too). */
export const configFilesOf = (g: CheckoutGit): string[] => [join(g.gitDir, "config"), join(g.gitDir, "config.worktree"), ...(g.common ? [join(g.common, "config")] : [])];

/** The hooks folders git runs from for a checkout's git dirs. */
export const hooksDirsOf = (g: CheckoutGit): string[] => [join(g.gitDir, "hooks"), ...(g.common ? [join(g.common, "hooks")] : [])];

/**
 * Every hooks folder git may run from for the checkout at `checkout`: its git dirs' `hooks`, and each folder a
 * `core.hooksPath` in its configs names — relative to the checkout, `~/` as git reads it; husky's `.husky/_` with the
 * `.husky` its wrappers run. A submodule's `core.hooksPath = .githooks` is a folder of its worktree that a command
 * can write: the seventeenth pass planted `post-index-change` there, and the user's next `git status` ran it (G11).
 * Every value any of its configs holds counts, whichever git would take — the user's global and system ones too: a
 * relative `core.hooksPath = .githooks` set globally names each repository's own `.githooks`, one a repository the run
 * made or a nested one it writes into (the twenty-eighth pass's A28-14 planted a hook there, and the user's commit ran it).
 */
export function hooksDirsOfCheckout(checkout: string, g: CheckoutGit): string[] {
  const out = hooksDirsOf(g);
  const read = [...configFilesOf(g), ...userAndSystemConfigFiles()];
  for (const f of [...read, ...includedConfigs(read)]) {
    for (const v of configCode(f)?.get("core.hookspath") ?? []) {
      const p = v ? expandTilde(v) : undefined;
      if (p === undefined) continue;
      const dir = resolve(checkout, p);
      out.push(dir, ...(basename(dir) === "_" ? [dirname(dir)] : []));
    }
  }
  return [...new Set(out)];
}

/** Marks in a config's key set: it is not a regular file (git may hang or go elsewhere), or git could not list it. */
export const NOT_A_FILE = "(not a regular file)";
export const UNLISTED = "(a config deerflow could not list)";

/**
 * The code keys (shell-git.ts) of one config file with their values, read by git with `--file` (nothing it names
 * runs, no includes; `-z`: a value may hold a newline, a key with no `=` has none); null when it does not exist. A
 * listing that fails (too long for the buffer, too slow, a config git refuses) is never "none": it is UNLISTED,
 * which both guards treat as code.
 */
export function configCode(file: string): Map<string, string[]> | null {
  const listed = listConfig(file);
  return listed && new Map(listed.code);
}

/** Whether the config file `file` sets `extensions.objectFormat` to sha256 (read from the same listing). */
export function configSetsSha256(file: string): boolean {
  return listConfig(file)?.sha256 ?? false;
}

interface Listed {
  code: Map<string, string[]>;
  sha256: boolean;
}

/**
 * A `core.worktree` as git itself writes one in a submodule's git dir (`.git/modules/lib`: `../../../lib`): a checkout
 * whose `.git` file names this git dir back. It runs nothing and sends git nowhere else; an ordinary clone with
 * submodules wrote it, and the guards took it for planted code (the forty-first pass's A41c-4).
 */
function isOwnWorkTree(configFile: string, value: string): boolean {
  const gitDir = dirname(configFile);
  const tree = resolve(gitDir, value);
  if (!lstatSync(join(tree, ".git"), { throwIfNoEntry: false })?.isFile()) return false;
  const g = gitDirsOfCheckout(tree);
  try {
    return g !== undefined && !isUnreadable(g) && realpathSync(g.gitDir) === realpathSync(gitDir);
  } catch {
    return false;
  }
}

function listConfig(file: string): Listed | null {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch {
    return null;
  }
  if (!st.isFile()) return { code: new Map([[NOT_A_FILE, []]]), sha256: false };
  // Listed again only when the file changed: the guards read each config several times a command (keys, includes,
  // hooks folders, the object format). Its identity holds the ctime, which no command can set back; one changed in
  // the last second is kept only until the current check yields (a second write in the same clock tick would keep
  // its identity), so one check lists it once and the next lists it again.
  const id = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const hit = listedConfigs.get(file) ?? racyConfigs.get(file);
  if (hit?.id === id) return hit.listed;
  const listed: Listed = { code: new Map(), sha256: false };
  try {
    for (const entry of plainGit(["config", "--file", file, "-z", "--list"], { maxBytes: CONFIG_LISTING_BYTES }).split("\0")) {
      const nl = entry.indexOf("\n");
      const key = nl < 0 ? entry : entry.slice(0, nl);
      const value = nl < 0 ? "" : entry.slice(nl + 1);
      if (key === "extensions.objectformat") listed.sha256 = value.trim().toLowerCase() === "sha256";
      if (key && (isGitCodeKey(key) || isGitViewKey(key)) && !(key === "core.worktree" && isOwnWorkTree(file, value))) listed.code.set(key, [...(listed.code.get(key) ?? []), value]);
    }
  } catch {
    listed.code = new Map([[UNLISTED, []]]);
    listed.sha256 = false;
  }
  if (st.ctimeMs < Date.now() - RACY_MS) {
    listedConfigs.set(file, { id, listed });
    racyConfigs.delete(file);
  } else {
    listedConfigs.delete(file);
    if (racyConfigs.size === 0) setImmediate(() => racyConfigs.clear());
    racyConfigs.set(file, { id, listed });
  }
  return listed;
}
const listedConfigs = new Map<string, { id: string; listed: Listed }>();
/** Listings of files changed in the last second: for the check running now only (cleared when it yields). */
const racyConfigs = new Map<string, { id: string; listed: Listed }>();
const RACY_MS = 1_000;

const INCLUDE_KEY = /^(?:include\.path|includeif\..+\.path)$/;
/** git's own bound on nested includes (config.c MAX_INCLUDE_DEPTH). */
const INCLUDE_DEPTH = 10;

/**
 * The config files `files` include (`include.path`, `includeIf.*.path` whatever the condition: a superset), and theirs
 * in turn as deep as git goes, resolved as git does: `~/` expanded, a relative path against the including file's
 * folder. A nested repository's include of a worktree file is a config a command can write (G11's family).
 */
export function includedConfigs(files: readonly string[]): string[] {
  const out: string[] = [];
  let level = [...files];
  for (let depth = 0; depth < INCLUDE_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const f of level) {
      for (const [key, values] of configCode(f) ?? []) {
        if (!INCLUDE_KEY.test(key)) continue;
        for (const v of values) {
          const p = v ? expandTilde(v) : undefined;
          const abs = p === undefined ? undefined : resolve(dirname(f), p);
          if (!abs || files.includes(abs) || out.includes(abs)) continue;
          next.push(abs);
          out.push(abs);
        }
      }
    }
    level = next;
  }
  return out;
}

/** The code keys of one config file (configCode without the values). */
function configCodeKeys(file: string): Set<string> | null {
  const code = configCode(file);
  return code && new Set(code.keys());
}

/** What git could run from a hooks folder: anything but the samples `git init` writes and what deerflow moved aside. */
export const isHookName = (name: string) => !name.endsWith(".sample") && !isMovedAside(name);

/** The hooks in `hooksDir` git could run (none when the folder is absent); null when it cannot be listed. */
export function hooksIn(hooksDir: string): string[] | null {
  try {
    return listForGuard(hooksDir).filter(isHookName);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? [] : null;
  }
}

/**
 * Why the checkout's git dirs would run code on a git status there (undefined: nothing would): a pointer that cannot
 * be read, a config with a code key or one that cannot be listed, a hook that is not a sample.
 */
export function gitDirRunsCode(g: CheckoutGit | Unreadable): string | undefined {
  if (isUnreadable(g)) return `${g.pointer} cannot be read as git reads it (${g.why})`;
  for (const f of configFilesOf(g)) {
    const keys = configCodeKeys(f);
    if (keys?.has(UNLISTED)) return `${f} could not be listed`;
    if (keys && keys.size > 0) return `${f} sets ${[...keys].join(", ")}`;
  }
  for (const h of hooksDirsOf(g)) {
    const hooks = hooksIn(h);
    if (hooks === null) return `${h} cannot be listed`;
    if (hooks.length > 0) return `${join(h, hooks[0]!)} is a hook`;
  }
  return undefined;
}
