// The workspace's own files that the repository's configuration turns into code the user's git runs: the hooks folder
// named by `core.hooksPath` (husky's `.husky/_`, and `.husky` whose scripts its wrappers run) and config files pulled
// in by `include.path` / `includeIf.*.path`. What those hooks run in turn (lint-staged's config in package.json, a
// .pre-commit-config.yaml) is project content like any other: docs/security.md says to review the diff before committing.
// They are ordinary files of the worktree, so neither the read-only `.git/config` nor `.git/hooks` covers them: the
// sixth adversarial pass wrote `.husky/_/pre-commit` in auto-edit, and the user's `git commit` ran it on the host.
// The sandbox binds them read-only (git-code-paths.ts); the file tools refuse to write them (safe-fs.ts).
import { execFileSync } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "./paths.js";

const KEYS = "^(core\\.hookspath|include\\.path|includeif\\..+\\.path)$";

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

function mtimeOf(p: string): number {
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
  /** Its config files (the shared one and the worktree's), for the cache's stamp. */
  files: string[];
}

const git = (args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 });

/** Where git finds the repository of `workspace` (`rev-parse` reads, runs nothing), or undefined outside one. */
function repoOf(workspace: string): Repo | undefined {
  try {
    const [top, common, dir] = git(["-C", workspace, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "--git-dir"]).trim().split("\n");
    return top && common && dir ? { top, files: [join(common, "config"), join(dir, "config.worktree")] } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The keys above from every config git reads for `workspace` (system, global, the repository's, the worktree's, and
 * what they include), each with the file that holds it: an include path is relative to the file it is written in
 * (the eleventh pass planted `.gitconfig.more` beside a tracked, included `.gitconfig.local`: C5), and a relative
 * hooks path from the user's global config names a folder in every repository (the twelfth pass's G1).
 */
function readKeys(workspace: string): { key: string; value: string; file: string }[] {
  let text = "";
  try {
    // --includes: a key set in an included file counts too; -z: the origin's path unquoted. Reading config runs nothing.
    text = git(["-C", workspace, "config", "--includes", "--show-origin", "-z", "--get-regexp", KEYS]);
  } catch {
    return []; // none of the keys, or no git
  }
  const out: { key: string; value: string; file: string }[] = [];
  const fields = text.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const entry = fields[i + 1]!;
    const cut = entry.indexOf("\n");
    if (cut > 0 && origin.startsWith("file:")) out.push({ key: entry.slice(0, cut).toLowerCase(), value: entry.slice(cut + 1), file: resolve(workspace, origin.slice(5)) });
  }
  return out;
}

export interface RepoCodePath {
  path: string;
  /** A hooks folder (`core.hooksPath`) or an included config file. */
  kind: "hooks" | "config";
}

/** Every config file read (included ones too) is part of the cache's stamp: editing one changes what is code. */
const cache = new Map<string, { files: string[]; stamp: string; paths: RepoCodePath[] }>();
const stampOf = (files: string[]) => files.map(mtimeOf).join(":");

/**
 * The real paths inside `workspace` that its repository's config makes code (existing or not yet created), also when
 * the workspace is a linked worktree or a folder inside a repository (husky's monorepo set-up: the twelfth pass's G3).
 * A hooks path is relative to the worktree's top; an include path to the config file's folder; `~/` means the user's
 * home (never inside a workspace the checks allow). Cached until a config file read, or the workspace's `.git`, changes.
 */
export function repoCodePathsInWorkspace(workspace: string): RepoCodePath[] {
  const hit = cache.get(workspace);
  if (hit && hit.stamp === stampOf(hit.files)) return hit.paths;
  const repo = repoOf(workspace);
  const files = [join(workspace, ".git"), ...(repo?.files ?? [])];
  const root = real(workspace);
  const paths = new Map<string, RepoCodePath>();
  if (repo) {
    const keys = readKeys(workspace);
    for (const file of new Set(keys.map((k) => k.file))) if (!files.includes(file)) files.push(file);
    for (const { key, value, file } of keys) {
      if (value.startsWith("~")) continue;
      const hooks = key === "core.hookspath";
      const p = real(isAbsolute(value) ? value : resolve(hooks ? repo.top : dirname(file), value));
      if (p === root || !isInside(p, root)) continue;
      paths.set(p, { path: p, kind: hooks ? "hooks" : "config" });
      // husky 9 sets `.husky/_`, whose wrappers run the user's `.husky/<hook>`: the folder above is hooks too.
      if (hooks && basename(p) === "_" && dirname(p) !== root) paths.set(dirname(p), { path: dirname(p), kind: "hooks" });
    }
  }
  const out = [...paths.values()].sort((a, b) => a.path.localeCompare(b.path));
  cache.set(workspace, { files, stamp: stampOf(files), paths: out });
  return out;
}

/** The code path `hostPath` is inside (or is), if any: what the file tools must not write. */
export function repoCodePathOf(hostPath: string, workspace: string): string | undefined {
  const p = real(hostPath);
  return repoCodePathsInWorkspace(workspace).find((c) => isInside(p, c.path))?.path;
}
