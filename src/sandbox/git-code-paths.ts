// The files of a workspace's git repository that make git run commands: its config (core.fsmonitor, core.pager,
// aliases, filters, hooksPath…) and its hooks, and the same for each submodule under .git/modules. The sandbox binds
// them read-only: a command inside it could otherwise plant code that the user's own `git status` or `git commit`
// runs later on the host, outside the sandbox, through any spelling the command audit cannot read (a glob, a
// variable, `git init --template`, an archive). git keeps working in the sandbox (objects, refs, the index and
// logs stay writable); what fails is changing the repository's configuration or hooks (`git config`, `git remote
// add`), which is the user's to do.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostEnv } from "./env-scrub.js";
import { repoCodePathsInWorkspace } from "./repo-code-paths.js";
import { listForGuard } from "./guard-listing.js";

const CODE_FILES = ["config", "config.worktree", "hooks"];
/** Submodules nest (.git/modules/a/modules/b): a bounded walk. */
const MAX_DEPTH = 4;

function isRealDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function collect(gitDir: string, depth: number, out: string[]): void {
  for (const name of CODE_FILES) if (existsSync(join(gitDir, name))) out.push(join(gitDir, name));
  const modules = join(gitDir, "modules");
  if (depth >= MAX_DEPTH || !isRealDir(modules)) return;
  for (const entry of listForGuard(modules)) {
    const sub = join(modules, entry);
    if (isRealDir(sub)) collect(sub, depth + 1, out);
  }
}

/**
 * The workspace's own .git directory, or undefined. The sandbox binds it onto itself first: a mount point cannot be
 * renamed or replaced, so `mv .git .gx; cp -a .gx .gy; (edit .gy/config); mv .gy .git` cannot swap in a writable copy
 * of the read-only files (the fourth adversarial pass).
 */
export function gitDirOf(workspace: string): string | undefined {
  const gitDir = join(workspace, ".git");
  return isRealDir(gitDir) ? gitDir : undefined;
}

/** `extensions.worktreeConfig` in the repository's own config (read as a file: nothing it names runs). */
function worktreeConfigOn(gitDir: string): boolean {
  try {
    return (
      execFileSync("git", ["config", "--file", join(gitDir, "config"), "--type=bool", "--get", "extensions.worktreeConfig"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        env: hostEnv(),
      }).trim() === "true"
    );
  } catch {
    return false; // unset (git exits 1), or no git: nothing reads the file then
  }
}

/**
 * The paths to bind read-only for `workspace` (its repository may hold it, or none). A repository without
 * `.git/hooks` gets an empty one first (git makes one at init anyway): a bind needs its mount point, and a missing
 * hooks directory was one a script could create and fill (the sixth adversarial pass).
 */
export function gitCodePaths(workspace: string): string[] {
  const gitDir = join(workspace, ".git");
  const out: string[] = [];
  if (isRealDir(gitDir)) ownGitDirCode(gitDir, out);
  // The worktree's own files the config makes code (husky's hooks folder, included configs): read-only too, also in a
  // linked worktree or a folder of a repository (the twelfth pass's G3). A hooks folder not made yet is made empty, as
  // .git/hooks below; an included config not there yet is moved aside after each command that creates it
  // (git-redirect-guard.ts): an empty placeholder in the worktree would show in git status.
  for (const { path, kind } of repoCodePathsInWorkspace(workspace)) {
    if (kind === "hooks" && !existsSync(path)) {
      try {
        mkdirSync(path, { recursive: true });
      } catch {
        // read-only: nothing inside can create it either
      }
    }
    if (existsSync(path)) out.push(path);
  }
  return out;
}

/** The workspace's own .git directory's code files (config, hooks, modules). */
function ownGitDirCode(gitDir: string, out: string[]): void {
  if (!existsSync(join(gitDir, "hooks"))) {
    try {
      mkdirSync(join(gitDir, "hooks"));
    } catch {
      // a read-only repository: nothing inside can create it either
    }
  }
  // The same for `.git/config.worktree` where git reads it (extensions.worktreeConfig on): an absent one was a file a
  // script could create (the tenth pass planted core.fsmonitor so). An empty one changes nothing for git and is left
  // like the hooks folder. Where the extension is off the file is dormant, and the user's .git is left as it is: one a
  // command creates is removed after it (git-redirect-guard.ts), before anything could turn the extension on.
  try {
    if (!existsSync(join(gitDir, "config.worktree")) && worktreeConfigOn(gitDir)) writeFileSync(join(gitDir, "config.worktree"), "", { flag: "wx" });
  } catch {
    // a read-only repository, or made meanwhile: bound as it is
  }
  collect(gitDir, 0, out);
}
