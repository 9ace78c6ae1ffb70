// A repository inside the workspace that the workspace's index records as a gitlink (a submodule, registered or
// not): the user's own `git status` in the workspace runs git inside it, with ITS config, on the host. That config is
// an ordinary file of the worktree (`sub/.git/config`), so the sandbox cannot keep it read-only the way it keeps the
// workspace's own `.git/config`: the sixth adversarial pass wrote core.fsmonitor there through a spelling the audit
// could not read, `git add sub`, and the user's next `git status` ran it. So after every command (git-redirect-guard.ts
// calls this) each gitlink's config is compared with the run's start, and any key that runs code (shell-git.ts) the run
// added is taken out again, with a line saying so. Keys that were there when the run started are the user's.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gitDirOf } from "./git-code-paths.js";
import { isGitCodeKey } from "./shell-git.js";

/** Per workspace: the index's mtime when last listed, and its gitlinks' config files. */
const workspaces = new Map<string, { stamp: number; configs: string[] }>();
/** Per config file: its code keys when the run first saw it (null: the file did not exist). */
const baseline = new Map<string, Set<string> | null>();

/** git with nothing of the environment's GIT_* (a GIT_DIR would point it elsewhere). */
function git(args: string[], cwd?: string): string {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000, maxBuffer: 256 * 1024 * 1024 });
}

function mtimeOf(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

/** The config files of the repository checked out at `dir` (`.git` a folder, or a file saying `gitdir: …`). */
function configsOf(dir: string): string[] {
  const dotGit = join(dir, ".git");
  let gitDir = dotGit;
  try {
    if (statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (!m) return [];
      gitDir = resolve(dir, m[1]!.trim());
    }
  } catch {
    return []; // not checked out: git status does not look inside
  }
  return [join(gitDir, "config"), join(gitDir, "config.worktree")];
}

/** The gitlinks of the workspace's index (mode 160000) and their config files. */
function gitlinkConfigs(workspace: string): string[] {
  let listing = "";
  try {
    listing = git(["ls-files", "--stage", "-z"], workspace);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of listing.split("\0")) {
    if (!entry.startsWith("160000 ")) continue;
    const path = entry.slice(entry.indexOf("\t") + 1);
    out.push(...configsOf(join(workspace, path)));
  }
  return out;
}

function codeKeys(file: string): Set<string> | null {
  try {
    statSync(file);
  } catch {
    return null;
  }
  try {
    return new Set(git(["config", "--file", file, "--name-only", "--list"]).split("\n").filter((k) => k && isGitCodeKey(k)));
  } catch {
    return new Set(); // unreadable as config: git will refuse it too
  }
}

function refresh(workspace: string): string[] {
  const stamp = mtimeOf(join(workspace, ".git", "index"));
  const known = workspaces.get(workspace);
  if (known && known.stamp === stamp) return known.configs;
  const configs = stamp === -1 ? [] : gitlinkConfigs(workspace);
  workspaces.set(workspace, { stamp, configs });
  return configs;
}

/** The first command of a run in `workspace`: what its gitlinks' configs hold now is the user's. */
export function noteNestedRepos(workspace: string): void {
  if (workspaces.has(workspace) || !gitDirOf(workspace)) return;
  for (const f of refresh(workspace)) if (!baseline.has(f)) baseline.set(f, codeKeys(f));
}

/** After a command: code keys the run added to a gitlink's config are removed; a line for each (empty when none). */
export function restoreNestedRepos(): string {
  const lines: string[] = [];
  for (const workspace of workspaces.keys()) {
    for (const f of refresh(workspace)) {
      if (!baseline.has(f)) baseline.set(f, null); // a gitlink the run added: everything in its config is the run's
      const before = baseline.get(f) ?? new Set<string>();
      const added = [...(codeKeys(f) ?? [])].filter((k) => !before.has(k));
      if (added.length === 0) continue;
      try {
        for (const k of added) git(["config", "--file", f, "--unset-all", k]);
        lines.push(`deerflow removed ${added.join(", ")} from ${f}: a repository your git status enters would run ${added.length === 1 ? "it" : "them"} on your host.`);
      } catch {
        lines.push(`deerflow could not remove ${added.join(", ")} from ${f}: check ${dirname(f)} before you run git in the workspace.`);
      }
    }
  }
  return lines.join("\n");
}

/** The end of a chat or run: forget. */
export function forgetNestedRepos(): void {
  workspaces.clear();
  baseline.clear();
}
