// A repository inside the workspace (a gitlink, registered or not, or any other checkout): the user's own `git status`
// runs git inside it with ITS config, an ordinary worktree file the sandbox cannot keep read-only (the sixth pass
// planted core.fsmonitor there). So after every command each one's config is compared with the run's start and a
// code-running key the run added is taken out, with a line; its hooks, links, git-dir files and objects get the same.
import { type FSWatcher, existsSync, watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type CheckoutGit, NOT_A_FILE, UNLISTED, type Unreadable, configCode, configFilesOf, gitDirsOfCheckout, hooksDirsOfCheckout, includedConfigs, isUnreadable } from "./git-dir-code.js";
import { emptyWalk, gitlinks, nestedRepoLimits } from "./gitlink-walk.js";
import { realOrSelf } from "./real-path.js";
import { plainGit } from "./plain-git.js";
import { identityOf } from "./file-identity.js";
import { moveAsideForgedIndexes } from "./forged-index.js";
import { checkGitDirLinks, forgetGitDirLinks, noteGitDirLinks } from "./git-dir-links.js";
import { checkGitDirDefinitions, noteGitDirDefinitions } from "./git-dir-definitions.js";
import { checkObjectStore, noteObjectStore } from "./object-store-check.js";
import { checkHooks, forgetHooks, noteHooks } from "./planted-hooks.js";
import { checkIndexFlags, noteIndexFlags } from "./index-flags.js";
import { editFileWithin, moveAsideWithin, removeFileWithin } from "./repair-within.js";
import { RepairLines, checkSafely, toUser } from "./repair-lines.js";
import { whatGitKeysDo } from "../vocabulary/code-settings.js";
import { checkoutWalkLimits, checkoutsIn, forgetCheckouts } from "./workspace-checkouts.js";
export { nestedRepoLimits } from "./gitlink-walk.js";

/** Per workspace: the indexes listed (and their mtimes then), and the gitlinks found in them. */
const workspaces = new Map<string, { stamp: string; indexes: string[]; links: string[] }>();
/** Per config file: its code keys when the run first saw it (null: the file did not exist). */
const baseline = new Map<string, Set<string> | null>();
/** Per config file git could not list at the start (the user's): its identity then, so a change to it is seen. */
const unlistedAtStart = new Map<string, string>();
/** Per config file: the values of its code keys at the start, so a run that changes one (`core.fsmonitor = true` to a
 *  command: the seventeenth pass's G12) gets the user's value put back, not only a new key taken out. */
const valuesAtStart = new Map<string, Map<string, string[]>>();

/** The git dirs of the checkout at `dir`, when it has a `.git` this can read as git does (git-dir-code.ts). */
function readableGit(dir: string): CheckoutGit | undefined {
  const g = gitDirsOfCheckout(dir);
  return isUnreadable(g) ? undefined : g;
}

/**
 * Every config file git reads for the repository checked out at `dir`: its git dir's config and config.worktree,
 * and the config of the directory its `commondir` names. Resolved afresh at every check: a `.git` file or a
 * commondir rewritten without touching the index counts too.
 */
function configsOf(dir: string): string[] {
  const g = readableGit(dir);
  return g ? configFilesOf(g) : [];
}

/** The checkout that holds `dir` (itself, or the repository a monorepo package or a worktree belongs to). */
function enclosingCheckout(dir: string): { root: string; git: CheckoutGit } | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) {
      const git = readableGit(d);
      return git ? { root: d, git } : undefined;
    }
    if (d === dirname(d)) return undefined;
  }
}

/** The config files of the workspace's gitlinks now (the gitlinks are listed again when an index they came from changed). */
function refresh(workspace: string): string[] {
  let known = workspaces.get(workspace);
  const stamp = (indexes: string[]) => indexes.map(identityOf).join("|"); // ctime: an mtime can be set back (touch -d)
  if (!known || stamp(known.indexes) !== known.stamp) {
    const at = enclosingCheckout(workspace);
    const found = at ? gitlinks(workspace, at.root, at.git) : emptyWalk();
    known = { stamp: stamp(found.indexes), indexes: found.indexes, links: found.links };
    hear(...found.problems, ...moveAsideForgedIndexes(found.forged, rootsOf(workspace))); // said with this command's output, once per listing
    if (found.unvisited.length > 0) pastBudget(workspace, found.unvisited);
    workspaces.set(workspace, known);
  }
  const roots = rootsOf(workspace);
  const configs: string[] = [];
  const all = checkoutsOf(workspace, known.links);
  checkoutsNow.set(workspace, all);
  for (const link of all) {
    const g = gitDirsOfCheckout(link);
    if (isUnreadable(g)) {
      hear(...unreadablePointer(workspace, g));
      continue;
    }
    const all = configsOf(link);
    // What its configs include from where a command can write is its config too; an include elsewhere is the user's.
    configs.push(...[...all, ...includedConfigs(all)].filter((f) => repairable(f, roots)));
    const outside = all.filter((f) => !repairable(f, roots) && existsSync(f));
    if (outside.length > 0) hear(...outsidePointer(workspace, link, outside, roots));
  }
  for (const f of configs) watchConfig(f);
  return configs;
}

const saidPastBudget = new Set<string>();
/**
 * Checkouts whose index the walk's budget left unread (the seventeenth pass's G13): fail closed. One the run made has
 * its `.git` moved aside; one you had is named. Said to the user, not only to the model.
 */
function pastBudget(workspace: string, unvisited: string[]): void {
  const known = pointersAtStart.get(workspace); // unset while the run's start is noted: all there then is the user's
  const yours: string[] = [];
  let moved = 0;
  for (const root of unvisited) {
    const pointer = join(root, ".git");
    const line =
      known && !known.has(pointer)
        ? moveAside(pointer, `deerflow stopped reading nested repositories' indexes after ${nestedRepoLimits.indexes}, so it could not check the ones this one records.`, rootsOf(workspace))
        : undefined;
    if (line) {
      hear(line);
      moved++;
    } else yours.push(root);
  }
  const named =
    yours.length > 0
      ? ` Not checked: the repositories recorded inside ${yours.slice(0, 3).join(", ")}${yours.length > 3 ? ` and ${yours.length - 3} more` : ""}; look at their .git/config before you run git status there.`
      : "";
  const aside =
    moved > 0
      ? ` ${moved === 1 ? "One repository" : `${moved} repositories`} the run made past that point had ${moved === 1 ? "its" : "their"} .git moved to .git.deerflow-removed, so your git status does not enter ${moved === 1 ? "it" : "them"}.`
      : "";
  if (moved === 0 && saidPastBudget.has(workspace)) return;
  saidPastBudget.add(workspace);
  toUser.hear(`deerflow stopped checking nested repositories in ${workspace} after ${nestedRepoLimits.indexes} of them.${aside}${named}`);
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
    const line = `deerflow stopped looking for repositories made inside ${workspace} after ${checkoutWalkLimits.entries} entries; look at the .git/config and .git/hooks of any below before you run git there.`;
    hear(line);
    toUser.hear(line);
  }
  const found = walk.roots.filter((r) => r !== workspace || !ownGitAtStart.get(workspace));
  return [...new Set([...links, ...found])];
}

/**
 * The hooks folders git runs for the checkout at `link` (its git dir's, the common dir's, and a `core.hooksPath` its
 * config names: G11), where deerflow may act.
 */
function hooksOf(link: string, roots: string[]): string[] {
  const g = readableGit(link);
  if (!g) return [];
  return hooksDirsOfCheckout(link, g).filter((d) => repairable(d, roots)); // `hooks` itself may be a link: planted-hooks.ts judges it
}

/** The git dirs of the checkout at `link` (its own, its common dir) where deerflow may act. */
function gitDirsAt(link: string, roots: string[]): string[] {
  const g = readableGit(link);
  return g ? [g.gitDir, ...(g.common ? [g.common] : [])].filter((d) => repairable(join(d, "HEAD"), roots)) : [];
}
const ownGitDirAt = (link: string, roots: string[]) => gitDirsAt(link, roots).filter((d) => d === readableGit(link)?.gitDir);

/** Per noted workspace: the `.git` files and commondirs of its gitlinks when the run began (the user's own). */
const pointersAtStart = new Map<string, Set<string>>();

/** What points the checkout at `link` elsewhere: its `.git` file, or its git dir's commondir. */
function pointerOf(link: string, roots: string[]): string | undefined {
  const g = readableGit(link);
  if (!g) return undefined;
  if (!repairable(join(g.gitDir, "config"), roots)) return join(link, ".git");
  return existsSync(join(g.gitDir, "commondir")) ? join(g.gitDir, "commondir") : undefined;
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
    const moved = moveAside(pointer, `it pointed git at ${outside[0]}, outside the workspace, and your git status would have run what that config names.`, roots);
    if (moved) return [moved];
  }
  return outside.map(
    (f) =>
      `deerflow left ${f} alone: a repository in the workspace points git at it (its .git file or commondir), outside the workspace. Remove that pointer before you run git status in the workspace.`,
  );
}

/** Moves `path` to `<path>.deerflow-removed` (repair-within.ts); the line saying so and why, or undefined when it could not. */
function moveAside(path: string, why: string, roots: readonly string[] = allRoots()): string | undefined {
  try {
    return `deerflow moved ${path} to ${moveAsideWithin(path, roots)}: ${why}`;
  } catch {
    return undefined;
  }
}

const saidUnreadable = new Set<string>();
/**
 * A `.git` file or commondir deerflow cannot read as git does (past git's 1 MiB, not a regular file, not a gitdir
 * line): the checkout behind it is unverified, never "not a repository" (the sixteenth pass's G7). One the run made
 * is moved aside, so git status no longer enters it; the user's own is named once.
 */
function unreadablePointer(workspace: string, u: Unreadable): string[] {
  const why = `${u.why}, so deerflow cannot check what git would run there`;
  const known = pointersAtStart.get(workspace); // unset while the run's start is noted: all there then is the user's
  if (known && !known.has(u.pointer)) {
    const moved = moveAside(u.pointer, `${why}; your git status would have entered it.`, rootsOf(workspace));
    if (moved) return [moved];
  }
  if (saidUnreadable.has(u.pointer)) return [];
  saidUnreadable.add(u.pointer);
  return [`deerflow could not read ${u.pointer} as git does (${why}): look at it before you run git status in the workspace.`];
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

/** The lines for the user (stderr, the TUI) since the last call. */
export function takeGuardNotices(): string[] {
  return toUser.take();
}
const watchers = new Map<string, FSWatcher>();

const scheduled = new Set<string>();
/** Checks `f` once, shortly after the events about it stop coming in a burst. */
function later(f: string): void {
  if (scheduled.has(f)) return;
  scheduled.add(f);
  setTimeout(() => {
    scheduled.delete(f);
    if (baseline.has(f)) hear(...checkSafely(f, () => check(f)));
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
  for (const f of refresh(workspace)) {
    if (baseline.has(f)) continue;
    const code = configCode(f);
    baseline.set(f, code && new Set(code.keys()));
    if (code?.has(UNLISTED)) unlistedAtStart.set(f, identityOf(f));
    else if (code && code.size > 0) valuesAtStart.set(f, code);
  }
  const pointers = new Set<string>();
  const roots = rootsOf(workspace);
  for (const link of checkoutsNow.get(workspace) ?? []) {
    for (const p of [join(link, ".git"), join(readableGit(link)?.gitDir ?? link, "commondir")]) if (existsSync(p)) pointers.add(p);
    const g = gitDirsOfCheckout(link);
    if (isUnreadable(g)) pointers.add(g.pointer); // an unreadable commondir of the user's: named, never moved
    for (const h of hooksOf(link, roots)) noteHooks(h);
    for (const d of gitDirsAt(link, roots)) {
      noteGitDirLinks(d);
      noteGitDirDefinitions(d);
      noteObjectStore(d);
    }
    for (const d of ownGitDirAt(link, roots)) noteIndexFlags(d);
  }
  pointersAtStart.set(workspace, pointers);
}

const rootsOf = (workspace: string) => [workspace, enclosingCheckout(workspace)?.git.gitDir].flatMap((r) => (r ? [realOrSelf(r)] : []));
/** Where a config found by any noted workspace may be repaired (a watcher's check knows the file, not its workspace). */
const allRoots = () => [...new Set([...workspaces.keys()].flatMap(rootsOf))];

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
    for (const link of checkoutsNow.get(workspace) ?? []) {
      for (const h of hooksOf(link, roots)) lines.push(...checkHooks(h, roots));
      // links git writes through, what defines its remotes and history, objects that lie
      // (a common dir first seen now is checked whole: a command may have moved your objects behind it, A38c-2)
      const own = readableGit(link)?.gitDir;
      for (const d of gitDirsAt(link, roots)) lines.push(...checkGitDirLinks(d, roots), ...checkGitDirDefinitions(d, roots), ...checkObjectStore(d, roots, d !== own));
      for (const d of ownGitDirAt(link, roots)) lines.push(...checkIndexFlags(d, link, roots)); // its index's bits
    }
  }
  return [...heard.take(), ...lines].join("\n");
}

/** Takes out of `f` what the run added that runs code; the lines saying so. */
function check(f: string): string[] {
  const before = baseline.get(f) ?? new Set<string>();
  const code = configCode(f) ?? new Map<string, string[]>();
  const now = new Set(code.keys());
  // A config git cannot list is code (the sixteenth pass's G8 padded one past the listing's buffer): one the run
  // made, or the user's unlistable one changed since, is moved aside whole.
  if (now.has(UNLISTED) && (!before.has(UNLISTED) || unlistedAtStart.get(f) !== identityOf(f))) {
    const moved = moveAside(f, "git could not list its keys, so deerflow could not take out what would run code on your host from a repository your git status enters.");
    return [moved ?? `deerflow could not list the keys of ${f} or move it aside: a repository your git status enters reads it. Check it before you run git in the workspace.`];
  }
  const added = [...now].filter((k) => !before.has(k));
  if (added.length === 0) return putBack(f, code);
  if (added.includes(NOT_A_FILE)) {
    // A link or special file the run put where a nested repository's config belongs: git follows it.
    try {
      removeFileWithin(f, allRoots());
      return [`deerflow removed ${f}: a link or special file where a repository your git status enters keeps its config.`];
    } catch {
      return [`deerflow found ${f} is not a regular file: a repository your git status enters reads it. Remove it before you run git in the workspace.`];
    }
  }
  try {
    editFileWithin(f, allRoots(), (file) => {
      for (const k of added) plainGit(["config", "--file", file, "--unset-all", k]);
    });
    return [`deerflow removed ${added.join(", ")} from ${f}: a repository your git status enters would ${whatGitKeysDo(added)}.`];
  } catch {
    return [cannotEdit(f, added)];
  }
}

/**
 * The edit could not be made (a link or a special file swapped in at the name), yet git still reads `f`: the whole
 * file is moved aside instead, as an unlistable one is.
 */
function cannotEdit(f: string, keys: string[]): string {
  const moved = moveAside(f, `${keys.join(", ")} could not be taken out of it, and a repository your git status enters would ${whatGitKeysDo(keys)}.`);
  return moved ?? `deerflow could not take ${keys.join(", ")} out of ${f} nor move it aside: check ${dirname(f)} before you run git in the workspace.`;
}

/** The user's code keys of `f` whose values the run changed get the values they had at the start; a line each. */
function putBack(f: string, now: Map<string, string[]>): string[] {
  const start = valuesAtStart.get(f);
  if (!start) return [];
  const same = (a: string[] = [], b: string[] = []) => a.length === b.length && a.every((v, i) => v === b[i]);
  const changed = [...start.keys()].filter((k) => now.has(k) && !same(start.get(k), now.get(k)));
  if (changed.length === 0) return [];
  try {
    editFileWithin(f, allRoots(), (file) => {
      for (const k of changed) {
        plainGit(["config", "--file", file, "--unset-all", k]);
        for (const v of start.get(k)!) plainGit(["config", "--file", file, "--add", k, v]);
      }
    });
    return [`deerflow put back ${changed.join(", ")} in ${f} as it was before the run: a repository your git status enters would ${whatGitKeysDo(changed, "the new value")}.`];
  } catch {
    return [cannotEdit(f, changed)];
  }
}

/** The end of a chat or run: forget. */
export function forgetNestedRepos(): void {
  for (const w of watchers.values()) w.close();
  watchers.clear();
  heard.take();
  for (const m of [workspaces, baseline, pointersAtStart, unlistedAtStart, valuesAtStart]) m.clear();
  for (const m of [ownGitAtStart, saidTruncated, checkoutsNow, saidUnreadable, saidPastBudget]) m.clear();
  forgetHooks();
  forgetGitDirLinks();
  forgetCheckouts();
}
