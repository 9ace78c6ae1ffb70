// `.git/commondir` tells git to take the repository's config and hooks from another directory. The sandbox binds
// `.git/config` and `.git/hooks` read-only (git-code-paths.ts), but it cannot do the same for a file that does not
// exist yet (a bind needs its mount point on the host), so a command could create `commondir` pointing at a
// directory it filled with a config whose core.fsmonitor the user's own `git status` then runs on the host (the
// fifth adversarial pass, through `echo ../gd > .git/commondir`; the audit asks for that spelling, but not for a
// script that does the same). So after every command, and at the end of the run for background jobs, the file is
// put back as the run found it, whatever wrote it, and the command's output says so. The configs of nested
// repositories the index records get the same care (nested-repo-guard.ts).
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitDirOf } from "./git-code-paths.js";
import { forgetNestedRepos, noteNestedRepos, restoreNestedRepos } from "./nested-repo-guard.js";

/** Per watched file (a repository's `commondir`, each linked worktree's): its content as the run found it (null: none). */
const found = new Map<string, string | null>();
/** The workspaces already noted this run. */
const noted = new Set<string>();

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * The files that say where git finds a repository's config: `.git/commondir`, and for each linked worktree
 * (`git worktree add`) its `commondir` and `config.worktree` (the sixth pass pointed a worktree at a planted config).
 */
function watchedFiles(gitDir: string): string[] {
  let worktrees: string[] = [];
  try {
    worktrees = readdirSync(join(gitDir, "worktrees"));
  } catch {
    // none
  }
  return [join(gitDir, "commondir"), ...worktrees.flatMap((w) => [join(gitDir, "worktrees", w, "commondir"), join(gitDir, "worktrees", w, "config.worktree")])];
}

/** Remembers the workspace repository's files the first time a run touches the workspace. */
export function noteGitRedirect(workspace: string): void {
  if (noted.has(workspace)) return; // once per run: runShell calls this before every command
  noted.add(workspace);
  noteNestedRepos(workspace);
  const gitDir = gitDirOf(workspace);
  if (!gitDir) return;
  for (const f of watchedFiles(gitDir)) if (!found.has(f)) found.set(f, read(f));
}

/** Puts every noted file back as it was; a line per file it had to repair (empty when none). */
export function restoreGitRedirects(): string {
  const lines: string[] = [];
  for (const [path, before] of found) {
    const now = read(path);
    if (now === before) continue;
    try {
      if (before === null) rmSync(path, { force: true, recursive: true });
      else writeFileSync(path, before);
      lines.push(`deerflow undid a change to ${path}: it would make git read another directory's config and hooks.`);
    } catch (err) {
      lines.push(`deerflow could not undo a change to ${path} (${(err as Error).message}): check it before you run git there.`);
    }
  }
  const nested = restoreNestedRepos();
  if (nested) lines.push(nested);
  return lines.join("\n");
}

/** The end of a chat or run: a last check, then forget. */
export function endGitRedirectWatch(): string {
  const said = restoreGitRedirects();
  found.clear();
  noted.clear();
  forgetNestedRepos();
  return said;
}
