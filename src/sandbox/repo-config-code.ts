// Whether the workspace's git repository configures code for git to run (core.fsmonitor, a pager, a diff driver, an
// alias…: shell-git.ts's code keys). Plan mode runs `git status` and friends only where this is false: the sandbox
// confines such code, but in plan mode nothing may change, and a repository that arrived with a planted
// `.git/config` would have its own `git status` run a program of its choosing.
import { plainGit } from "./plain-git.js";
import { isGitCodeKey } from "./shell-git.js";

/**
 * The repository's own config keys (local and worktree, includes followed), read by plainGit (no GIT_* from the
 * environment, no system or global config, fsmonitor off, git from a PATH no sandboxed command can write).
 * Unreadable (no repository, no git): none.
 */
function localConfigKeys(workspace: string): string[] {
  try {
    // "<scope>\t<key>": plainGit's own `-c` is the command scope.
    return plainGit(["config", "--includes", "--list", "--name-only", "--show-scope"], { cwd: workspace })
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
