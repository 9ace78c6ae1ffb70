// The workspace's own files that the repository's configuration turns into code the user's git runs: the hooks folder
// named by `core.hooksPath` (husky's `.husky/_`, and `.husky` whose scripts its wrappers run) and config files pulled
// in by `include.path` / `includeIf.*.path`. What those hooks run in turn (lint-staged's config in package.json, a
// .pre-commit-config.yaml) is project content like any other: docs/security.md says to review the diff before committing.
// They are ordinary files of the worktree, so neither the read-only `.git/config` nor `.git/hooks` covers them: the
// sixth adversarial pass wrote `.husky/_/pre-commit` in auto-edit, and the user's `git commit` ran it on the host.
// The sandbox binds them read-only (git-code-paths.ts); the file tools refuse to write them (safe-fs.ts).
import { execFileSync } from "node:child_process";
import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { hostEnv } from "./env-scrub.js";
import { expandTilde, globalConfigFiles, programPathOf, readGitConfig, worktreeProgramsOf } from "./host-git-config.js";
import { isInside } from "./paths.js";
import { isGitCodeKey } from "./shell-git.js";
import { listForGuard } from "./guard-listing.js";

const KEYS = /^(?:core\.hookspath|include\.path|includeif\..+\.path)$/;

/** The real path of `p`, or of its nearest existing parent with the rest appended (a file not created yet). */
function real(p: string): string {
  const rest: string[] = [];
  for (let cur = resolve(p); ; cur = dirname(cur)) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch {
      if (cur === dirname(cur)) return resolve(p);
      rest.push(basename(cur));
    }
  }
}

/** A file's modification time, -1 when it is not there: a stamp that says a list read from it may be stale. */
export function mtimeOf(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

/** The repository holding `workspace` (its own `.git`, a linked worktree's `.git` file, or a `.git` above it). */
interface Repo {
  /** The worktree's top folder: a relative hooks path is relative to it. */
  top: string;
  /** Its git dirs (the common one and the worktree's). */
  gitDirs: string[];
  /** Its config files (the shared one and the worktree's), for the cache's stamp. */
  files: string[];
}

const git = (args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000, env: hostEnv() });

/** Where git finds the repository of `workspace` (`rev-parse` reads, runs nothing), or undefined outside one. */
function repoOf(workspace: string): Repo | undefined {
  try {
    const [top, common, dir] = git(["-C", workspace, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "--git-dir"]).trim().split("\n");
    return top && common && dir ? { top, gitDirs: [common, dir], files: [join(common, "config"), join(dir, "config.worktree")] } : undefined;
  } catch {
    return undefined;
  }
}

export interface RepoCodePath {
  path: string;
  /** A hooks folder (`core.hooksPath`), a config file git reads (included, or the global one), or a program a key names. */
  kind: "hooks" | "config" | "program";
}

/** Every config file read (included ones too) is part of the cache's stamp: editing one changes what is code. */
const cache = new Map<string, { files: string[]; stamp: string; paths: RepoCodePath[] }>();
const stampOf = (files: string[]) => files.map(mtimeOf).join(":");

/**
 * What the user's git, run in `workspace`, treats as code, by real path and wherever it lies (existing or not yet
 * created): every config file it reads (system, global — also where none exists yet —, the repository's, included ones:
 * a global `~/.gitconfig` linked into a dotfiles repository is one, the fourteenth pass's G4), the hooks folder, and
 * a program a code key names by path (`core.editor = ~/dotfiles/bin/ed`). A hooks path is relative to the worktree's
 * top (only inside a repository); an include path to the config file's folder (the eleventh pass's C5); `~/` is the
 * home. Cached until a config file read, or the workspace's `.git`, changes.
 */
export function gitCodePathsOf(workspace: string): RepoCodePath[] {
  const hit = cache.get(workspace);
  if (hit && hit.stamp === stampOf(hit.files)) return hit.paths;
  const repo = repoOf(workspace);
  const entries = readGitConfig(workspace);
  const files = [...new Set([join(workspace, ".git"), ...(repo?.files ?? []), ...globalConfigFiles(), ...entries.map((e) => e.file)])];
  const paths = new Map<string, RepoCodePath>();
  // The repository's own config files are its git dir's business (git-code-paths.ts binds them, the guards repair them).
  const gitDirs = (repo?.gitDirs ?? []).map(real);
  for (const f of [...globalConfigFiles(), ...entries.map((e) => e.file)].map(real)) if (!gitDirs.some((d) => isInside(f, d))) paths.set(f, { path: f, kind: "config" });
  for (const { key, value, file } of entries) {
    const k = key.toLowerCase();
    if (KEYS.test(k)) {
      const v = expandTilde(value);
      const hooks = k === "core.hookspath";
      if (v === undefined || (!isAbsolute(v) && hooks && !repo)) continue;
      const p = real(isAbsolute(v) ? v : resolve(hooks ? repo!.top : dirname(file), v));
      paths.set(p, { path: p, kind: hooks ? "hooks" : "config" });
      // husky 9 sets `.husky/_`, whose wrappers run the user's `.husky/<hook>`: the folder above is hooks too.
      if (hooks && basename(p) === "_") paths.set(dirname(p), { path: dirname(p), kind: "hooks" });
    } else if (isGitCodeKey(k)) {
      const prog = programPathOf(k, value);
      if (prog && !paths.has(real(prog))) paths.set(real(prog), { path: real(prog), kind: "program" });
      for (const p of repo ? worktreeProgramsOf(k, value, repo.top) : []) if (!paths.has(real(p))) paths.set(real(p), { path: real(p), kind: "program" });
    }
  }
  // A hook that is a link runs the file it points at: one in the worktree (`pre-commit -> ../../tools/hook.sh`) is code
  // the read-only hooks folder does not cover (the twenty-first pass's A21-2 rewrote the target, and `git commit` ran it).
  const hookDirs = [...(repo ? [join(repo.gitDirs[0]!, "hooks")] : []), ...[...paths.values()].filter((c) => c.kind === "hooks").map((c) => c.path)];
  for (const target of hookDirs.flatMap(linkedHooks)) if (!paths.has(target) && !gitDirs.some((d) => isInside(target, d))) paths.set(target, { path: target, kind: "program" });
  files.push(...hookDirs); // a link added or removed there changes the folder's mtime
  const out = [...paths.values()].sort((a, b) => a.path.localeCompare(b.path));
  cache.set(workspace, { files, stamp: stampOf(files), paths: out });
  return out;
}

/** The real paths the links among a hooks folder's entries lead to (a hook git may run; samples and folders aside). */
function linkedHooks(dir: string): string[] {
  let names: string[];
  try {
    names = listForGuard(dir);
  } catch {
    return [];
  }
  const links = names.filter((n) => !n.endsWith(".sample") && lstatSync(join(dir, n), { throwIfNoEntry: false })?.isSymbolicLink());
  // By what the link says, so a target not made yet counts too (git runs it once a command creates it).
  return links.flatMap((n) => {
    try {
      return [real(resolve(dir, readlinkSync(join(dir, n))))];
    } catch {
      return [];
    }
  });
}

/** The code paths of `gitCodePathsOf` that lie inside `folder` (never the folder itself): what a bind there must keep read-only. */
export function gitCodePathsInside(workspace: string, folder: string): RepoCodePath[] {
  const root = real(folder);
  return gitCodePathsOf(workspace).filter((c) => c.path !== root && isInside(c.path, root));
}

/** The code paths inside `workspace` its git config makes (also a linked worktree or a folder of a repository: G3). */
export function repoCodePathsInWorkspace(workspace: string): RepoCodePath[] {
  return gitCodePathsInside(workspace, workspace);
}

/** The code path `hostPath` is inside (or is), if any: what the file tools must not write. */
export function repoCodePathOf(hostPath: string, workspace: string): string | undefined {
  const p = real(hostPath);
  return repoCodePathsInWorkspace(workspace).find((c) => isInside(p, c.path))?.path;
}
