// The tables both stores keep (the thread index, runs, run locks, compaction's archive), defined once in SQL that
// SQLite and PostgreSQL both accept; each store adds what only it needs (PostgreSQL: a `seq` for order where SQLite
// has its rowid, a lease expiry). These are the baseline columns: frozen, because migrations that shipped create
// them. A later column is a new numbered migration in both stores (sqlite-schema.ts, postgres-schema.ts).
import { DeerflowError, ExitCode } from "../errors.js";

export interface TableDef {
  name: string;
  columns: readonly string[];
  constraints?: readonly string[];
  indexes?: readonly string[];
}

export const THREADS: TableDef = {
  name: "threads",
  columns: [
    "id TEXT PRIMARY KEY",
    "title TEXT",
    "created_at TEXT NOT NULL",
    "updated_at TEXT NOT NULL",
    "status TEXT NOT NULL DEFAULT 'idle'",
    "workspace TEXT",
    "mode TEXT NOT NULL DEFAULT 'full'",
    "host TEXT",
  ],
  indexes: ["CREATE INDEX IF NOT EXISTS threads_updated ON threads(updated_at DESC)"],
};

export const RUNS: TableDef = {
  name: "runs",
  columns: [
    "id TEXT PRIMARY KEY",
    "thread_id TEXT NOT NULL",
    "status TEXT NOT NULL",
    "stop_reason TEXT",
    "input_tokens INTEGER NOT NULL DEFAULT 0",
    "output_tokens INTEGER NOT NULL DEFAULT 0",
    "started_at TEXT NOT NULL",
    "ended_at TEXT",
    "error TEXT",
    "mark TEXT",
    "snapshot TEXT",
    "input TEXT",
    "rewound_by TEXT",
  ],
  indexes: ["CREATE INDEX IF NOT EXISTS runs_thread ON runs(thread_id, started_at)"],
};

export const RUN_LOCKS: TableDef = {
  name: "run_locks",
  columns: ["thread_id TEXT PRIMARY KEY", "run_id TEXT NOT NULL", "pid INTEGER NOT NULL", "host TEXT NOT NULL", "started_at TEXT NOT NULL", "pid_start TEXT"],
};

export const MESSAGE_ARCHIVE: TableDef = {
  name: "message_archive",
  columns: ["thread_id TEXT NOT NULL", "seq INTEGER NOT NULL", "message_id TEXT NOT NULL", "checkpoint_id TEXT", "role TEXT NOT NULL", "name TEXT", "text TEXT NOT NULL", "archived_at TEXT NOT NULL"],
  constraints: ["PRIMARY KEY (thread_id, seq)", "UNIQUE (thread_id, message_id)"],
};

/** `CREATE TABLE IF NOT EXISTS` for `t` with the store's own `extra` columns, then its indexes. */
export function createTableSql(t: TableDef, extra: readonly string[] = []): string {
  const body = [...t.columns, ...extra, ...(t.constraints ?? [])].map((l) => `  ${l}`).join(",\n");
  return [`CREATE TABLE IF NOT EXISTS ${t.name} (\n${body}\n)`, ...(t.indexes ?? [])].join(";\n") + ";";
}

/** A column definition's name (its first word). */
export const columnName = (def: string): string => def.split(/\s+/)[0]!;

/** Both stores record each migration applied, by number, in this table. */
export const VERSION_TABLE = "deerflow_schema_version";

/** A store whose schema was written by a newer deerflow: refuse rather than guess. */
export class SchemaTooNewError extends DeerflowError {
  constructor(found: number, known: number, where = "The team database") {
    super(`${where} holds deerflow schema version ${found}, newer than this deerflow knows (${known}).`, {
      exitCode: ExitCode.usage,
      hint: "Upgrade deerflow on this machine to the version that wrote it.",
    });
  }
}
