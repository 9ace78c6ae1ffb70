// `deerflow threads rm <id>`: a thread and everything deerflow keeps for it — its rows in every table (checkpoints,
// runs, archives, rewinds), and its directory `threads/<id>/` (its own workspace, uploads, outputs and the shadow
// repository of its snapshots), and its share of the workspace's snapshot store (the store goes with the last thread
// that used it). A workspace bound with --workspace is the user's directory and is never deleted.
// A busy thread is refused; a kill halfway leaves either the thread whole or its directory to be removed by a re-run.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import type { Store } from "../persistence/store.js";
import { WorkspaceStore } from "../snapshots/workspace-store.js";
import { assertSafeThreadId } from "../sandbox/provider.js";
import type { ThreadRuntime } from "./thread-runtime.js";

export interface DeletedThread {
  thread_id: string;
  /** The thread's directory under the data directory, removed. */
  removed_dir: string | null;
  /** A bound workspace, left in place. */
  kept_workspace: string | null;
  rows: number;
}

export async function deleteThread(home: string, store: Store | undefined, runtime: ThreadRuntime | undefined, threadId: string): Promise<DeletedThread> {
  try {
    assertSafeThreadId(threadId);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const dir = join(home, "threads", threadId);
  const row = await store?.threads.get(threadId);
  if (!row || !store || !runtime) {
    // A re-run after a kill between the rows and the directory: finish the job.
    if (existsSync(dir)) {
      rmSync(dir, { recursive: true, force: true });
      WorkspaceStore.leaveAll(home, threadId);
      return { thread_id: threadId, removed_dir: dir, kept_workspace: null, rows: 0 };
    }
    throw new UsageError(`Thread ${threadId} not found.`, "List threads with `deerflow threads`.");
  }
  return runtime.withThreadLock(threadId, async () => {
    const counts = await store.deleteThreadRows(threadId);
    const ownWorkspace = join(dir, "workspace");
    const bound = row.workspace && row.workspace !== ownWorkspace ? row.workspace : null;
    // rmSync removes symlinks, never what they point to; a bound workspace lives outside this directory.
    const had = existsSync(dir);
    rmSync(dir, { recursive: true, force: true });
    WorkspaceStore.leaveAll(home, threadId);
    return { thread_id: threadId, removed_dir: had ? dir : null, kept_workspace: bound, rows: Object.values(counts).reduce((a, b) => a + b, 0) };
  });
}
