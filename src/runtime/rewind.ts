// Rewind: put a thread's conversation, its workspace's files, or both back to how they were before one of its runs.
// The conversation goes back to the run's rollback mark (its rows after the mark are archived, not dropped); the
// files go back to the run's snapshot in the shadow repository (after the current files are snapshotted under a
// `refs/deerflow/rewound/<id>` ref). So a rewind loses nothing: `rewind --undo` puts back the last one, and the
// thread can simply continue from where it was rewound to. Everything runs under the thread's lock.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DeerflowError, ExitCode, UsageError, findDeerflowError } from "../errors.js";
import type { RewindRow, RewindScope } from "../persistence/rewind-log.js";
import type { RollbackMark } from "../persistence/sqlite-saver.js";
import type { RunRecord } from "../persistence/run-records.js";
import { type SqliteStore, type Store, sqliteStoreOf } from "../persistence/store.js";
import { machineName } from "../persistence/machine.js";
import type { ThreadStatus } from "../vocabulary/statuses.js";
import { gitAvailable } from "../snapshots/git.js";
import { type RestoreResult, ShadowRepo, rewoundRef } from "../snapshots/shadow-repo.js";
import { newId } from "./open-thread.js";
import type { ThreadRuntime } from "./thread-runtime.js";
import { GIT_MISSING_NOTE, shadowRepoOf } from "./workspace-snapshots.js";

/** One run `/rewind` and `deerflow rewind --list` offer; `back` 1 is the latest. */
export interface RewindableRun {
  back: number;
  run_id: string;
  started_at: string;
  status: string;
  input: string | null;
  /** Files that changed from this run's start to the next run's (the last run: to now); null when not recorded. */
  files_changed: string[] | null;
}

export interface RewindOutcome {
  rewind_id: string;
  thread_id: string;
  /** The thread is now as before this run. */
  target_run: string;
  /** The runs undone, oldest first. */
  runs: string[];
  scope: RewindScope;
  conversation: boolean;
  files: RestoreResult | null;
  /** Why the files were not rewound although asked (git missing, no snapshot before that run). */
  files_note?: string;
  /** The shadow repository and the ref holding the files as they were before the rewind. */
  files_before: { git_dir: string; ref: string; commit: string } | null;
}

export interface UndoOutcome {
  rewind_id: string;
  thread_id: string;
  conversation: boolean;
  files: RestoreResult | null;
}

interface Target {
  home: string;
  store: SqliteStore;
  runtime: ThreadRuntime;
  threadId: string;
}

/**
 * The store a rewind of `threadId` works on. The shadow-git snapshots of a thread's files live with its workspace on
 * the machine it runs on, so on a team database a thread that last ran on another machine is refused here (exit 2).
 */
export async function rewindStoreFor(store: Store, threadId: string): Promise<SqliteStore> {
  if (store.kind !== "sqlite") {
    const row = await store.threads.get(threadId);
    if (row?.host && row.host !== machineName()) {
      throw new UsageError(
        `Thread ${threadId} last ran on ${row.host}; its workspace and file snapshots are there, not on this machine (${machineName()}), so it cannot be rewound here.`,
        `Rewind it on ${row.host}; here you can inspect it with \`deerflow threads show ${threadId}\`.`,
      );
    }
  }
  return sqliteStoreOf(store, "Rewind");
}

function threadRow(t: Target) {
  const row = t.store.threads.get(t.threadId);
  if (!row) throw new UsageError(`Thread ${t.threadId} not found.`, "List threads with `deerflow threads`.");
  return row;
}

function repoOf(t: Target): ShadowRepo {
  return shadowRepoOf(t.home, t.threadId, threadRow(t).workspace ?? "");
}

/** The workspace the files go back to: a bound one that was moved or deleted is an error, never a fresh directory. */
function workspaceFor(t: Target): void {
  const ws = threadRow(t).workspace ?? "";
  const own = join(t.home, "threads", t.threadId, "workspace");
  if (ws === own) return void mkdirSync(own, { recursive: true });
  if (!existsSync(ws) || !statSync(ws).isDirectory()) {
    throw new DeerflowError(`The workspace ${ws} of thread ${t.threadId} no longer exists (moved or deleted), so its files cannot be rewound.`, {
      exitCode: ExitCode.usage,
      hint: "Move it back, or rewind the conversation alone with --conversation-only.",
    });
  }
}

/** A git failure while restoring files, said as what it means for the user. */
function filesError(t: Target, err: unknown): DeerflowError {
  if (findDeerflowError(err)) return findDeerflowError(err)!;
  return new DeerflowError(`The files of thread ${t.threadId} could not be rewound: ${(err as Error).message.split("\n")[0]}.`, {
    exitCode: ExitCode.runtime,
    hint: "Nothing of the conversation was changed; fix the cause and run the rewind again (it can be repeated).",
  });
}

/** The thread's runs a rewind can go back over, newest first, with the files each changed. */
export function listRewindable(t: Target): Promise<RewindableRun[]> {
  threadRow(t);
  return t.runtime.withThreadLock(t.threadId, async () => {
    const runs = t.store.runs.rewindable(t.threadId);
    const repo = repoOf(t);
    const git = repo.exists && (await gitAvailable());
    const out: RewindableRun[] = [];
    for (let i = 0; i < runs.length; i++) {
      const r = runs[i]!;
      const next = runs[i + 1]?.snapshot;
      let files: string[] | null = null;
      if (git && r.snapshot && (next || i === runs.length - 1)) files = await repo.changedFiles(r.snapshot, next ?? undefined).catch(() => null);
      out.push({ back: runs.length - i, run_id: r.id, started_at: r.started_at, status: r.status, input: r.input, files_changed: files });
    }
    return out.reverse();
  });
}

/** Rewinds the thread to before its `back`-th latest run (1: undo the last run). */
export function rewindThread(t: Target, back: number, scope: RewindScope): Promise<RewindOutcome> {
  threadRow(t);
  return t.runtime.withThreadLock(t.threadId, async () => {
    const runs = t.store.runs.rewindable(t.threadId);
    if (runs.length === 0) throw new UsageError(`Thread ${t.threadId} has no runs to rewind.`);
    if (back > runs.length) throw new UsageError(`Thread ${t.threadId} has ${runs.length} run${runs.length === 1 ? "" : "s"} to rewind, not ${back}.`, "List them with `deerflow rewind <thread> --list`.");
    const undone = runs.slice(runs.length - back);
    const target = undone[0]!;
    const id = newId("rewind-");
    const wantFiles = scope !== "conversation";
    const wantConversation = scope !== "files";

    let files: RestoreResult | null = null;
    let filesBefore: RewindOutcome["files_before"] = null;
    let filesNote: string | undefined;
    if (wantFiles) {
      const why = !(await gitAvailable()) ? GIT_MISSING_NOTE : !target.snapshot ? `The files were not snapshotted before run ${target.id}, so they cannot be rewound.` : undefined;
      if (why && scope === "files") throw new DeerflowError(why, { exitCode: ExitCode.runtime, hint: "Rewind the conversation alone with --conversation-only." });
      if (why) filesNote = why;
      else {
        workspaceFor(t);
        const repo = repoOf(t);
        try {
          const now = await repo.snapshot(`before ${id}`, [rewoundRef(id)]);
          filesBefore = { git_dir: repo.target.gitDir, ref: rewoundRef(id), commit: now.commit };
          files = await repo.restore(target.snapshot!, now);
        } catch (err) {
          throw filesError(t, err);
        }
      }
    }
    let archived = 0;
    t.store.saver.db.transaction(() => {
      if (wantConversation) {
        archived = t.store.rewinds.archiveAfter(id, t.threadId, JSON.parse(target.mark!) as RollbackMark);
        t.store.runs.markRewound(undone.map((r) => r.id), id);
      }
      t.store.rewinds.add({ id, thread_id: t.threadId, created_at: new Date().toISOString(), target_run: target.id, scope, runs: JSON.stringify(undone.map((r) => r.id)), files_before: filesBefore?.commit ?? null, rows_archived: archived });
      if (wantConversation) t.store.threads.update(t.threadId, { status: statusAfter(runs.slice(0, runs.length - back)) });
    }).immediate();
    return { rewind_id: id, thread_id: t.threadId, target_run: target.id, runs: undone.map((r) => r.id), scope, conversation: wantConversation, files, files_note: filesNote, files_before: filesBefore };
  });
}

/** The thread's status once `kept` are its runs: the last one's, or idle. */
function statusAfter(kept: RunRecord[]): ThreadStatus {
  return kept.at(-1)?.status ?? "idle";
}

/** Puts back the thread's last rewind, if nothing ran on the thread since (that would be lost). */
export function undoRewind(t: Target): Promise<UndoOutcome> {
  threadRow(t);
  return t.runtime.withThreadLock(t.threadId, async () => {
    const last: RewindRow | undefined = t.store.rewinds.forThread(t.threadId).find((r) => r.undone_at === null);
    if (!last) throw new UsageError(`Thread ${t.threadId} has no rewind to undo.`);
    const since = t.store.runs.forThread(t.threadId).filter((r) => r.started_at > last.created_at && r.mark !== null);
    if (since.length > 0) {
      throw new UsageError(
        `Thread ${t.threadId} went on after rewind ${last.id} (${since.length} run${since.length === 1 ? "" : "s"}); undoing it would drop them.`,
        last.files_before ? `The files from before that rewind are in ${ShadowRepo.dirFor(t.home, t.threadId)} at ${rewoundRef(last.id)} (git --git-dir <that> show ${rewoundRef(last.id)}:<path>).` : undefined,
      );
    }
    let files: RestoreResult | null = null;
    if (last.files_before) {
      if (!(await gitAvailable())) throw new DeerflowError(GIT_MISSING_NOTE, { exitCode: ExitCode.runtime });
      workspaceFor(t);
      const repo = repoOf(t);
      try {
        const now = await repo.snapshot(`before undoing ${last.id}`, [`${rewoundRef(last.id)}-undo`]);
        files = await repo.restore(last.files_before, now);
      } catch (err) {
        throw filesError(t, err);
      }
    }
    const conversation = last.rows_archived > 0 || last.scope !== "files";
    t.store.saver.db.transaction(() => {
      if (conversation) {
        t.store.rewinds.restoreArchived(last.id);
        t.store.runs.clearRewound(last.id);
      }
      t.store.rewinds.markUndone(last.id);
      if (conversation) t.store.threads.update(t.threadId, { status: statusAfter(t.store.runs.rewindable(t.threadId)) });
    }).immediate();
    return { rewind_id: last.id, thread_id: t.threadId, conversation, files };
  });
}
