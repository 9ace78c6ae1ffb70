// Whether git, run at the workspace, would run code the repository names: a code key in its config (core.fsmonitor, a
// pager, a diff driver, an alias…: shell-git.ts), a hook in its git dir (`git status` rewrites the index and runs
// post-index-change: the sixteenth pass's PM8), or the same in any checkout its index records (status enters each
// gitlink with ITS config and hooks: PM4). Plan mode runs `git status` and friends only where nothing would: the
// sandbox confines such code, but in plan mode nothing may change. Fails closed: a repository git finds but this
// cannot read whole (a config that lists past the buffer: PM7, an index or pointer it cannot read) counts as code.
import { type CheckoutGit, gitDirRunsCode, gitDirsOfCheckout } from "./git-dir-code.js";
import { gitlinks } from "./gitlink-walk.js";
import { CONFIG_LISTING_BYTES, plainGit } from "./plain-git.js";
import { isGitCodeKey } from "./shell-git.js";

/** git's first error line from a failed plainGit call. */
const gitError = (err: unknown) => {
  const e = err as { stderr?: unknown; code?: unknown; signal?: unknown };
  if (e.code === "ENOBUFS") return "its listing is longer than deerflow reads";
  if (e.signal) return `git was stopped (${String(e.signal)})`;
  return (
    String(e.stderr ?? "")
      .trim()
      .split("\n")[0] || "git failed"
  );
};

/**
 * Where git finds the repository of `workspace` (read by plainGit: no GIT_* from the environment, no system or global
 * config, fsmonitor off); "none" outside any repository, a reason when git finds one it cannot read.
 */
function repoAt(workspace: string): { git: CheckoutGit; top?: string } | "none" | string {
  let dirs: string[];
  try {
    dirs = plainGit(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"], { cwd: workspace }).split("\n");
  } catch (err) {
    const said = gitError(err);
    return /not a git repository/i.test(said) ? "none" : `git could not read the repository there (${said})`;
  }
  const [gitDir, common] = dirs;
  if (!gitDir || !common) return "git named no git dir there";
  let top: string | undefined;
  try {
    top = plainGit(["rev-parse", "--show-toplevel"], { cwd: workspace }).trim() || undefined;
  } catch {
    // a bare repository: no work tree, so no index refresh and no gitlinks entered
  }
  return { git: common === gitDir ? { gitDir } : { gitDir, common }, top };
}

/** The repository's own config keys that run code (local and worktree, includes followed); a reason when unlisted. */
function localCodeKeys(workspace: string): string[] | string {
  try {
    // "<scope>\t<key>": plainGit's own `-c` is the command scope.
    return plainGit(["config", "--includes", "--list", "--name-only", "--show-scope"], { cwd: workspace, maxBytes: CONFIG_LISTING_BYTES })
      .split("\n")
      .map((line) => line.split("\t"))
      .filter(([scope, key]) => scope !== "command" && key && isGitCodeKey(key))
      .map(([, key]) => key!);
  } catch (err) {
    return `its config could not be listed (${gitError(err)})`;
  }
}

/**
 * Why git run at `workspace` would run code the repository (or a checkout it enters) names, in a few words; undefined
 * when nothing would (or there is no repository).
 */
export function repoRunsCode(workspace: string): string | undefined {
  const repo = repoAt(workspace);
  if (repo === "none") return undefined;
  if (typeof repo === "string") return repo;
  const keys = localCodeKeys(workspace);
  if (typeof keys === "string") return keys;
  if (keys.length > 0) return `its config sets ${[...new Set(keys)].join(", ")}`;
  const own = gitDirRunsCode(repo.git);
  if (own) return own;
  if (!repo.top) return undefined;
  // Every gitlink of the index, wherever in the work tree: git status from a subfolder still refreshes them all.
  const walk = gitlinks(repo.top, repo.top, repo.git);
  if (walk.problems.length > 0) return "deerflow could not look into every repository its index records";
  for (const link of walk.links) {
    const g = gitDirsOfCheckout(link);
    const why = g && gitDirRunsCode(g);
    if (why) return `the repository checked out at ${link} runs code: ${why}`;
  }
  return undefined;
}
