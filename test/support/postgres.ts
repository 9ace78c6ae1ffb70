// A throwaway PostgreSQL database per test file (created in beforeAll, dropped in afterAll), on the server the
// global setup found or started. `pgSkip` says why the file is skipped when no server could be had (never in CI).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

const ADMIN_URL = inject("pgUrl");
export const pgSkip: string | undefined = ADMIN_URL ? undefined : inject("pgSkip") || "the PostgreSQL global setup did not run";

/** The admin URL with another database name. */
export function urlFor(db: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** Creates a fresh database; returns its URL and a drop function (ends leftover connections first). */
export async function createTestDatabase(prefix = "dftest"): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: urlFor(name),
    // Not `WITH (FORCE)`: on PostgreSQL 15 a non-superuser's forced drop fails when an autovacuum worker happens to
    // be in the database ("must be a member of the role whose process is being terminated"). Ending our own
    // connections and a plain DROP is enough: DROP DATABASE itself stops autovacuum workers and waits for them.
    drop: () =>
      admin(async (c) => {
        await c.query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND usename = current_user", [name]);
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
      }),
  };
}

/** What deerflow's migrations record; kept when a database is emptied so the next setup finds nothing to migrate. */
const MIGRATION_TABLES = ["checkpoint_migrations", "deerflow_schema_version"];

/** Empties a database for its next test: every row of deerflow's tables (not its migrations' records), every other schema but the system ones and `public`. */
async function emptyDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: schemas } = await c.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('information_schema', 'public', 'deerflow')");
    for (const r of schemas) await c.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
    const { rows: tables } = await c.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'deerflow' AND table_type = 'BASE TABLE' AND NOT (table_name = ANY($1))",
      [MIGRATION_TABLES],
    );
    // DELETE, not TRUNCATE: on these few rows it is one commit, where TRUNCATE makes and syncs a new file per table.
    if (tables.length > 0) await c.query(tables.map((t) => `DELETE FROM deerflow."${t.table_name}";`).join("\n"));
  } finally {
    await c.end();
  }
}

/**
 * Databases handed out again after use, for tests that need many empty ones (the checkpoint-validation suite asks
 * for ~70): `take` returns a free database, emptied (emptyDatabase), creating one only when none is free; `give`
 * returns it once its connections are closed; `dropAll` in afterAll. Emptying costs milliseconds where a CREATE
 * DATABASE and its DROP cost about a second on a loaded machine, and deerflow's migrations on a new database over
 * half a second more. For tests that want an empty database, not a new one: settings made with ALTER DATABASE and
 * changes to deerflow's own tables survive; tests that make them create their own database.
 */
export function reusableDatabases(prefix = "dfreuse") {
  const free: Awaited<ReturnType<typeof createTestDatabase>>[] = [];
  const all: typeof free = [];
  return {
    async take(): Promise<{ url: string; name: string }> {
      let db = free.pop();
      if (!db) all.push((db = await createTestDatabase(prefix)));
      await emptyDatabase(db.url);
      return db;
    },
    give(db: { name: string }): void {
      const owned = all.find((d) => d.name === db.name);
      if (owned && !free.includes(owned)) free.push(owned);
    },
    async dropAll(): Promise<void> {
      for (const db of all.splice(0)) await db.drop();
      free.length = 0;
    },
  };
}
