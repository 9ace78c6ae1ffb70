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

/** `key value` lines of the repository's own config files (not the user's global one) for the keys above. */
function readKeys(gitDir: string): { key: string; value: string; file: string }[] {
  const out: { key: string; value: string; file: string }[] = [];
  for (const name of ["config", "config.worktree"]) {
    const file = join(gitDir, name);
    let text = "";
    try {
      // --includes: a hooksPath set in an included file counts too. Reading config runs nothing.
      text = execFileSync("git", ["config", "--file", file, "--includes", "--get-regexp", KEYS], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 });
    } catch {
      continue; // no such file, none of the keys, or no git
    }
    for (const line of text.split("\n")) {
      const m = /^(\S+) (.+)$/.exec(line);
      if (m) out.push({ key: m[1]!.toLowerCase(), value: m[2]!, file });
    }
  }
  return out;
}

export interface RepoCodePath {
  path: string;
  /** A hooks folder (`core.hooksPath`) or an included config file. */
  kind: "hooks" | "config";
}

const cache = new Map<string, { stamp: string; paths: RepoCodePath[] }>();

/**
 * The real paths inside `workspace` that its repository's config makes code (existing or not yet created). A hooks
 * path is relative to the worktree; an include path to the config file's folder; `~/` means the user's home (never
 * inside a workspace the checks allow). Cached until either config file changes.
 */
export function repoCodePathsInWorkspace(workspace: string): RepoCodePath[] {
  const gitDir = join(workspace, ".git");
  const stamp = `${mtimeOf(join(gitDir, "config"))}:${mtimeOf(join(gitDir, "config.worktree"))}`;
  const hit = cache.get(workspace);
  if (hit && hit.stamp === stamp) return hit.paths;
  const root = real(workspace);
  const paths = new Map<string, RepoCodePath>();
  if (stamp !== "-1:-1") {
    for (const { key, value, file } of readKeys(gitDir)) {
      if (value.startsWith("~")) continue;
      const hooks = key === "core.hookspath";
      const p = real(isAbsolute(value) ? value : resolve(hooks ? root : resolve(file, ".."), value));
      if (p === root || !isInside(p, root)) continue;
      paths.set(p, { path: p, kind: hooks ? "hooks" : "config" });
      // husky 9 sets `.husky/_`, whose wrappers run the user's `.husky/<hook>`: the folder above is hooks too.
      if (hooks && basename(p) === "_" && dirname(p) !== root) paths.set(dirname(p), { path: dirname(p), kind: "hooks" });
    }
  }
  const out = [...paths.values()].sort((a, b) => a.path.localeCompare(b.path));
  cache.set(workspace, { stamp, paths: out });
  return out;
}

/** The code path `hostPath` is inside (or is), if any: what the file tools must not write. */
export function repoCodePathOf(hostPath: string, workspace: string): string | undefined {
  const p = real(hostPath);
  return repoCodePathsInWorkspace(workspace).find((c) => isInside(p, c.path))?.path;
}
