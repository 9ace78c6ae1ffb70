// The writes outside checkpoint put/putWrites, fenced by the run's lease on a team database. Machine A holds a
// thread; it is paused past its lease (here: its lease row is made to run out, the pause itself is invisible to the
// store) and machine B takes the thread over. A, woken, still believes its lease fresh: its in-process check passes.
// What it then writes must not land: the thread's status and title, its own run's record, the message archive, a
// rollback (which would delete B's rows). And a renewal whose answer A read only after waking must not make a lease
// that ran out meanwhile look fresh.
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/persistence/open-store.js";
import type { DeerflowPostgresSaver } from "../../src/persistence/postgres-saver.js";
import { LeaseLostError, type PgRunRecords } from "../../src/persistence/postgres-store.js";
import type { Store } from "../../src/persistence/store.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { until } from "../support/wait.js";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  delete process.env.DEERFLOW_LEASE_SECONDS;
});

function open(): Store {
  const s = openPostgresStore(db.url, "delta");
  opened.push(s);
  return s;
}

const pool = (s: Store) => (s.saver as DeerflowPostgresSaver).db;

/** A runs `threadId`; its lease runs out (as while it was paused) and B takes the thread over. */
async function takenOver(threadId: string) {
  const a = open();
  const b = open();
  const [runA, runB] = [`${threadId}-run-a`, `${threadId}-run-b`];
  await a.threads.create({ id: threadId, mode: "delta", title: "before" });
  await a.runs.create(runA, threadId);
  expect(await a.runs.acquire(threadId, runA)).toEqual({ ok: true });
  const mark = await a.saver.mark();
  await a.runs.start(runA, mark, "hello");
  await a.threads.update(threadId, { status: "running" });
  await pool(a).query("UPDATE run_locks SET expires_at = now() - interval '1 second' WHERE thread_id = $1", [threadId]);
  await b.runs.create(runB, threadId);
  expect(await b.runs.acquire(threadId, runB)).toEqual({ ok: true });
  await b.runs.start(runB, await b.saver.mark(), "take over");
  await b.threads.update(threadId, { status: "running", title: "B's title" });
  return { a, b, mark, runA, runB };
}

describe.skipIf(pgSkip)("a run that lost its lease changes nothing of the thread's new owner", () => {
  it("its settling does not mark the thread or rewrite its run the takeover ended", async () => {
    const threadId = "thread-settle";
    const { a, runA, runB } = await takenOver(threadId);

    await expect(a.threads.update(threadId, { status: "success", title: "A's late title" })).rejects.toBeInstanceOf(LeaseLostError);
    await a.runs.finish(runA, { status: "success", stop_reason: "end_turn" });

    const thread = await a.threads.get(threadId);
    expect(thread).toMatchObject({ status: "running", title: "B's title" });
    expect(await a.runs.get(runA)).toMatchObject({ status: "interrupted" });
    expect(await a.runs.get(runB)).toMatchObject({ status: "running" });
  });

  it("paused between taking the lease and starting, its run stays ended and the thread stays the new owner's", async () => {
    const threadId = "thread-start";
    const a = open();
    const b = open();
    const [runA, runB] = [`${threadId}-run-a`, `${threadId}-run-b`];
    await a.threads.create({ id: threadId, mode: "delta" });
    await a.runs.create(runA, threadId);
    expect(await a.runs.acquire(threadId, runA)).toEqual({ ok: true });
    await pool(a).query("UPDATE run_locks SET expires_at = now() - interval '1 second' WHERE thread_id = $1", [threadId]);
    await b.runs.create(runB, threadId);
    expect(await b.runs.acquire(threadId, runB)).toEqual({ ok: true });
    await b.runs.start(runB, await b.saver.mark(), "take over");
    await b.threads.update(threadId, { status: "running" });

    // A wakes and goes on as the runtime's begin does: start its run, mark the thread running.
    await a.runs.start(runA, await a.saver.mark(), "late start");
    await expect(a.threads.update(threadId, { status: "running" })).rejects.toBeInstanceOf(LeaseLostError);
    // Not `running` for ever: no lease of its own is left for any machine to find expired and end it.
    expect(await a.runs.get(runA)).toMatchObject({ status: "interrupted" });
  });

  it("its compaction archives nothing into the thread", async () => {
    const threadId = "thread-archive";
    const { a } = await takenOver(threadId);

    await expect(a.archive!.put(threadId, null, [{ message_id: "m-late", role: "user", text: "late original" }])).rejects.toBeInstanceOf(LeaseLostError);
    expect(await a.archive!.count(threadId)).toBe(0);
  });

  it("its rollback does not delete the rows the run that took the thread wrote", async () => {
    const threadId = "thread-rollback";
    const { a, b, mark } = await takenOver(threadId);
    await b.saver.put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { ...emptyCheckpoint(), id: uuid6(0) }, { source: "loop", step: 0, parents: {} }, {});

    await expect(a.saver.rollbackTo(threadId, mark)).rejects.toBeInstanceOf(LeaseLostError);
    const { rows } = await pool(a).query("SELECT count(*)::int AS n FROM checkpoints WHERE thread_id = $1", [threadId]);
    expect(rows[0].n).toBe(1);
  });

  it("a renewal answered only after the lease ran out does not make it look fresh", async () => {
    process.env.DEERFLOW_LEASE_SECONDS = "3";
    const threadId = "thread-late-renewal";
    const a = open();
    const b = open();
    const runs = a.runs as PgRunRecords;
    expect(await runs.acquire(threadId, "run-a")).toEqual({ ok: true });
    // Only the renewal this test sends: the heartbeat's would race it.
    (runs as unknown as { stopHeartbeat(): void }).stopHeartbeat();

    // The renewal is held up (as a paused process leaves its answer unread) by a lock on the lease row.
    const blocker = new pg.Client({ connectionString: db.url });
    const watcher = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    await watcher.connect();
    try {
      const blockerPid = (await blocker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM deerflow.run_locks WHERE thread_id = $1 FOR UPDATE", [threadId]);
      let answered = false;
      const renewal = (runs as unknown as { renew(): Promise<void> }).renew().finally(() => (answered = true));
      const waiting = async () => {
        if (answered) throw new Error("the renewal was answered before it waited on the lease row");
        // Asked outside the blocker's transaction: inside it, pg_stat_activity is the snapshot its first read took.
        const { rows } = await watcher.query(
          "SELECT bool_or(clock_timestamp() - xact_start > interval '3 seconds') AS late FROM pg_stat_activity WHERE pg_blocking_pids(pid) @> ARRAY[$1::int] AND query LIKE 'UPDATE run_locks%'",
          [blockerPid],
        );
        return rows[0]?.late === true;
      };
      // The renewal waits, sent longer ago than the lease lasts: whatever expiry it sets has passed already.
      await until(waiting, "the renewal to wait on the lease row for longer than the lease");
      await blocker.query("COMMIT");
      await renewal;
    } finally {
      await blocker.end();
      await watcher.end();
    }

    expect(await b.runs.acquire(threadId, "run-b")).toEqual({ ok: true });
    await expect(runs.assertHeld(threadId)).rejects.toBeInstanceOf(LeaseLostError);
  });
});
