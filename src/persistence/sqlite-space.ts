// Giving the SQLite file's freed pages back to the disk (docs/architecture.md, Checkpoints, Pruning). SQLite keeps the pages that
// pruning and deletes free inside the file for reuse; a file in `auto_vacuum = INCREMENTAL` mode can cut them off its
// end (`PRAGMA incremental_vacuum`), which moves pages, never rows, so rowids (what rollback marks hold) stay put.
// New files are created in that mode. An existing file changes mode only through one full VACUUM, done once on open
// (see `migrateToIncrementalVacuum`). In WAL mode what is cut off reaches the main file at a checkpoint, and the -wal
// file keeps its size until it is truncated: both are done after each prune.
import type Database from "better-sqlite3";

/** `PRAGMA auto_vacuum`'s value for INCREMENTAL. */
const INCREMENTAL = 2;

/**
 * The tables whose rowids rollback marks and rewinds hold. SQLite's VACUUM copies a table's rowids as they are when
 * the table has an index (here the PRIMARY KEY's) and renumbers them when it has none (the `xferOptimization` in
 * sqlite3.c, checked against the SQLite that better-sqlite3 ships by test/persistence/free-pages.test.ts). Of
 * deerflow's tables only rewind's archives (`rewound_*`) have no index: their rows keep their order, and they carry
 * the rowid that matters as a column (`orig_rowid`).
 */
const MARKED_TABLES = ["checkpoints", "writes", "checkpoint_blobs"] as const;

/**
 * Before the first table exists: the file is created in INCREMENTAL mode. Only then: on an existing file the pragma
 * is a write, which a read-only file (chattr +i, a read-only mount) refuses, and reading must still work there.
 */
export function createIncremental(db: Database.Database): void {
  if (db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get() !== undefined) return;
  db.pragma("auto_vacuum = INCREMENTAL");
}

const hasIndex = (db: Database.Database, table: string) => (db.prepare(`PRAGMA index_list("${table}")`).all() as unknown[]).length > 0;
const hasTable = (db: Database.Database, table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;

/**
 * A file created before INCREMENTAL mode is switched to it with one VACUUM (which also packs it). Only when it is
 * safe and cheap to wait for: never inside a transaction, never while a run holds a thread's lock (a VACUUM holds
 * the write lock for as long as it copies the file, and a run in another process must not wait on it), and only when
 * every marked table has the index that makes VACUUM keep its rowids. Anything that stops it (another process
 * writing, a full disk) leaves the file as it was, VACUUM being atomic: the next open tries again.
 * Returns whether the file is now in INCREMENTAL mode.
 */
export function migrateToIncrementalVacuum(db: Database.Database): boolean {
  if (db.pragma("auto_vacuum", { simple: true }) === INCREMENTAL) return true;
  if (db.memory || db.inTransaction) return false;
  if (!MARKED_TABLES.every((t) => hasTable(db, t) && hasIndex(db, t))) return false;
  if (hasTable(db, "run_locks") && db.prepare("SELECT 1 FROM run_locks LIMIT 1").get() !== undefined) return false;
  try {
    db.pragma("auto_vacuum = INCREMENTAL");
    db.exec("VACUUM");
  } catch {
    // see above
  } finally {
    // A VACUUM writes the whole file through the WAL (a failed one may have grown it too).
    truncateWal(db);
  }
  return db.pragma("auto_vacuum", { simple: true }) === INCREMENTAL;
}

/**
 * Checkpoints the WAL into the file and truncates it to zero bytes, without waiting: another process reading or
 * writing right now makes it do what it can and return (the next one finishes it).
 */
function truncateWal(db: Database.Database): void {
  if (db.memory || db.inTransaction) return;
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 0");
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // busy or not in WAL mode: nothing to give back now
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/** Cuts the file's free pages off its end (INCREMENTAL mode; a no-op otherwise) and gives the WAL's space back. */
export function returnFreePages(db: Database.Database): void {
  if (db.inTransaction) return;
  try {
    db.pragma("incremental_vacuum");
  } catch {
    // another writer holds the lock: the pages stay free inside the file until the next prune
  }
  truncateWal(db);
}
