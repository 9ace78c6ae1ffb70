// `.git/commondir` tells git to take the repository's config and hooks from another directory. The sandbox binds
// `.git/config` and `.git/hooks` read-only (git-code-paths.ts), but it cannot do the same for a file that does not
// exist yet (a bind needs its mount point on the host), so a command could create `commondir` pointing at a
// directory it filled with a config whose core.fsmonitor the user's own `git status` then runs on the host (the
// fifth adversarial pass, through `echo ../gd > .git/commondir`; the audit asks for that spelling, but not for a
// script that does the same). So after every command, and at the end of the run for background jobs, the file is
// put back as the run found it, whatever wrote it, and the command's output says so. The configs of nested
// repositories the index records get the same care (nested-repo-guard.ts).
import { type FSWatcher, existsSync, lstatSync, readFileSync, watch } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gitDirOf } from "./git-code-paths.js";
import { checkGitDirDefinitions, forgetGitDirDefinitions, noteGitDirDefinitions } from "./git-dir-definitions.js";
import { checkGitDirLinks, noteGitDirLinks } from "./git-dir-links.js";
import { checkOperationStates } from "./git-operation-state.js";
import { checkIndexFlags, forgetIndexFlags, noteIndexFlags } from "./index-flags.js";
import { checkModuleStores, checkObjectStore, forgetObjectStore, noteObjectStore } from "./object-store-check.js";
import { forgetNestedRepos, noteNestedRepos, restoreNestedRepos } from "./nested-repo-guard.js";
import { gitCodePathsInside } from "./repo-code-paths.js";
import { RepairLines, checkSafely } from "./repair-lines.js";
import { createFileWithin, moveAsideWithin, removeFileWithin } from "./repair-within.js";
import { realOrSelf } from "./real-path.js";
import { listForGuard, takeListingNotices } from "./guard-listing.js";

/** Per watched file (a repository's `commondir`, each linked worktree's): its content as the run found it (null: none). */
const found = new Map<string, string | null>();
/** The workspaces already noted this run. */
const noted = new Set<string>();
/**
 * Config files the repository includes from its worktree (`include.path`, `includeIf`) that did not exist when the run
 * started: the sandbox binds only existing files read-only, so a command could create one with core.fsmonitor in it
 * (the tenth pass). One made during the run is moved aside (never deleted: the user may have made it meanwhile).
 */
const absentIncludes = new Set<string>();

/** A file's text; null when there is none; a marker for anything else (a FIFO would block the read forever). */
function read(path: string): string | null {
  try {
    const st = lstatSync(path);
    // Identified by inode, size and ctime (no command can set a ctime back): a big file swapped for another is seen.
    if (!st.isFile() || st.size > 64 * 1024) return `\0not a small regular file (${st.mode}:${st.ino}:${st.size}:${st.ctimeMs})`;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The folders the repairs below may act in (repair-within.ts): the noted workspaces, their git dirs, readWrite folders. */
const roots = new Set<string>();

/** Writes or removes `path` (a command that took the rights on its folder: repair-within.ts gives them back). */
function putBack(path: string, before: string | null): void {
  const within = [...roots];
  // A folder where the file belongs is moved aside: a recursive delete walks a tree a job can still change.
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) moveAsideWithin(path, within);
  else removeFileWithin(path, within);
  // A file it could not keep (too big, not regular) is not written back as its marker: gone is the safe side.
  if (before !== null && !before.startsWith("\0")) createFileWithin(path, within, before);
}

/** The names of a repository's linked worktrees (`git worktree add`): `<gitDir>/worktrees/<name>`. */
function worktreesOf(gitDir: string): string[] {
  try {
    return listForGuard(join(gitDir, "worktrees"));
  } catch {
    return [];
  }
}

/**
 * Each git dir of the repository that has an index of its own, with the work tree git reads it against: the main
 * worktree's, and every linked worktree's, also one outside the workspace (`git worktree add ../feature`: its index is
 * inside this `.git`, and the thirty-seventh pass's A37c-3 forged it). A worktree whose `gitdir` file is gone or points
 * nowhere is listed against the main work tree (its bits and entries are still read).
 */
function indexDirsOf(gitDir: string): { dir: string; top: string }[] {
  const linked = worktreesOf(gitDir).map((w) => {
    const dir = join(gitDir, "worktrees", w);
    const pointer = read(join(dir, "gitdir"));
    const top = pointer && !pointer.startsWith("\0") ? dirname(resolve(dir, pointer.trim())) : undefined;
    return { dir, top: top && existsSync(top) ? top : dirname(gitDir) };
  });
  return [{ dir: gitDir, top: dirname(gitDir) }, ...linked];
}

/**
 * The files that say where git finds a repository's config: `.git/commondir`, and for each linked worktree
 * (`git worktree add`) its `commondir` and `config.worktree` (the sixth pass pointed a worktree at a planted config).
 */
function watchedFiles(gitDir: string): string[] {
  const worktrees = worktreesOf(gitDir);
  // The main worktree's config.worktree too: absent at the start (and the extension off), one a command creates is
  // removed, as git would read it once the extension is turned on (the tenth pass).
  const own = [join(gitDir, "commondir"), join(gitDir, "config.worktree")];
  return [...own, ...worktrees.flatMap((w) => [join(gitDir, "worktrees", w, "commondir"), join(gitDir, "worktrees", w, "config.worktree")])];
}

/**
 * Remembers the workspace repository's files the first time a run touches the workspace. The thread's other folders
 * (`folders`: outputs, uploads) get the nested-repository guard: a repository a command makes there is one the user
 * may run git in.
 */
export function noteGitRedirect(workspace: string, readWrite: string[] = [], folders: string[] = []): void {
  if (noted.has(workspace)) return; // once per run: runShell calls this before every command
  noted.add(workspace);
  for (const f of [workspace, ...folders]) noteNestedRepos(f);
  // A workspace that is a linked worktree or a submodule checkout: its `.git` FILE names the git dir (the seventh pass
  // rewrote it to point at a planted one). The sandbox binds it read-only; unconfined, it is put back like commondir.
  const dotGit = join(workspace, ".git");
  const gitDir = gitDirOf(workspace);
  for (const r of [workspace, gitDir, ...readWrite]) if (r) roots.add(realOrSelf(r));
  // Also for a linked worktree or a folder of a repository, whose includes are code too (repo-code-paths.ts).
  // And what it runs from a `sandbox.readWrite` folder: the bind there covers only files that exist (G4).
  for (const folder of [workspace, ...readWrite]) for (const { path, kind } of gitCodePathsInside(workspace, folder)) if (kind !== "hooks" && !existsSync(path)) absentIncludes.add(path);
  if (!gitDir) {
    if (read(dotGit) !== null && !found.has(dotGit)) found.set(dotGit, read(dotGit));
    return;
  }
  for (const f of watchedFiles(gitDir)) if (!found.has(f)) found.set(f, read(f));
  ownGitDirs.add(gitDir);
  noteGitDirLinks(gitDir);
  noteGitDirDefinitions(gitDir);
  noteObjectStore(gitDir);
  for (const { dir } of indexDirsOf(gitDir)) noteIndexFlags(dir);
  watchGitDir(gitDir);
}

/** The noted workspaces' repositories' git dirs, when they had one at the start (the binds keep config and hooks). */
const ownGitDirs = new Set<string>();

/** An included config the run created is moved to `<name>.deerflow-removed`; the line saying so. */
function moveAsideInclude(path: string): string[] {
  try {
    lstatSync(path);
  } catch {
    return [];
  }
  try {
    const aside = moveAsideWithin(path, [...roots]);
    return [
      `deerflow moved ${path} to ${aside}: your git reads or runs it (a config file, or a program a config key names), it did not exist when the run started, and git would run what it says on your host. Look at it before you put it back.`,
    ];
  } catch (err) {
    return [`deerflow could not move ${path} aside (${(err as Error).message}): your git reads or runs it; check it before you run git.`];
  }
}

/** Lines from repairs made between commands, said with the next command's output. */
const heard = new RepairLines();
const hear = (...lines: string[]) => heard.hear(...lines);
const watchers: FSWatcher[] = [];

/**
 * A background job can rewrite commondir while the run goes on, and the user's IDE or prompt runs git meanwhile
 * (the seventh pass): the git dir is watched (inotify) for the whole run, and a change is undone at once.
 */
function watchGitDir(gitDir: string): void {
  // A link a job plants where git deletes or writes through it (`worktrees/x -> ~/Documents`, `objects/<xx>`) is
  // removed within moments too, not only after the next command: the user's own git commit meanwhile (an IDE's, or
  // in another terminal) would act through it (the thirty-third pass's A33a-3).
  let linksPending = false;
  const linksSoon = () => {
    if (linksPending) return;
    linksPending = true;
    setTimeout(() => {
      linksPending = false;
      if (ownGitDirs.has(gitDir)) hear(...checkSafely(gitDir, () => checkGitDirLinks(gitDir, [...roots])));
    }, 50).unref();
  };
  for (const sub of ["worktrees", "objects"]) watchQuietly(join(gitDir, sub), linksSoon);
  // One watch of the git dir for both: a new `worktrees`/`objects` folder, and commondir put back at once (a job
  // rewriting it in a loop gets one more look after the burst, never a repair per event in a row).
  let pending = false;
  watchQuietly(gitDir, (name) => {
    if (name === "worktrees" || name === "objects") watchQuietly(join(gitDir, name), linksSoon);
    linksSoon();
    const path = join(gitDir, name);
    if (name !== "commondir" || !found.has(path)) return;
    hear(...checkSafely(path, () => repair(path, found.get(path) ?? null)));
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      hear(...checkSafely(path, () => repair(path, found.get(path) ?? null)));
    }, 50).unref();
  });
}

/** Watches `dir` (once) for the run, calling `onChange` with the entry's name; nothing when it cannot be watched. */
function watchQuietly(dir: string, onChange: (name: string) => void): void {
  if (watching.has(dir)) return;
  try {
    const w = watch(dir, (_event, name) => onChange(String(name ?? "")));
    w.on("error", () => w.close());
    w.unref();
    watchers.push(w);
    watching.add(dir);
  } catch {
    // not there (yet), or no inotify: the check after each command still runs
  }
}
const watching = new Set<string>();

/** Puts `path` back as it was before the run when it changed; the line saying so (none when unchanged). */
function repair(path: string, before: string | null): string[] {
  if (read(path) === before) return [];
  try {
    putBack(path, before);
    return [`deerflow undid a change to ${path}: it would make git read another directory's config and hooks.`];
  } catch (err) {
    return [`deerflow could not undo a change to ${path} (${(err as Error).message}): check it before you run git there.`];
  }
}

/**
 * Puts every noted file back as it was; its lines, one per file it had to repair. `ending`: the run's last
 * check (endGitRedirectWatch), when nothing of the sandbox runs any more.
 */
export function restoreGitRedirects(ending = false): string[] {
  const lines: string[] = heard.take();
  // Each check on its own: one that cannot finish is said, and the others still run (repair-lines.ts).
  for (const [path, before] of found) lines.push(...checkSafely(path, () => repair(path, before)));
  for (const path of absentIncludes) lines.push(...checkSafely(path, () => moveAsideInclude(path)));
  for (const g of ownGitDirs) {
    lines.push(...checkSafely(g, () => checkGitDirLinks(g, [...roots])));
    lines.push(...checkSafely(g, () => checkGitDirDefinitions(g, [...roots])));
    lines.push(...checkSafely(`${g}/objects`, () => [...checkObjectStore(g, [...roots]), ...checkModuleStores(g, [...roots])]));
    for (const { dir, top } of indexDirsOf(g)) lines.push(...checkSafely(`${dir}/index`, () => checkIndexFlags(dir, top, [...roots], ending)));
  }
  lines.push(...checkSafely("the nested repositories", () => [restoreNestedRepos()].filter((l) => l !== "")));
  if (ending) lines.push(...checkSafely("the operations in progress", () => checkOperationStates([...roots])));
  lines.push(...takeListingNotices());
  return lines;
}

/**
 * A check while background jobs run (background-guard-sweep.ts): what it repairs is said with the next command's
 * output, and returned (empty: nothing).
 */
export function sweepGitGuards(): string[] {
  if (noted.size === 0) return [];
  const lines = restoreGitRedirects();
  hear(...lines);
  return lines;
}

/** A line for the model with the next command's output. */
export const sayWithNextCommand = (line: string) => hear(line);

/** The end of a chat or run: a last check, then forget. */
export function endGitRedirectWatch(): string {
  const said = restoreGitRedirects(true).join("\n");
  for (const w of watchers.splice(0)) w.close();
  watching.clear();
  found.clear();
  forgetGitDirDefinitions();
  forgetIndexFlags();
  forgetObjectStore();
  ownGitDirs.clear();
  noted.clear();
  absentIncludes.clear();
  roots.clear();
  forgetNestedRepos();
  return said;
}
