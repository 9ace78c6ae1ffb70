// One SQLite file per home: <home>/deerflow.sqlite holds the checkpoints, the thread index and the runs (WAL mode).
// Opening it is where the environment's faults are named: a data directory that is a file or cannot be written,
// and a damaged database (checked with `PRAGMA quick_check` when the last process did not close it cleanly).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, accessSync, constants } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { DataDirError, DatabaseCorruptError, StoreWriteError, UsageError } from "../errors.js";
import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { errorChain } from "../vocabulary/error-chain.js";
import { isServerRefusal } from "./postgres-faults.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { type RollbackMark, DeerflowSqliteSaver } from "./sqlite-saver.js";
import { MessageArchive, type MessageArchiveLike } from "./message-archive.js";
import { deleteThreadRows } from "./thread-delete.js";
import { RewindLog } from "./rewind-log.js";
import { RunRecords } from "./run-records.js";
import type { PgRunRecords } from "./postgres-store.js";
import { ThreadIndex } from "./thread-index.js";

export const DB_FILE = "deerflow.sqlite";
/** Runs whose rollback could not be written (disk full): one empty file per run id, undone at the next open. */
const PENDING_ROLLBACK_DIR = "pending-rollback";

type Awaitable<T> = T | Promise<T>;
/** Each method of `T`, also allowed to answer with a promise (the SQLite classes answer at once, PostgreSQL later). */
type AwaitableMethods<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Awaitable<Awaited<R>> : T[K] };

export type ThreadStore = AwaitableMethods<Pick<ThreadIndex, "get" | "list" | "latest" | "create" | "update">>;
export type RunStore = AwaitableMethods<
  Pick<RunRecords, "acquire" | "release" | "create" | "start" | "setSnapshot" | "rewindable" | "markRewound" | "clearRewound" | "deleteThread" | "finish" | "get" | "forThread" | "reapStale">
> & {
  /** Leases that can be lost while held (a team database): hear when one is found taken over. */
  onLeaseLost?: PgRunRecords["onLeaseLost"];
};
export type ArchiveStore = MessageArchiveLike;

/** The checkpointer of a store: a guarded LangGraph saver with rollback marks. */
export type StoreSaver = BaseCheckpointSaver & {
  readonly channelMode: ChannelMode;
  mark(): Awaitable<RollbackMark>;
  rollbackTo(threadId: string, mark: RollbackMark): Awaitable<void>;
  /**
   * Slims the thread's step checkpoints that rollback and rewind (the runs' `marks`) cannot go back to; the policy is
   * in checkpoint-prune.ts (both stores have it). Optional: a saver without it keeps every checkpoint whole.
   */
  prune?(threadId: string, marks: readonly RollbackMark[]): Awaitable<unknown>;
};

/**
 * Everything deerflow keeps for its threads, behind one interface with two implementations: the SQLite file of a
 * home (`openSqliteStore`, the default) and a team database (`openPostgresStore`, when `database` is a postgres://
 * URL). Callers await every method; they never learn which one they have.
 */
export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Where it lives, as it may be printed: the file's path, or the URL without its password. */
  path: string;
  saver: StoreSaver;
  threads: ThreadStore;
  runs: RunStore;
  archive: ArchiveStore;
  /** Rewind's archive of undone checkpoint rows (SQLite only for now: undefined on a team database). */
  rewinds: RewindLog | undefined;
  /** The SQLite handle, for the few SQLite-only features (rewind); undefined on a team database. */
  sqlite: Database.Database | undefined;
  /** `threads rm`: the thread's rows in every table. */
  deleteThreadRows(threadId: string): Awaitable<Record<string, number>>;
  close(): Awaitable<void>;
}

/** The SQLite result code behind an error (`SQLITE_CORRUPT`, `SQLITE_FULL`, …), if any. */
export function sqliteCode(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  }
  return undefined;
}

export function isCorruption(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB" || code?.startsWith("SQLITE_CORRUPT_") === true;
}

/** The store could not write: disk full, I/O error, read-only file (or the team database's server refused it). */
export function isStoreWriteFailure(err: unknown): boolean {
  if (isServerRefusal(err)) return true;
  const code = sqliteCode(err);
  if (code === "SQLITE_FULL" || code?.startsWith("SQLITE_IOERR") || code?.startsWith("SQLITE_READONLY")) return true;
  return errorChain(err).some((e) => (e as { code?: unknown } | null)?.code === "ENOSPC");
}

/** The data directory exists as a directory we can write, or is created; anything else is a DataDirError. */
export function checkDataDir(home: string): void {
  if (existsSync(home) && !statSync(home).isDirectory()) throw new DataDirError(home, "is a file, not a directory", "Move the file out of the way");
  try {
    mkdirSync(home, { recursive: true });
    accessSync(home, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") throw new DataDirError(home, "is inside a file, not a directory", "Move that file out of the way");
    if (code === "EROFS") throw new DataDirError(home, "is on a read-only file system", "Remount it writable");
    if (code === "ENOSPC") throw new DataDirError(home, "cannot be created: the disk is full", "Free disk space");
    throw new DataDirError(home, existsSync(home) ? `cannot be written (${code ?? "error"})` : `cannot be created (${code ?? "error"})`);
  }
}

/** What `PRAGMA quick_check` found, on one line (undefined: the file is sound). */
export function quickCheckProblem(db: Database.Database): string | undefined {
  const rows = db.pragma("quick_check") as { quick_check: string }[];
  const problems = rows
    .flatMap((r) => r.quick_check.split("\n"))
    .map((l) => l.trim())
    .filter((l) => l && l !== "ok" && !l.startsWith("***"));
  if (problems.length === 0) return undefined;
  return `${problems[0]}${problems.length > 1 ? `; ${problems.length - 1} more problems` : ""}`;
}

function quickCheck(db: Database.Database, path: string): void {
  const problem = quickCheckProblem(db);
  if (problem) throw new DatabaseCorruptError(path, `quick_check: ${problem}`);
}

/** The SQLite store with its concrete (synchronous) parts, for the SQLite-only features (rewind). */
export interface SqliteStore extends Store {
  readonly kind: "sqlite";
  saver: DeerflowSqliteSaver;
  threads: ThreadIndex;
  runs: RunRecords;
  rewinds: RewindLog;
  sqlite: Database.Database;
}

/** `store` as the SQLite store a feature needs, or a one-line refusal naming the feature on a team database. */
export function sqliteStoreOf(store: Store, feature: string): SqliteStore {
  if (store.kind === "sqlite") return store as SqliteStore;
  throw new UsageError(`${feature} is not available on a team database yet (${store.path}).`, "Use it on a home without `database` set.");
}

export function openSqliteStore(home: string, channelMode: ChannelMode): SqliteStore {
  checkDataDir(home);
  const path = join(home, DB_FILE);
  // A -wal file left behind means the last process did not close the database (killed, crashed, or still open).
  const unclean = existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0;
  let saver: DeerflowSqliteSaver | undefined;
  try {
    saver = DeerflowSqliteSaver.open(path, { channelMode });
    if (unclean) quickCheck(saver.db, path);
    const threads = new ThreadIndex(saver.db);
    const runs = new RunRecords(saver.db);
    const s = saver;
    const rewinds = new RewindLog(saver.db);
    const store: SqliteStore = {
      kind: "sqlite" as const,
      path,
      saver: s,
      threads,
      runs,
      archive: new MessageArchive(s.db),
      rewinds,
      sqlite: s.db,
      deleteThreadRows: (threadId: string) => deleteThreadRows(s.db, threadId),
      close: () => s.close(),
    };
    applyPendingRollbacks(home, store);
    // Readers too: `threads` must not show a killed run as running.
    if (runs.staleLocks().length > 0 || threads.list().some((t) => t.status === "running" || t.status === "pending")) runs.reapStale();
    return store;
  } catch (err) {
    saver?.close();
    if (isCorruption(err)) throw new DatabaseCorruptError(path, (err as Error).message);
    // Opening writes too (WAL set-up, the schema, reaping dead runs): a full disk or a read-only file stops it here.
    if (isStoreWriteFailure(err)) throw new StoreWriteError(path, (err as Error).message, "nothing-changed", sqliteCode(err)?.startsWith("SQLITE_READONLY"));
    if (sqliteCode(err) === "SQLITE_CANTOPEN") {
      if (existsSync(path) && statSync(path).isDirectory()) throw new DataDirError(home, `holds a directory named ${DB_FILE} where the database file belongs`, "Move that directory out of the way");
      throw new DataDirError(home, `does not let deerflow open ${DB_FILE}`);
    }
    throw err;
  }
}

/**
 * Remembers (outside the store, in a file per run id holding the store's printable path) that a failed run's changes
 * must still be undone: the disk was full, or the team database was gone.
 */
export function notePendingRollback(home: string, runId: string, storePath: string): boolean {
  try {
    mkdirSync(join(home, PENDING_ROLLBACK_DIR), { recursive: true });
    writeFileSync(join(home, PENDING_ROLLBACK_DIR, runId), storePath);
    return true;
  } catch {
    return false;
  }
}

/** The runs of `storePath` whose rollback is pending in `home` (files from before the path was kept are SQLite's). */
export function pendingRollbacks(home: string, storePath: string, kind: Store["kind"]): { runId: string; done(): void }[] {
  const dir = join(home, PENDING_ROLLBACK_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((runId) => {
    const file = join(dir, runId);
    let owner: string;
    try {
      owner = readFileSync(file, "utf8");
    } catch {
      return []; // not a file we wrote
    }
    if (owner ? owner !== storePath : kind !== "sqlite") return [];
    return [{ runId, done: () => rmSync(file, { force: true }) }];
  });
}

/** Undoes the runs a store failure left half-written: the thread is as before the run, the run is `error`. */
function applyPendingRollbacks(home: string, store: { path: string; saver: DeerflowSqliteSaver; runs: RunRecords; threads: ThreadIndex }): void {
  for (const { runId, done } of pendingRollbacks(home, store.path, "sqlite")) {
    const run = store.runs.get(runId);
    if (run?.mark) {
      store.saver.rollbackTo(run.thread_id, JSON.parse(run.mark) as RollbackMark);
      store.runs.finish(runId, {
        status: "error",
        stop_reason: "error",
        input_tokens: run.input_tokens,
        output_tokens: run.output_tokens,
        error: run.error ?? "the store could not write (rolled back when reopened)",
      });
      store.threads.update(run.thread_id, { status: "error" });
    }
    done();
  }
}
