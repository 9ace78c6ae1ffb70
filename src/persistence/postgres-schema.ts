// deerflow's tables in PostgreSQL live in their own schema (`deerflow`; connections set `search_path` to it), so a
// database shared with another application never mixes tables. Created and migrated on first use: LangGraph's own
// migrations (its `checkpoint_migrations` table), then ours, numbered, recorded in `deerflow_schema_version`.
// Concurrent first uses from several machines serialize on a session advisory lock.
import type pg from "pg";
import { DeerflowError, ExitCode } from "../errors.js";
import { MESSAGE_ARCHIVE, RUNS, RUN_LOCKS, SchemaTooNewError, THREADS, VERSION_TABLE, createTableSql } from "./schema-tables.js";

export { SchemaTooNewError };

export const PG_SCHEMA = "deerflow";
/** Key of the advisory lock that serializes migrations (any constant; "deerflow" in ASCII). */
const MIGRATION_LOCK = 0x6465657266;

/** Our migrations, in order; the index + 1 is the version recorded. Never edit one that shipped: append. */
export const PG_MIGRATIONS: readonly string[] = [
  // 1: what the SQLite saver adds to the stock tables (pending-write order, rollback marks).
  `ALTER TABLE checkpoint_writes ADD COLUMN IF NOT EXISTS task_path TEXT NOT NULL DEFAULT '';
   ALTER TABLE checkpoints ADD COLUMN IF NOT EXISTS seq BIGSERIAL;
   ALTER TABLE checkpoint_writes ADD COLUMN IF NOT EXISTS seq BIGSERIAL;
   ALTER TABLE checkpoint_blobs ADD COLUMN IF NOT EXISTS seq BIGSERIAL;
   CREATE INDEX IF NOT EXISTS checkpoints_thread_seq ON checkpoints(thread_id, seq);`,
  // 2: the thread index, runs and the per-thread run lease (the columns SQLite has, plus order and the lease's expiry).
  [createTableSql(THREADS, ["seq BIGSERIAL"]), createTableSql(RUNS, ["seq BIGSERIAL"]), createTableSql(RUN_LOCKS, ["expires_at TIMESTAMPTZ NOT NULL"])].join("\n"),
  // 3: compaction's archive of original messages.
  createTableSql(MESSAGE_ARCHIVE),
];

/** A `deerflow` schema that deerflow did not make (tables of another application): refuse to touch it. */
export class ForeignSchemaError extends DeerflowError {
  constructor(tables: string[]) {
    super(`The database already has a schema "${PG_SCHEMA}" with tables deerflow did not create (${tables.slice(0, 3).join(", ")}).`, {
      exitCode: ExitCode.usage,
      hint: "Point `database` at a database of its own for deerflow (createdb deerflow), or rename that schema.",
    });
  }
}

/** Runs `stockSetup` (LangGraph's migrations) and ours, under one advisory lock. */
export async function migratePostgres(pool: pg.Pool, stockSetup: () => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await refuseForeignSchema(client);
    await stockSetup();
    await client.query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (v INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>(`SELECT MAX(v) AS v FROM ${VERSION_TABLE}`);
    const current = rows[0]?.v ?? 0;
    if (current > PG_MIGRATIONS.length) throw new SchemaTooNewError(current, PG_MIGRATIONS.length);
    for (let v = current + 1; v <= PG_MIGRATIONS.length; v++) {
      await client.query("BEGIN");
      try {
        await client.query(PG_MIGRATIONS[v - 1]!);
        await client.query(`INSERT INTO ${VERSION_TABLE} (v) VALUES ($1)`, [v]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

async function refuseForeignSchema(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [PG_SCHEMA]);
  const names = rows.map((r) => r.table_name);
  if (names.length > 0 && !names.includes(VERSION_TABLE) && !names.includes("checkpoint_migrations")) throw new ForeignSchemaError(names);
}

/** The schema version a database holds (0: none yet). */
export async function schemaVersion(pool: pg.Pool): Promise<number> {
  try {
    const { rows } = await pool.query<{ v: number | null }>(`SELECT MAX(v) AS v FROM ${VERSION_TABLE}`);
    return rows[0]?.v ?? 0;
  } catch {
    return 0;
  }
}
