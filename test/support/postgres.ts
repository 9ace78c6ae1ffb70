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
    drop: () => admin(async (c) => {
      await c.query(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND usename = current_user",
        [name],
      );
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
    }),
  };
}
