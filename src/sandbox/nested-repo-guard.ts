// A repository inside the workspace that the workspace's index records as a gitlink (a submodule, registered or
// not): the user's own `git status` in the workspace runs git inside it, with ITS config, on the host. That config is
// an ordinary file of the worktree (`sub/.git/config`), so the sandbox cannot keep it read-only the way it keeps the
// workspace's own `.git/config`: the sixth adversarial pass wrote core.fsmonitor there through a spelling the audit
// could not read, `git add sub`, and the user's next `git status` ran it. So after every command (git-redirect-guard.ts
// calls this) each gitlink's config is compared with the run's start, and any key that runs code (shell-git.ts) the run
// added is taken out again, with a line saying so. Keys that were there when the run started are the user's.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { gitDirOf } from "./git-code-paths.js";
import { isGitCodeKey } from "./shell-git.js";

/** Per workspace: the index's mtime when last listed, and its gitlinks' paths. */
const workspaces = new Map<string, { stamp: number; links: string[] }>();
/** Per config file: its code keys when the run first saw it (null: the file did not exist). */
const baseline = new Map<string, Set<string> | null>();

/**
 * git as deerflow runs it on the host: nothing of the environment's GIT_*, no system or global config, and no
 * repository config at all where `gitDir` is given (an empty repository of our own, reading `index` through
 * GIT_INDEX_FILE): the seventh pass made this guard's own `git ls-files` run a planted core.fsmonitor by pointing
 * the workspace's commondir at a planted config. `core.fsmonitor=false` besides, should any config be read.
 */
function git(args: string[], opts: { cwd?: string; index?: string } = {}): string {
  const env: Record<string, string> = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  if (opts.index) Object.assign(env, { GIT_DIR: emptyRepo(), GIT_INDEX_FILE: opts.index });
  return execFileSync("git", ["-c", "core.fsmonitor=false", ...args], { cwd: opts.cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000, maxBuffer: 256 * 1024 * 1024 });
}

let empty: string | undefined;
/** A bare repository of deerflow's own, with nothing in its config: the git dir the index is read under. */
function emptyRepo(): string {
  if (empty && existsSync(empty)) return empty;
  empty = mkdtempSync(join(tmpdir(), "deerflow-git-"));
  execFileSync("git", ["init", "-q", "--bare", empty], { stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
  return empty;
}

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

/**
 * Every config file git reads for the repository checked out at `dir`: its `.git` (a folder, or a file saying
 * `gitdir: …`), that git dir's config and config.worktree, and the config of the directory its `commondir` names.
 * Resolved afresh at every check: a `.git` file or a commondir rewritten without touching the index counts too.
 */
function configsOf(dir: string): string[] {
  const dotGit = join(dir, ".git");
  let gitDir = dotGit;
  // git follows a `.git` that is a symlink (to a gitfile or a git dir): so does this (the eighth pass hid one so).
  if (isFileFollowing(dotGit)) {
    const m = /^gitdir:\s*(.+)$/m.exec(readSmall(dotGit) ?? "");
    if (!m) return [];
    gitDir = resolve(dir, m[1]!.trim());
  } else if (!existsSync(dotGit)) {
    return []; // not checked out: git status does not look inside
  }
  const out = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const common = readSmall(join(gitDir, "commondir"))?.trim();
  if (common) out.push(join(resolve(gitDir, common), "config"));
  return out;
}

/** The gitlinks of the workspace's index (mode 160000), read without the repository's config. */
function gitlinks(workspace: string): string[] {
  let listing = "";
  try {
    listing = git(["ls-files", "--stage", "-z"], { cwd: workspace, index: join(workspace, ".git", "index") });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of listing.split("\0")) {
    if (entry.startsWith("160000 ")) out.push(join(workspace, entry.slice(entry.indexOf("\t") + 1)));
  }
  return out;
}

function codeKeys(file: string): Set<string> | null {
  if (!existsSync(file)) return null;
  if (!isFile(file)) return new Set(["(not a regular file)"]); // a FIFO or a link: git may hang or go elsewhere
  try {
    return new Set(
      git(["config", "--file", file, "--name-only", "--list"])
        .split("\n")
        .filter((k) => k && isGitCodeKey(k)),
    );
  } catch {
    return new Set(); // unreadable as config: git will refuse it too
  }
}

/** The config files of the workspace's gitlinks now (the list of gitlinks is read again when the index changed). */
function refresh(workspace: string): string[] {
  const stamp = mtimeOf(join(workspace, ".git", "index"));
  let known = workspaces.get(workspace);
  if (!known || known.stamp !== stamp) {
    known = { stamp, links: stamp === -1 ? [] : gitlinks(workspace) };
    workspaces.set(workspace, known);
  }
  return known.links.flatMap(configsOf);
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
      if (added.includes("(not a regular file)")) {
        // A link or special file the run put where a nested repository's config belongs: git follows it.
        try {
          rmSync(f, { force: true });
          lines.push(`deerflow removed ${f}: a link or special file where a repository your git status enters keeps its config.`);
        } catch {
          lines.push(`deerflow found ${f} is not a regular file: a repository your git status enters reads it. Remove it before you run git in the workspace.`);
        }
        continue;
      }
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
