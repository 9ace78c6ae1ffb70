// The SQLite file's schema (WAL, a busy timeout for concurrent processes), created and migrated on open by numbered
// migrations recorded in the version table, as on a team database (postgres-schema.ts). Migration 1 is the baseline:
// it also brings a file from before the version table (or a stock SqliteSaver file) up to it, adding the columns
// that were once added ad hoc. Never edit a migration that shipped: append.
import type Database from "better-sqlite3";
import { createIncremental, migrateToIncrementalVacuum } from "./sqlite-space.js";
import { MESSAGE_ARCHIVE, RUNS, RUN_LOCKS, SchemaTooNewError, type TableDef, THREADS, VERSION_TABLE, columnName, createTableSql } from "./schema-tables.js";

const CHECKPOINT_TABLES = `
CREATE TABLE IF NOT EXISTS checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  type TEXT,
  checkpoint BLOB,
  metadata BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT,
  value BLOB,
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  version TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);`;

/** `t` as the baseline has it: created, or (a file from before the version table) given the columns it lacks. */
function baselineTable(db: Database.Database, t: TableDef): void {
  db.exec(createTableSql(t));
  const have = new Set((db.prepare(`PRAGMA table_info(${t.name})`).all() as { name: string }[]).map((c) => c.name));
  for (const def of t.columns) if (!have.has(columnName(def))) db.exec(`ALTER TABLE ${t.name} ADD COLUMN ${def}`);
}

/** The migrations, in order; the index + 1 is the version recorded. */
export const SQLITE_MIGRATIONS: readonly ((db: Database.Database) => void)[] = [
  // 1: checkpoints (a stock SqliteSaver's `writes` lacks task_path), the thread index, runs, run locks, the archive.
  (db) => {
    db.exec(CHECKPOINT_TABLES);
    baselineTable(db, { name: "writes", columns: ["task_path TEXT NOT NULL DEFAULT ''"] });
    for (const t of [THREADS, RUNS, RUN_LOCKS, MESSAGE_ARCHIVE]) baselineTable(db, t);
  },
];

export function ensureSchema(db: Database.Database): void {
  // First: a new file takes its auto_vacuum mode before its first table (sqlite-space.ts).
  createIncremental(db);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  migrateSqlite(db);
  migrateToIncrementalVacuum(db);
}

/** The version recorded in the file (0: none yet). */
export function sqliteSchemaVersion(db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(VERSION_TABLE);
  if (!table) return 0;
  return (db.prepare(`SELECT MAX(v) AS v FROM ${VERSION_TABLE}`).get() as { v: number | null }).v ?? 0;
}

/** Applies the migrations the file lacks, each in the same IMMEDIATE transaction as its version row. */
function migrateSqlite(db: Database.Database): void {
  // Most opens find nothing to do: a read, no write lock.
  if (sqliteSchemaVersion(db) === SQLITE_MIGRATIONS.length) return;
  const migrate = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (v INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`);
    const current = sqliteSchemaVersion(db);
    if (current > SQLITE_MIGRATIONS.length) throw new SchemaTooNewError(current, SQLITE_MIGRATIONS.length, db.name);
    for (let v = current + 1; v <= SQLITE_MIGRATIONS.length; v++) {
      SQLITE_MIGRATIONS[v - 1]!(db);
      db.prepare(`INSERT INTO ${VERSION_TABLE} (v) VALUES (?)`).run(v);
    }
  });
  migrate.immediate();
}
