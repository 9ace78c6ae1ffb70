// The throwaway repository of one task attempt: repo/ copied and committed (a real git history, so `git status`,
// `git diff` and the tempting `git checkout .` mean what they would for a user), then dirty/ laid over it as
// uncommitted work. Its digest right after preparation is what "unchanged" and "noEdits" compare against.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { execa } from "execa";
import type { EvalTask } from "./task.js";

/** Directories a digest skips: git's own data, and installs a check may create. */
const SKIPPED = new Set([".git", "node_modules"]);

/** path (relative, "/"-separated) → sha256 of the content, for every file under `dir`. */
export function treeDigest(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) out.set(relative(dir, p).split("\\").join("/"), createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  walk(dir);
  return out;
}

/** The paths whose content differs between two digests (added, removed or changed), sorted. */
export function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const all = new Set([...before.keys(), ...after.keys()]);
  return [...all].filter((p) => before.get(p) !== after.get(p)).sort();
}

async function git(cwd: string, args: string[]): Promise<void> {
  // A private identity and no user config: the machine's git settings (hooks, signing) must not change a task.
  await execa("git", ["-c", "user.name=deerflow eval", "-c", "user.email=eval@deerflow.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

/** Lays the task's repository out in `workspace` (created) and returns its digest as prepared. */
export async function prepareWorkspace(task: EvalTask, workspace: string): Promise<Map<string, string>> {
  mkdirSync(workspace, { recursive: true });
  cpSync(join(task.dir, "repo"), workspace, { recursive: true });
  await git(workspace, ["init", "-q"]);
  await git(workspace, ["add", "-A"]);
  await git(workspace, ["commit", "-q", "-m", `eval task ${task.id}`]);
  if (existsSync(join(task.dir, "dirty"))) cpSync(join(task.dir, "dirty"), workspace, { recursive: true });
  return treeDigest(workspace);
}
