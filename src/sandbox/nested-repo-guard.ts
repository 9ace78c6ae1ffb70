// A repository inside the workspace that the workspace's index records as a gitlink (a submodule, registered or
// not): the user's own `git status` in the workspace runs git inside it, with ITS config, on the host. That config is
// an ordinary file of the worktree (`sub/.git/config`), so the sandbox cannot keep it read-only the way it keeps the
// workspace's own `.git/config`: the sixth adversarial pass wrote core.fsmonitor there through a spelling the audit
// could not read, `git add sub`, and the user's next `git status` ran it. So after every command (git-redirect-guard.ts
// calls this) each gitlink's config is compared with the run's start, and any key that runs code (shell-git.ts) the run
// added is taken out again, with a line saying so. Keys that were there when the run started are the user's.
import { type FSWatcher, existsSync, lstatSync, readFileSync, renameSync, rmSync, statSync, watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { realOrSelf } from "./real-path.js";
import { plainGit } from "./plain-git.js";
import { checkHooks, forgetHooks, noteHooks } from "./planted-hooks.js";
import { RepairLines } from "./repair-lines.js";
import { isGitCodeKey } from "./shell-git.js";
import { checkoutWalkLimits, checkoutsIn, forgetCheckouts } from "./workspace-checkouts.js";

/** Per workspace: the indexes listed (and their mtimes then), and the gitlinks found in them. */
const workspaces = new Map<string, { stamp: string; indexes: string[]; links: string[] }>();
/** Per config file: its code keys when the run first saw it (null: the file did not exist). */
const baseline = new Map<string, Set<string> | null>();

function mtimeOf(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

const isFile = (p: string) => {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
};

const isFileFollowing = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** A small regular file's text (never a FIFO or device: a read of those can block forever), or undefined. */
function readSmall(p: string): string | undefined {
  try {
    const st = statSync(p);
    return st.isFile() && st.size < 64 * 1024 ? readFileSync(p, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** The git dir of the checkout at `dir`: its `.git` folder, or the folder a `.git` file (or link to one) names. */
function gitDirOfCheckout(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  // git follows a `.git` that is a symlink (to a gitfile or a git dir): so does this (the eighth pass hid one so).
  if (isFileFollowing(dotGit)) {
    const m = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit) ?? "");
    return m ? resolve(dir, m[1]!.trim()) : undefined;
  }
  return existsSync(dotGit) ? dotGit : undefined; // none: not checked out, git status does not look inside
}

/**
 * Every config file git reads for the repository checked out at `dir`: its git dir's config and config.worktree,
 * and the config of the directory its `commondir` names. Resolved afresh at every check: a `.git` file or a
 * commondir rewritten without touching the index counts too.
 */
function configsOf(dir: string): string[] {
  const gitDir = gitDirOfCheckout(dir);
  if (!gitDir) return [];
  const out = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  if (common) out.push(join(resolve(gitDir, common), "config"));
  return out;
}

/** The checkout that holds `dir` (itself, or the repository a monorepo package or a worktree belongs to). */
function enclosingCheckout(dir: string): { root: string; gitDir: string } | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) {
      const gitDir = gitDirOfCheckout(d);
      return gitDir ? { root: d, gitDir } : undefined;
    }
    if (d === dirname(d)) return undefined;
  }
}

/**
 * Gitlinks nest (a submodule's own submodules) and git's status follows them without a depth bound (the tenth pass hid
 * a key ten deep, past this walk's old bound of 8). So the walk has no depth bound: a cycle guard (each git dir by
 * its real path) and a total budget of indexes; past the budget it says so rather than stop in silence.
 */
export const nestedRepoLimits = { indexes: 256 }; // a test lowers it

interface Walk {
  links: string[];
  indexes: string[];
  /** Lines for the user: what could not be looked into (the budget ran out, an index could not be read). */
  problems: string[];
  seen: Set<string>;
}

/** The object format a git dir's repository uses, as git reads it (a quoted value, a config of any size). */
function formatOf(gitDir: string): "sha1" | "sha256" {
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  for (const cfg of [join(gitDir, "config"), ...(common ? [join(resolve(gitDir, common), "config")] : [])]) {
    if (!isFile(cfg)) continue;
    try {
      // `--file` reads that one file (no includes, no repository config), so nothing of it runs.
      if (plainGit(["config", "--file", cfg, "--get", "extensions.objectformat"]).trim().toLowerCase() === "sha256") return "sha256";
    } catch {
      // unset (exit 1) or unreadable: sha1, and the listing below tries the other format when it fails
    }
  }
  return "sha1";
}

/** `git ls-files --stage` of an index, in the repository's format, else in the other one; undefined when neither reads it. */
function listIndex(root: string, index: string, gitDir: string): string | undefined {
  const first = formatOf(gitDir);
  for (const format of [first, first === "sha1" ? "sha256" : "sha1"] as const) {
    try {
      return plainGit(["ls-files", "--stage", "-z"], { cwd: root, index, format });
    } catch {
      // the other format next
    }
  }
  return existsSync(index) ? undefined : "";
}

/**
 * The gitlinks (mode 160000) inside `workspace` of the index of the checkout at `root`, and of their own indexes, with
 * the indexes read (path and mtime, to know when to list again). Read without any repository's config.
 */
function gitlinks(workspace: string, root: string, gitDir: string, walk: Walk = { links: [], indexes: [], problems: [], seen: new Set() }): Walk {
  const real = realOrSelf(resolve(gitDir));
  if (walk.seen.has(real)) return walk;
  walk.seen.add(real);
  if (walk.indexes.length >= nestedRepoLimits.indexes) {
    walk.problems.push(
      `deerflow stopped looking into nested repositories at ${root}: more than ${nestedRepoLimits.indexes} of them. Code keys in the ones below it were not checked; look at their .git/config before you run git status in the workspace.`,
    );
    return walk;
  }
  const index = join(gitDir, "index");
  walk.indexes.push(index);
  const listing = listIndex(root, index, gitDir);
  if (listing === undefined) {
    // Never read as "no gitlinks" (the ninth and tenth passes blinded this guard so): say so.
    walk.problems.push(`deerflow could not read the index of ${root}, so it could not check the repositories it records; look at their .git/config before you run git status in the workspace.`);
    return walk;
  }
  for (const entry of listing.split("\0")) {
    if (!entry.startsWith("160000 ")) continue;
    const path = join(root, entry.slice(entry.indexOf("\t") + 1));
    if (path !== workspace && !path.startsWith(`${workspace}/`)) continue;
    walk.links.push(path);
    const sub = gitDirOfCheckout(path);
    if (sub) gitlinks(workspace, path, sub, walk);
  }
  return walk;
}

function codeKeys(file: string): Set<string> | null {
  if (!existsSync(file)) return null;
  if (!isFile(file)) return new Set(["(not a regular file)"]); // a FIFO or a link: git may hang or go elsewhere
  try {
    return new Set(
      plainGit(["config", "--file", file, "--name-only", "--list"])
        .split("\n")
        .filter((k) => k && isGitCodeKey(k)),
    );
  } catch {
    return new Set(); // unreadable as config: git will refuse it too
  }
}

/** The config files of the workspace's gitlinks now (the gitlinks are listed again when an index they came from changed). */
function refresh(workspace: string): string[] {
  let known = workspaces.get(workspace);
  const stamp = (indexes: string[]) => indexes.map(mtimeOf).join(":");
  if (!known || stamp(known.indexes) !== known.stamp) {
    const at = enclosingCheckout(workspace);
    const found = at ? gitlinks(workspace, at.root, at.gitDir) : { links: [], indexes: [], problems: [] };
    known = { stamp: stamp(found.indexes), indexes: found.indexes, links: found.links };
    hear(...found.problems); // said with this command's output (or the next), once per listing
    workspaces.set(workspace, known);
  }
  const roots = rootsOf(workspace);
  const configs: string[] = [];
  const all = checkoutsOf(workspace, known.links);
  checkoutsNow.set(workspace, all);
  for (const link of all) {
    const all = configsOf(link);
    configs.push(...all.filter((f) => repairable(f, roots)));
    const outside = all.filter((f) => !repairable(f, roots) && existsSync(f));
    if (outside.length > 0) hear(...outsidePointer(workspace, link, outside, roots));
  }
  for (const f of configs) watchConfig(f);
  return configs;
}

/** Per noted workspace: whether it had its own `.git` when the run began (then the sandbox binds that read-only). */
const ownGitAtStart = new Map<string, boolean>();
const saidTruncated = new Set<string>();
/** Per noted workspace: the checkouts found by the last refresh. */
const checkoutsNow = new Map<string, string[]>();

/**
 * The gitlinks, and every other checkout inside the workspace (a `.git` folder, file or link): an unregistered nested
 * repository, or one the run made, is entered by the user's git run in its folder (the fourteenth pass's G5), and a
 * `.git` the run made in the workspace itself by their git status there (G6). The workspace's own `.git` from before
 * the run is left to the read-only binds and git-redirect-guard.ts.
 */
function checkoutsOf(workspace: string, links: string[]): string[] {
  const walk = checkoutsIn(workspace);
  if (walk.truncated && !saidTruncated.has(workspace)) {
    saidTruncated.add(workspace);
    hear(
      `deerflow stopped looking for repositories made inside ${workspace} after ${checkoutWalkLimits.entries} entries; look at the .git/config and .git/hooks of any below before you run git there.`,
    );
  }
  const found = walk.roots.filter((r) => r !== workspace || !ownGitAtStart.get(workspace));
  return [...new Set([...links, ...found])];
}

/** The hooks folders git runs for the checkout at `link` (its git dir's, and the common dir's), where deerflow may act. */
function hooksOf(link: string, roots: string[]): string[] {
  const gitDir = gitDirOfCheckout(link);
  if (!gitDir) return [];
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  const dirs = [join(gitDir, "hooks"), ...(common ? [join(resolve(gitDir, common), "hooks")] : [])];
  return dirs.filter((d) => repairable(d, roots)); // `hooks` itself may be a link: planted-hooks.ts judges it
}

/** Per noted workspace: the `.git` files and commondirs of its gitlinks when the run began (the user's own). */
const pointersAtStart = new Map<string, Set<string>>();

/** What points the checkout at `link` elsewhere: its `.git` file, or its git dir's commondir. */
function pointerOf(link: string, roots: string[]): string | undefined {
  const gitDir = gitDirOfCheckout(link);
  if (!gitDir) return undefined;
  if (!repairable(join(gitDir, "config"), roots)) return join(link, ".git");
  return existsSync(join(gitDir, "commondir")) ? join(gitDir, "commondir") : undefined;
}

/**
 * A gitlink pointed at a config deerflow may not edit (outside the workspace and its repository's git dir). A pointer
 * the run made is moved aside, so git status no longer enters it: the config it named may be one the sandbox can
 * write elsewhere (the thread's outputs: the eleventh pass) or the user's own. One the user had is named.
 */
function outsidePointer(workspace: string, link: string, outside: string[], roots: string[]): string[] {
  const pointer = pointerOf(link, roots);
  const known = pointersAtStart.get(workspace);
  if (pointer && known && !known.has(pointer)) {
    try {
      rmSync(`${pointer}.deerflow-removed`, { force: true, recursive: true });
      renameSync(pointer, `${pointer}.deerflow-removed`);
      return [`deerflow moved ${pointer} to ${pointer}.deerflow-removed: it pointed git at ${outside[0]}, outside the workspace, and your git status would have run what that config names.`];
    } catch {
      // said as left alone below
    }
  }
  return outside.map(
    (f) =>
      `deerflow left ${f} alone: a repository in the workspace points git at it (its .git file or commondir), outside the workspace. Remove that pointer before you run git status in the workspace.`,
  );
}

/**
 * A config a command could have written: in the workspace or its repository's git dir. A gitfile or commondir can
 * point anywhere (`~/.config/git`, another repository's `.git`); what lies there is the user's own file, which
 * deerflow names and never edits (the tenth pass emptied ~/.config/git/config through one).
 */
function repairable(config: string, roots: string[]): boolean {
  const real = join(realOrSelf(dirname(config)), basename(config));
  return roots.some((r) => real === r || real.startsWith(`${r}/`));
}

/** Repairs made between commands (a background job rewrote a config), said with the next command's output. */
const heard = new RepairLines();
const hear = (...lines: string[]) => heard.hear(...lines);
const watchers = new Map<string, FSWatcher>();

const scheduled = new Set<string>();
/** Checks `f` once, shortly after the events about it stop coming in a burst. */
function later(f: string): void {
  if (scheduled.has(f)) return;
  scheduled.add(f);
  setTimeout(() => {
    scheduled.delete(f);
    if (baseline.has(f)) hear(...check(f));
  }, WATCH_DEBOUNCE_MS).unref();
}
const WATCH_DEBOUNCE_MS = 50;

/** A background job can re-plant a key while the run goes on (the eighth pass): each config's folder is watched. */
function watchConfig(file: string): void {
  const dir = dirname(file);
  if (watchers.has(dir) || !existsSync(dir)) return;
  try {
    // Debounced: the check runs git and rewrites the file, which fires events of its own; a check per event starved
    // the event loop under a job that re-plants in a loop (the ninth pass froze deerflow that way).
    const w = watch(dir, (_event, name) => {
      const f = join(dir, String(name ?? ""));
      if (baseline.has(f)) later(f);
    });
    w.on("error", () => w.close());
    w.unref();
    watchers.set(dir, w);
  } catch {
    // no inotify: the check after each command still runs
  }
}

/** The first command of a run in `workspace`: what its gitlinks' configs hold now is the user's. */
export function noteNestedRepos(workspace: string): void {
  if (workspaces.has(workspace)) return;
  // Also a workspace that is no repository yet: a `.git` the run makes there is the run's (G6).
  ownGitAtStart.set(workspace, existsSync(join(workspace, ".git")));
  for (const f of refresh(workspace)) if (!baseline.has(f)) baseline.set(f, codeKeys(f));
  const pointers = new Set<string>();
  const roots = rootsOf(workspace);
  for (const link of checkoutsNow.get(workspace) ?? []) {
    for (const p of [join(link, ".git"), join(gitDirOfCheckout(link) ?? link, "commondir")]) if (existsSync(p)) pointers.add(p);
    for (const h of hooksOf(link, roots)) noteHooks(h);
  }
  pointersAtStart.set(workspace, pointers);
}

const rootsOf = (workspace: string) => [workspace, enclosingCheckout(workspace)?.gitDir].flatMap((r) => (r ? [realOrSelf(r)] : []));

/** After a command: code keys the run added to a gitlink's config are removed; a line for each (empty when none). */
export function restoreNestedRepos(): string {
  const lines: string[] = [];
  for (const workspace of workspaces.keys()) {
    for (const f of refresh(workspace)) {
      if (!baseline.has(f)) baseline.set(f, null); // a gitlink the run added: everything in its config is the run's
      lines.push(...check(f));
    }
    // A hooks folder not noted at the start belongs to a repository the run made: every hook in it is the run's.
    const roots = rootsOf(workspace);
    for (const link of checkoutsNow.get(workspace) ?? []) for (const h of hooksOf(link, roots)) lines.push(...checkHooks(h));
  }
  return [...heard.take(), ...lines].join("\n");
}

/** Takes out of `f` what the run added that runs code; the lines saying so. */
function check(f: string): string[] {
  const before = baseline.get(f) ?? new Set<string>();
  const added = [...(codeKeys(f) ?? [])].filter((k) => !before.has(k));
  if (added.length === 0) return [];
  if (added.includes("(not a regular file)")) {
    // A link or special file the run put where a nested repository's config belongs: git follows it.
    try {
      rmSync(f, { force: true });
      return [`deerflow removed ${f}: a link or special file where a repository your git status enters keeps its config.`];
    } catch {
      return [`deerflow found ${f} is not a regular file: a repository your git status enters reads it. Remove it before you run git in the workspace.`];
    }
  }
  try {
    for (const k of added) plainGit(["config", "--file", f, "--unset-all", k]);
    return [`deerflow removed ${added.join(", ")} from ${f}: a repository your git status enters would run ${added.length === 1 ? "it" : "them"} on your host.`];
  } catch {
    return [`deerflow could not remove ${added.join(", ")} from ${f}: check ${dirname(f)} before you run git in the workspace.`];
  }
}

/** The end of a chat or run: forget. */
export function forgetNestedRepos(): void {
  for (const w of watchers.values()) w.close();
  watchers.clear();
  heard.take();
  workspaces.clear();
  baseline.clear();
  pointersAtStart.clear();
  for (const m of [ownGitAtStart, saidTruncated, checkoutsNow]) m.clear();
  forgetHooks();
  forgetCheckouts();
}
