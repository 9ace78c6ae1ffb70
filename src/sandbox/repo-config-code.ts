// Whether the workspace's git repository configures code for git to run (core.fsmonitor, a pager, a diff driver, an
// alias…: shell-git.ts's code keys). Plan mode runs `git status` and friends only where this is false: the sandbox
// confines such code, but in plan mode nothing may change, and a repository that arrived with a planted
// `.git/config` would have its own `git status` run a program of its choosing.
import { execFileSync } from "node:child_process";
import { isGitCodeKey } from "./shell-git.js";

/**
 * The repository's own config keys (local and worktree, includes followed), read as deerflow's own git does: no
 * GIT_* from the environment, no system or global config, fsmonitor off. Unreadable (no repository, no git): none.
 */
function localConfigKeys(workspace: string): string[] {
  const env: Record<string, string> = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  try {
    const out = execFileSync("git", ["-c", "core.fsmonitor=false", "config", "--includes", "--list", "--name-only", "--show-scope"], {
      cwd: workspace,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    });
    // "<scope>\t<key>": our own `-c` is the command scope.
    return out
      .split("\n")
      .map((line) => line.split("\t"))
      .filter(([scope, key]) => scope !== "command" && key)
      .map(([, key]) => key!);
  } catch {
    return [];
  }
}

/** The repository around `workspace` names a program or code git would run. */
export function repoConfigRunsCode(workspace: string): boolean {
  return localConfigKeys(workspace).some(isGitCodeKey);
}
