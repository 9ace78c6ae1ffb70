// Running git for the shadow repositories. The user's environment and configuration must never redirect us: every
// GIT_* variable is dropped (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE… would point us at the user's repository), the
// system and global config files are not read (no core.excludesFile, hooksPath, fsmonitor or filter drivers of the
// user's), and the repository is always named explicitly with --git-dir / --work-tree (and, for a shadow repository in
// a workspace's shared store, its objects with GIT_OBJECT_DIRECTORY: see shadow-repo.ts).
import { execa } from "execa";
import { hostProgramPath, onHostPath } from "../sandbox/env-scrub.js";

export interface GitTarget {
  gitDir: string;
  workTree: string;
}

export class GitMissingError extends Error {
  constructor() {
    super("git is not installed (or not on PATH)");
    this.name = "GitMissingError";
  }
}

/** Paths of NUL-separated git output (`-z`). */
export function nulList(out: string): string[] {
  return out.split("\0").filter((s) => s.length > 0);
}

/** The environment git runs with: the host's PATH and locale basics, nothing of the user's git set-up. */
function gitEnv(workTree?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    // The git on the host's filtered PATH: never one a sandboxed command wrote into a project folder on it (the
    // sixteenth pass's M1 ran a planted node_modules/.bin/git for this run's own "after run" snapshot).
    PATH: hostProgramPath(process.env.PATH ?? "", workTree),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    // Names are file paths, never pathspec magic or globs.
    GIT_LITERAL_PATHSPECS: "1",
    GIT_AUTHOR_NAME: "deerflow",
    GIT_AUTHOR_EMAIL: "deerflow@localhost",
    GIT_COMMITTER_NAME: "deerflow",
    GIT_COMMITTER_EMAIL: "deerflow@localhost",
    LC_ALL: "C",
  };
}

/**
 * The longest one git call of a snapshot may take. The workspace is the agent's: `mkfifo .gitignore` made the shadow
 * repository's `git status` wait for ever to open it, so the run never ended (the thirty-third pass's A33a-6). Past
 * this the git is killed and the snapshot fails with a warning, as any failed snapshot does (the first snapshot of a
 * large workspace takes seconds). A test lowers it.
 */
export const snapshotGitLimits = { ms: 180_000 };
const stop = new AbortController();

/**
 * Kills every snapshot git still running and fails any started later in this process: a second Ctrl+C or SIGTERM
 * while a run winds down must end it, even when a snapshot's git is stuck.
 */
export function stopSnapshotGit(): void {
  stop.abort();
}

let available: boolean | undefined;

/**
 * Whether git is here: a `git` on the PATH git runs with (looked up once per process). A lookup, not a `git
 * --version`: that spawn stood between every `deerflow run` and its first model request; a git that is there but
 * cannot run fails the snapshot itself, which says so.
 */
export async function gitAvailable(): Promise<boolean> {
  available ??= onHostPath("git") !== undefined;
  return available;
}

/** Runs `git --git-dir … --work-tree … <args>` (`bare`: without the work tree) and returns stdout; a failure throws with git's own message. */
export async function git(
  target: GitTarget,
  args: string[],
  opts: { input?: string; allowFail?: boolean; bare?: boolean; env?: Record<string, string> } = {},
): Promise<{ stdout: string; exitCode: number }> {
  const named = opts.bare ? ["--git-dir", target.gitDir] : ["--git-dir", target.gitDir, "--work-tree", target.workTree];
  const r = await execa("git", [...named, ...args], {
    cwd: opts.bare ? undefined : target.workTree,
    env: { ...gitEnv(target.workTree), ...opts.env },
    extendEnv: false,
    input: opts.input,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 256 * 1024 * 1024,
    timeout: snapshotGitLimits.ms,
    cancelSignal: stop.signal,
    killSignal: "SIGKILL",
  }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new GitMissingError();
    throw err;
  });
  if ((r as { code?: string }).code === "ENOENT" || (r.exitCode === undefined && /ENOENT/.test(String(r.message)))) throw new GitMissingError();
  if (r.timedOut) throw new Error(`git ${args[0]} took longer than ${snapshotGitLimits.ms / 1000} s (a FIFO or a stuck file system in the workspace?) and was stopped`);
  if (r.isCanceled) throw new Error(`git ${args[0]} was stopped: deerflow is ending`);
  const exitCode = r.exitCode ?? 1;
  if (exitCode !== 0 && !opts.allowFail) {
    const said =
      String(r.stderr ?? "")
        .trim()
        .split("\n")
        .filter(Boolean)
        .at(-1) ?? `exit ${exitCode}`;
    throw new Error(`git ${args[0]} failed: ${said}`);
  }
  return { stdout: String(r.stdout ?? ""), exitCode };
}
