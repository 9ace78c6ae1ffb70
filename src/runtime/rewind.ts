// Rewind: put a thread's conversation, its workspace's files, or both back to how they were before one of its runs.
// The conversation goes back to the run's rollback mark (its rows after the mark are archived, not dropped); the
// files go back to the run's snapshot in the shadow repository (after the current files are snapshotted under a
// `refs/deerflow/rewound/<id>` ref). So a rewind loses nothing: `rewind --undo` puts back the last one, and the
// thread can simply continue from where it was rewound to. Everything runs under the thread's lock.
// The user's own edits: what changed in the workspace since deerflow last left it (a run's end, a rewind) is the
// user's, not a run's, so it is left as it is (and named) unless `force`; either way it stays in the rewound ref.
// Crash safety: a rewind that touches files is recorded (pending, with the ref of the files before it) before the
// first file is touched, and marked done with the conversation in one transaction. A process killed in between
// leaves the pending row: the next `rewind` or run on the thread finishes it (what the user asked for), `--undo`
// puts the files back as they were before it, and `doctor` finishes it too.
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
import { type RestoreResult, ShadowRepo, type Snapshot, rewoundRef } from "../snapshots/shadow-repo.js";
import { newId } from "./open-thread.js";
import type { ThreadRuntime } from "./thread-runtime.js";
import { GIT_MISSING_NOTE, shadowRepoOf } from "./workspace-snapshots.js";
import { boundFolderProblem, replaceableFolderLine } from "../sandbox/replaceable-folders.js";

/** One run `/rewind` and `deerflow rewind --list` offer; `back` 1 is the latest. */
export interface RewindableRun {
  back: number;
  run_id: string;
  started_at: string;
  status: string;
  input: string | null;
  /** Files that changed from this run's start to the next run's (the last run: to its end, else now); null when not recorded. */
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
  /** The user's edits since the last run were rewound too (`--force`); otherwise they were left as they are. */
  force: boolean;
  /** This finished a rewind whose process was killed while it rewound the files (nothing new was rewound). */
  resumed: boolean;
}

export interface UndoOutcome {
  rewind_id: string;
  thread_id: string;
  conversation: boolean;
  files: RestoreResult | null;
  /** The ref holding the files as they were before the undo. */
  files_before: { git_dir: string; ref: string; commit: string } | null;
  force: boolean;
}

export interface Target {
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
  // A bound workspace is kept by its real path: one that now leads elsewhere was replaced by a link, and one another
  // user could replace may be by the time files are written (a rewind wrote, and with --force deleted, in the home
  // a swapped link named: A45a-4).
  const why = boundFolderProblem(ws);
  if (why)
    throw new DeerflowError(`${replaceableFolderLine(`The workspace ${ws} of thread ${t.threadId}`, why)}.`, {
      exitCode: ExitCode.usage,
      hint: "Rewind the conversation alone with --conversation-only.",
    });
}

/** A git failure while restoring files, said as what it means for the user. */
function filesError(t: Target, err: unknown, keptRef?: string): DeerflowError {
  if (findDeerflowError(err)) return findDeerflowError(err)!;
  const kept = keptRef ? ` The files from before it are kept at ${keptRef} in ${ShadowRepo.dirFor(t.home, t.threadId)}.` : "";
  return new DeerflowError(`The files of thread ${t.threadId} could not be rewound: ${(err as Error).message.split("\n")[0]}.${kept}`, {
    exitCode: ExitCode.runtime,
    hint: `Nothing of the conversation was changed; fix the cause and run \`deerflow rewind ${t.threadId}\` again to finish it, or \`--undo\` to put the files back.`,
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
      // The last run: up to the files as deerflow left them, so the user's own edits since are not counted as its.
      const to = next ?? (git ? repo.leftCommit() : undefined);
      if (git && r.snapshot && (next || i === runs.length - 1)) files = await repo.changedFiles(r.snapshot, to).catch(() => null);
      out.push({ back: runs.length - i, run_id: r.id, started_at: r.started_at, status: r.status, input: r.input, files_changed: files });
    }
    return out.reverse();
  });
}

/** The shadow repository and a ref in it, as the output names where files are kept. */
const keptAt = (repo: ShadowRepo, ref: string, commit: string) => ({ git_dir: repo.target.gitDir, ref, commit });
/** The left mark (see shadow-repo.ts) as it was before rewind `id`, so undoing the rewind puts it back too. */
const leftBeforeRef = (id: string) => `${rewoundRef(id)}-left`;

/**
 * Rewinds the thread to before its `back`-th latest run (1: undo the last run). A rewind that a killed process left
 * unfinished is finished instead (that is what was asked for; nothing more is rewound).
 */
export function rewindThread(t: Target, back: number, scope: RewindScope, force = false): Promise<RewindOutcome> {
  threadRow(t);
  return t.runtime.withThreadLock(t.threadId, async () => {
    const pending = t.store.rewinds.pendingFor(t.threadId);
    if (pending) return finishRewind(t, pending);
    const runs = t.store.runs.rewindable(t.threadId);
    if (runs.length === 0) throw new UsageError(`Thread ${t.threadId} has no runs to rewind.`);
    if (back > runs.length)
      throw new UsageError(`Thread ${t.threadId} has ${runs.length} run${runs.length === 1 ? "" : "s"} to rewind, not ${back}.`, "List them with `deerflow rewind <thread> --list`.");
    const undone = runs.slice(runs.length - back);
    const target = undone[0]!;
    const row = {
      id: newId("rewind-"),
      thread_id: t.threadId,
      created_at: new Date().toISOString(),
      target_run: target.id,
      scope,
      runs: JSON.stringify(undone.map((r) => r.id)),
      files_before: null,
      rows_archived: 0,
      pending: 0,
      edited: null,
      forced: force ? 1 : 0,
    };

    let filesNote: string | undefined;
    if (scope !== "conversation") {
      const why = !(await gitAvailable()) ? GIT_MISSING_NOTE : !target.snapshot ? `The files were not snapshotted before run ${target.id}, so they cannot be rewound.` : undefined;
      if (why && scope === "files") throw new DeerflowError(why, { exitCode: ExitCode.runtime, hint: "Rewind the conversation alone with --conversation-only." });
      if (why) filesNote = why;
      else {
        workspaceFor(t);
        const repo = repoOf(t);
        let now: Snapshot;
        let edited: string[];
        try {
          now = await repo.snapshot(`before ${row.id}`, [rewoundRef(row.id)]);
          const left = repo.leftCommit();
          edited = left ? await repo.changedFiles(left, now.commit) : [];
          if (left) repo.writeRefTo(leftBeforeRef(row.id), left);
        } catch (err) {
          throw filesError(t, err);
        }
        // The intent, with the ref of the files as they are, is on disk before the first file is touched.
        const pendingRow = { ...row, files_before: now.commit, pending: 1, edited: JSON.stringify(edited) };
        t.store.rewinds.add(pendingRow);
        return finishRewind(t, { ...pendingRow, undone_at: null }, now);
      }
    }
    const archived = rewindConversation(t, { ...row, undone_at: null }, () => t.store.rewinds.add(row));
    return { ...outcomeOf(t, { ...row, undone_at: null, rows_archived: archived }, null, null, false), files_note: filesNote };
  });
}

/**
 * Rewinds the files of a recorded (pending) rewind, then its conversation, and marks it done. `now`: the snapshot
 * just taken; absent when finishing one a killed process left (the files as they are now, half rewound, are
 * snapshotted first, so this too can be repeated).
 */
async function finishRewind(t: Target, row: RewindRow, now?: Snapshot): Promise<RewindOutcome> {
  const resumed = now === undefined;
  const target = t.store.runs.get(row.target_run);
  if (!target?.snapshot)
    throw new DeerflowError(`Rewind ${row.id} of thread ${t.threadId} cannot be finished: the snapshot of run ${row.target_run} is gone.`, {
      exitCode: ExitCode.runtime,
      hint: `Put the files back with \`deerflow rewind ${t.threadId} --undo\`.`,
    });
  workspaceFor(t);
  const repo = repoOf(t);
  let files: RestoreResult;
  try {
    // Half rewound (and anything changed since the kill) stays reachable too.
    now ??= await repo.snapshot(`finishing ${row.id}`, [`${rewoundRef(row.id)}-finishing`]);
    repo.clearLeft();
    files = await repo.restore(target.snapshot, now, { edited: JSON.parse(row.edited ?? "[]") as string[], force: row.forced === 1 });
    repo.setLeft(target.snapshot);
  } catch (err) {
    throw filesError(t, err, rewoundRef(row.id));
  }
  const archived = rewindConversation(t, row, () => t.store.rewinds.finish(row.id, 0));
  const before = row.files_before ? keptAt(repo, rewoundRef(row.id), row.files_before) : null;
  return outcomeOf(t, { ...row, rows_archived: archived }, files, before, resumed);
}

/** The conversation's half, in one transaction with `record` (which writes or finishes the rewind's row). */
function rewindConversation(t: Target, row: RewindRow, record: () => void): number {
  let archived = 0;
  t.store.saver.db
    .transaction(() => {
      record();
      if (row.scope === "files") return;
      const target = t.store.runs.get(row.target_run)!;
      archived = t.store.rewinds.archiveAfter(row.id, t.threadId, JSON.parse(target.mark!) as RollbackMark);
      t.store.runs.markRewound(JSON.parse(row.runs) as string[], row.id);
      t.store.rewinds.finish(row.id, archived);
      t.store.threads.update(t.threadId, { status: statusAfter(t.store.runs.rewindable(t.threadId)) });
    })
    .immediate();
  return archived;
}

function outcomeOf(t: Target, row: RewindRow, files: RestoreResult | null, before: RewindOutcome["files_before"], resumed: boolean): RewindOutcome {
  return {
    rewind_id: row.id,
    thread_id: t.threadId,
    target_run: row.target_run,
    runs: JSON.parse(row.runs) as string[],
    scope: row.scope,
    conversation: row.scope !== "files",
    files,
    files_before: before,
    force: row.forced === 1,
    resumed,
  };
}

/**
 * Finishes the thread's rewind that a killed process left half done, if any; the caller holds the thread's lock
 * (a run about to start, `doctor`). Undefined when there is none (or on a team database, which has no rewinds).
 */
export async function finishInterruptedRewind(t: Omit<Target, "store"> & { store: Store }): Promise<RewindOutcome | undefined> {
  if (t.store.kind !== "sqlite") return undefined;
  const target = { ...t, store: t.store as SqliteStore };
  const pending = target.store.rewinds.pendingFor(t.threadId);
  return pending ? finishRewind(target, pending) : undefined;
}

/** The thread's status once `kept` are its runs: the last one's, or idle. */
function statusAfter(kept: RunRecord[]): ThreadStatus {
  return kept.at(-1)?.status ?? "idle";
}

/**
 * Puts back the thread's last rewind, if nothing ran on the thread since (that would be lost). One a killed process
 * left half done has rewound no conversation yet: its files go back exactly as they were before it.
 */
export function undoRewind(t: Target, force = false): Promise<UndoOutcome> {
  threadRow(t);
  return t.runtime.withThreadLock(t.threadId, async () => {
    const last: RewindRow | undefined = t.store.rewinds.forThread(t.threadId).find((r) => r.undone_at === null);
    if (!last) throw new UsageError(`Thread ${t.threadId} has no rewind to undo.`);
    const since = t.store.runs.forThread(t.threadId).filter((r) => r.started_at > last.created_at && r.mark !== null);
    if (since.length > 0) {
      throw new UsageError(
        `Thread ${t.threadId} went on after rewind ${last.id} (${since.length} run${since.length === 1 ? "" : "s"}); undoing it would drop them.`,
        last.files_before
          ? `The files from before that rewind are in ${ShadowRepo.dirFor(t.home, t.threadId)} at ${rewoundRef(last.id)} (git --git-dir <that> show ${rewoundRef(last.id)}:<path>).`
          : undefined,
      );
    }
    let files: RestoreResult | null = null;
    let before: UndoOutcome["files_before"] = null;
    if (last.files_before) {
      if (!(await gitAvailable())) throw new DeerflowError(GIT_MISSING_NOTE, { exitCode: ExitCode.runtime });
      workspaceFor(t);
      const repo = repoOf(t);
      try {
        const ref = `${rewoundRef(last.id)}-undo`;
        const now = await repo.snapshot(`before undoing ${last.id}`, [ref]);
        before = keptAt(repo, ref, now.commit);
        // Half rewound by a killed process: every difference is the rewind's own, none the user's.
        const left = last.pending === 1 ? undefined : repo.leftCommit();
        const edited = left ? await repo.changedFiles(left, now.commit) : [];
        repo.clearLeft();
        files = await repo.restore(last.files_before, now, { edited, force });
        repo.restoreLeftFrom(leftBeforeRef(last.id));
      } catch (err) {
        throw filesError(t, err);
      }
    }
    const conversation = last.pending === 0 && (last.rows_archived > 0 || last.scope !== "files");
    t.store.saver.db
      .transaction(() => {
        if (conversation) {
          t.store.rewinds.restoreArchived(last.id);
          t.store.runs.clearRewound(last.id);
        }
        t.store.rewinds.markUndone(last.id);
        if (conversation) t.store.threads.update(t.threadId, { status: statusAfter(t.store.runs.rewindable(t.threadId)) });
      })
      .immediate();
    return { rewind_id: last.id, thread_id: t.threadId, conversation, files, files_before: before, force };
  });
}
