// A run's lease on a team database, at the store: once the heartbeat finds the lease taken over, no write on the
// thread is let through, not even in the moment between finding the loss and naming the run that took it. (Through
// the CLI, a machine woken from a pause wrote its late answer into that moment: team-database-leases.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/persistence/open-store.js";
import type { DeerflowPostgresSaver } from "../../src/persistence/postgres-saver.js";
import { LeaseLostError, type PgRunRecords } from "../../src/persistence/postgres-store.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

describe.skipIf(pgSkip)("leases on a team database, at the store", () => {
  it("a write checked while the heartbeat is still looking up who took the thread is refused", async () => {
    const store = openPostgresStore(db.url, "delta");
    const runs = store.runs as PgRunRecords;
    const pool = (store.saver as DeerflowPostgresSaver).db;
    try {
      const threadId = "thread-taken-over";
      expect(await runs.acquire(threadId, "run-a")).toEqual({ ok: true });
      // Another machine takes the thread over, as acquire does once run-a's lease has run out.
      await pool.query("UPDATE run_locks SET run_id = 'run-b', host = 'machine-b', pid = 4242 WHERE thread_id = $1", [threadId]);

      // A write's lease check lands while the heartbeat asks the database who holds the thread now.
      const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
      let writeCheck: Promise<unknown> | undefined;
      pool.query = ((...args: unknown[]) => {
        if (typeof args[0] === "string" && args[0].startsWith("SELECT * FROM run_locks") && !writeCheck) {
          writeCheck = Promise.resolve()
            .then(() => runs.assertHeld(threadId))
            .then(
              () => "write let through",
              (err: unknown) => err,
            );
        }
        return query(...args);
      }) as typeof pool.query;
      await (runs as unknown as { renew(): Promise<void> }).renew();

      expect(writeCheck).toBeDefined();
      const refused = await writeCheck;
      expect(refused).toBeInstanceOf(LeaseLostError);
      expect(String((refused as Error).message)).toMatch(/lost thread thread-taken-over's lease to run run-b \(pid 4242 on machine-b\)/);
      await expect(runs.assertHeld(threadId)).rejects.toBeInstanceOf(LeaseLostError);
    } finally {
      await store.close();
    }
  });
});
