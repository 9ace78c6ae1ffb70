// The files' half of rewind, as the runtime uses it: a snapshot of the thread's workspace before each run (recorded
// with the run, next to its rollback mark), and the one-line reasons when there is none. A snapshot that cannot be
// taken never stops the run: the run goes on and only its files cannot be rewound.
import { mkdirSync } from "node:fs";
import { maskCredentials } from "../sandbox/env-scrub.js";
import { GitMissingError, gitAvailable } from "../snapshots/git.js";
import { ShadowRepo, runRef } from "../snapshots/shadow-repo.js";
import { WorkspaceStore } from "../snapshots/workspace-store.js";

/** Said once per process when git is missing (conversation rewind still works). */
export const GIT_MISSING_NOTE = "git is not installed: files are not snapshotted before runs, so rewind restores the conversation only (install git to rewind files too).";

/** The thread's shadow repository; its objects live in the store it shares with the workspace's other threads. */
export function shadowRepoOf(home: string, threadId: string, workspace: string): ShadowRepo {
  return new ShadowRepo(ShadowRepo.dirFor(home, threadId), workspace, WorkspaceStore.of(home, workspace, threadId));
}

let gitMissingSaid = false;

/**
 * Snapshots `workspace` for run `runId`. Returns the commit, or a warning to show (undefined when there is nothing
 * new to say, e.g. git missing and already said).
 */
export async function snapshotBeforeRun(home: string, threadId: string, workspace: string, runId: string): Promise<{ commit?: string; warning?: string }> {
  if (!(await gitAvailable())) {
    if (gitMissingSaid) return {};
    gitMissingSaid = true;
    return { warning: GIT_MISSING_NOTE };
  }
  try {
    // A thread's own workspace is created by its first run's sandbox; the snapshot comes first.
    mkdirSync(workspace, { recursive: true });
    const repo = shadowRepoOf(home, threadId, workspace);
    // From here the files are the run's to change: until it ends, what differs from the last end is not the user's.
    repo.clearLeft();
    // The message names the run only: the prompt (a token the user typed in it) would be kept in the snapshot
    // repository, unmasked, where nothing reads it (the sixteenth adversarial pass's S2).
    const snap = await repo.snapshot(`before ${runId}`, [runRef(runId)]);
    return { commit: snap.commit };
  } catch (err) {
    if (err instanceof GitMissingError) return { warning: GIT_MISSING_NOTE };
    return { warning: `The workspace's files could not be snapshotted before this run (${(err as Error).message.split("\n")[0]}): its file changes cannot be rewound.` };
  }
}

/**
 * Records the files as the run left them, so a later rewind can tell the user's own edits (made after the run) from
 * the run's. Costs one `git status` when the run changed nothing, plus `git add` and a commit when it did; the next
 * run's snapshot then finds nothing new. A run that started no tool left the files as its snapshot from before
 * (`untouched`) found them: that is the record, and costs no git at all (what changed meanwhile is the user's). A
 * failure is silent: without the record, a rewind takes every change since the run's start for the run's, as before
 * this record existed.
 */
export async function snapshotAfterRun(home: string, threadId: string, workspace: string, runId: string, untouched?: string): Promise<void> {
  try {
    if (!(await gitAvailable())) return;
    const repo = shadowRepoOf(home, threadId, workspace);
    if (!repo.exists) return;
    repo.setLeft(untouched ?? (await repo.snapshot(`after ${runId}`, [])).commit);
  } catch {
    // see above
  }
}

/** The first line of a run's input, masked, as `/rewind` lists it (at most 100 characters). */
export function inputLine(prompt: unknown): string | null {
  if (typeof prompt !== "string") return null;
  // Masked before the cut: a key cut at the end would no longer have its shape (stored, listed and exported).
  const line = maskCredentials(prompt.trim().split("\n")[0]!.trim());
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
