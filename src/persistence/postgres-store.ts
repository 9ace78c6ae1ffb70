// The Store on a team database (PostgreSQL): the same thread index, run records and archive as the SQLite file,
// shared by every machine that points `database` at it. One active run per thread across machines is a lease row
// (`run_locks`: host, pid, expiry) renewed by a heartbeat while the process lives; a lease that was not renewed in
// time belongs to a crashed machine or process and is taken over, its run and thread marked interrupted.
import type pg from "pg";
import { DeerflowError, ExitCode } from "../errors.js";
import type { RunStatus } from "../vocabulary/statuses.js";
import { machineName } from "./machine.js";
import { isConnectionFault, leaseSeconds, withRetry } from "./postgres-connection.js";
import { DeerflowPostgresSaver } from "./postgres-saver.js";
import type { RollbackMark } from "./sqlite-saver.js";
import { pendingRollbacks } from "./store.js";
import type { RunLock, RunRecord } from "./run-records.js";
import type { ThreadRow } from "./thread-index.js";

export class PgThreadIndex {
  constructor(
    private readonly saver: DeerflowPostgresSaver,
    /** The leases this process holds (none: the index is read or written outside any run). */
    private readonly leases?: PgRunRecords,
  ) {}

  private async q<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    await this.saver.setup();
    return (await this.saver.db.query<R>(sql, args)).rows;
  }

  async get(id: string): Promise<ThreadRow | undefined> {
    return (await this.q<ThreadRow>("SELECT * FROM threads WHERE id = $1", [id]))[0];
  }

  /** Newest first. Threads whose run's lease ran out (a crashed machine) show `interrupted`, not `running`. */
  async list(limit = 1000): Promise<ThreadRow[]> {
    await reapExpired(this.saver);
    return this.q<ThreadRow>("SELECT * FROM threads ORDER BY updated_at DESC, seq DESC LIMIT $1", [limit]);
  }

  async latest(): Promise<ThreadRow | undefined> {
    return (await this.list(1))[0];
  }

  async create(row: { id: string; workspace?: string | null; mode: "full" | "delta"; title?: string | null }): Promise<ThreadRow> {
    const now = new Date().toISOString();
    await this.q("INSERT INTO threads (id, title, created_at, updated_at, status, workspace, mode, host) VALUES ($1, $2, $3, $3, 'idle', $4, $5, $6)", [
      row.id,
      row.title ?? null,
      now,
      row.workspace ?? null,
      row.mode,
      machineName(),
    ]);
    return (await this.get(row.id))!;
  }

  async update(id: string, patch: Partial<Pick<ThreadRow, "title" | "status" | "workspace" | "host">>): Promise<void> {
    const sets = ["updated_at = $1"];
    const args: unknown[] = [new Date().toISOString()];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || !["title", "status", "workspace", "host"].includes(k)) continue;
      args.push(v);
      sets.push(`${k} = $${args.length}`);
    }
    args.push(id);
    const where = [`id = $${args.length}`];
    // A run's own update lands only while the lease row is still its run's, checked in the same statement: a machine
    // woken past its lease must not mark the thread another machine now runs (its status, title, host).
    const runId = await this.leases?.fenceOf(id);
    if (runId !== undefined) {
      args.push(runId);
      where.push(`EXISTS (SELECT 1 FROM run_locks WHERE thread_id = $${args.length - 1} AND run_id = $${args.length})`);
    }
    await this.saver.setup();
    const { rowCount } = await this.saver.db.query(`UPDATE threads SET ${sets.join(", ")} WHERE ${where.join(" AND ")}`, args);
    if (runId !== undefined && rowCount === 0 && (await this.get(id))) await this.leases!.assertHeld(id, true);
  }
}

/** Ends the runs whose lease ran out: each becomes `interrupted` (its work is kept), its lease goes. */
async function reapExpired(saver: DeerflowPostgresSaver): Promise<void> {
  await saver.setup();
  await withRetry(() =>
    saver.transaction(async (c) => {
      const now = new Date().toISOString();
      const { rows } = await c.query<{ thread_id: string; run_id: string }>("DELETE FROM run_locks WHERE expires_at < now() RETURNING thread_id, run_id");
      for (const r of rows) {
        await c.query(
          "UPDATE runs SET status = 'interrupted', stop_reason = 'interrupted', ended_at = $1, error = 'its machine stopped renewing the lease (crashed or cut off)' WHERE id = $2 AND status IN ('pending', 'running')",
          [now, r.run_id],
        );
      }
      await c.query("UPDATE threads SET status = 'interrupted', updated_at = $1 WHERE status IN ('pending', 'running') AND id NOT IN (SELECT thread_id FROM run_locks)", [now]);
    }),
  );
}

/**
 * A run's lease was taken over while it still ran (its machine paused or was cut off longer than the lease): the run
 * stops without writing more, since another run owns the thread now.
 */
export class LeaseLostError extends DeerflowError {
  constructor(threadId: string, runId: string, holder?: RunLock) {
    const to = holder ? ` to run ${holder.run_id} (pid ${holder.pid} on ${holder.host})` : "";
    super(`Run ${runId} lost thread ${threadId}'s lease${to}: this machine did not renew it in time, so the run stopped without saving more.`, {
      exitCode: ExitCode.runtime,
      hint: `See what the thread holds now with \`deerflow threads show ${threadId}\`.`,
    });
  }
}

interface HeldLease {
  runId: string;
  /** When the database last confirmed the lease (this process's clock). */
  renewedAt: number;
}

export class PgRunRecords {
  /** Leases this process holds, renewed by the heartbeat. */
  private readonly held = new Map<string, HeldLease>();
  /**
   * Leases found taken over (thread → the error a write on it gets). Set in the same tick the lease stops being held,
   * as a promise of the error (naming the new holder takes a query), so no write slips through in between.
   */
  // Kept until the thread is acquired again, not cleared on release: a lost run's graph may still finish a write after
  // the run returned (its abort does not wait for the node in flight), and that write must still be refused.
  private readonly lost = new Map<string, Promise<LeaseLostError>>();
  private readonly lostListeners = new Set<(threadId: string, runId: string, err: LeaseLostError) => void>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly saver: DeerflowPostgresSaver) {}

  private async q<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    await this.saver.setup();
    return (await this.saver.db.query<R>(sql, args)).rows;
  }

  async staleLocks(): Promise<RunLock[]> {
    return this.q<RunLock>("SELECT * FROM run_locks WHERE expires_at < now()");
  }

  reapStale(): Promise<void> {
    return reapExpired(this.saver);
  }

  /**
   * Take the thread's lease for `runId`, or return the live lease that holds it. The row is locked (FOR UPDATE)
   * while checked and taken, so two machines can never both win; an expired lease is taken over.
   */
  async acquire(threadId: string, runId: string): Promise<{ ok: true } | { ok: false; holder: RunLock }> {
    await this.saver.setup();
    const host = machineName();
    const sentAt = Date.now(); // as in renewOne: the lease counts from when it was asked for
    const result = await withRetry(() =>
      this.saver.transaction(async (c) => {
        // A lease row to lock even for a thread never run: insert-or-nothing first, then lock it.
        const lease = `${leaseSeconds()} seconds`;
        const inserted = await c.query(
          "INSERT INTO run_locks (thread_id, run_id, pid, host, started_at, expires_at) VALUES ($1, $2, $3, $4, $5, now() + $6::interval) ON CONFLICT (thread_id) DO NOTHING",
          [threadId, runId, process.pid, host, new Date().toISOString(), lease],
        );
        if (inserted.rowCount === 1) return { ok: true as const };
        const { rows } = await c.query<RunLock & { expired: boolean }>("SELECT *, expires_at < now() AS expired FROM run_locks WHERE thread_id = $1 FOR UPDATE", [threadId]);
        const held = rows[0]!;
        if (!held.expired) return { ok: false as const, holder: held };
        // Expired: its machine crashed or was cut off; its run did not finish.
        await c.query(
          "UPDATE runs SET status = 'interrupted', stop_reason = 'interrupted', ended_at = $1, error = 'its machine stopped renewing the lease (crashed or cut off)' WHERE id = $2 AND status IN ('pending', 'running')",
          [new Date().toISOString(), held.run_id],
        );
        await c.query("UPDATE threads SET status = 'interrupted', updated_at = $1 WHERE id = $2 AND status IN ('pending', 'running')", [new Date().toISOString(), threadId]);
        await c.query("UPDATE run_locks SET run_id = $2, pid = $3, host = $4, started_at = $5, expires_at = now() + $6::interval WHERE thread_id = $1", [
          threadId,
          runId,
          process.pid,
          host,
          new Date().toISOString(),
          lease,
        ]);
        return { ok: true as const };
      }),
    );
    if (result.ok) {
      this.held.set(threadId, { runId, renewedAt: sentAt });
      this.lost.delete(threadId);
      this.startHeartbeat();
    }
    return result;
  }

  async release(threadId: string, runId: string): Promise<void> {
    if (this.held.get(threadId)?.runId === runId) this.held.delete(threadId);
    if (this.held.size === 0) this.stopHeartbeat();
    await this.q("DELETE FROM run_locks WHERE thread_id = $1 AND run_id = $2", [threadId, runId]);
  }

  /** Calls `listener` when a lease of this process is found taken over; returns the unsubscribe. */
  onLeaseLost(listener: (threadId: string, runId: string, err: LeaseLostError) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /**
   * Before a write on `threadId`: throws LeaseLostError if this process's lease on it was taken over. A lease the
   * heartbeat has not confirmed for most of its length is checked with the database first, so a process that was
   * paused or cut off past its lease cannot write over the run that took the thread.
   */
  async assertHeld(threadId: string, checkNow = false): Promise<void> {
    const lost = this.lost.get(threadId);
    if (lost) throw await lost;
    const lease = this.held.get(threadId);
    if (!lease || (!checkNow && Date.now() - lease.renewedAt < (leaseSeconds() * 1000) / 2)) return;
    await this.renewOne(threadId, lease);
    // The heartbeat may have found the loss first, while this renewal was in flight.
    const after = this.lost.get(threadId);
    if (after) throw await after;
  }

  /**
   * For a write that fences itself in SQL: the run whose lease this process holds on the thread (undefined: none),
   * or LeaseLostError once it was found taken over.
   */
  async fenceOf(threadId: string): Promise<string | undefined> {
    const lost = this.lost.get(threadId);
    if (lost) throw await lost;
    return this.held.get(threadId)?.runId;
  }

  /**
   * Inside a write's transaction: the lease row still this process's run's, locked FOR SHARE until the commit, so a
   * takeover (FOR UPDATE in acquire) waits for the write or the write sees the takeover. The in-process check alone
   * leaves a gap a paused process falls into: checked, paused past the lease, woken, written.
   */
  async fenceIn(client: pg.PoolClient, threadId: string): Promise<void> {
    const runId = await this.fenceOf(threadId);
    if (runId === undefined) return;
    const { rowCount } = await client.query("SELECT 1 FROM run_locks WHERE thread_id = $1 AND run_id = $2 FOR SHARE", [threadId, runId]);
    if (rowCount === 0) await this.assertHeld(threadId, true);
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.renew(), Math.max(250, (leaseSeconds() * 1000) / 3));
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Renews every lease this process holds; a database outage is retried at the next beat. */
  private async renew(): Promise<void> {
    for (const [threadId, lease] of this.held) await this.renewOne(threadId, lease).catch(() => {});
  }

  /** Extends one lease, or finds it taken over (no row of ours any more): then it is lost, and listeners hear so. */
  private async renewOne(threadId: string, lease: HeldLease): Promise<void> {
    // The renewal counts from when it was sent: the database's now() is its transaction's start, and a process paused
    // before reading the answer must not take a lease that ran out meanwhile for a fresh one.
    const sentAt = Date.now();
    const { rowCount } = await this.saver.db.query("UPDATE run_locks SET expires_at = now() + $3::interval WHERE thread_id = $1 AND run_id = $2", [threadId, lease.runId, `${leaseSeconds()} seconds`]);
    if (rowCount === 1) {
      lease.renewedAt = Math.max(lease.renewedAt, sentAt);
      return;
    }
    if (this.held.get(threadId) !== lease) return; // released, or found lost by a concurrent renewal
    this.held.delete(threadId);
    const loss = this.saver.db
      .query<RunLock>("SELECT * FROM run_locks WHERE thread_id = $1", [threadId])
      .then(
        (r) => r.rows[0],
        () => undefined,
      )
      .then((holder) => new LeaseLostError(threadId, lease.runId, holder));
    this.lost.set(threadId, loss);
    const err = await loss;
    for (const l of this.lostListeners) l(threadId, lease.runId, err);
  }

  async create(id: string, threadId: string): Promise<void> {
    await this.q("INSERT INTO runs (id, thread_id, status, started_at) VALUES ($1, $2, 'pending', $3)", [id, threadId, new Date().toISOString()]);
  }

  /** pending → running; a run a takeover already ended (its machine paused right after taking the lease) stays ended. */
  async start(id: string, mark: unknown, input?: string | null): Promise<void> {
    await this.q("UPDATE runs SET status = 'running', mark = $1, input = $2 WHERE id = $3 AND status = 'pending'", [JSON.stringify(mark), input ?? null, id]);
  }

  async setSnapshot(id: string, commit: string): Promise<void> {
    await this.q("UPDATE runs SET snapshot = $1 WHERE id = $2", [commit, id]);
  }

  async rewindable(threadId: string): Promise<RunRecord[]> {
    return (await this.forThread(threadId)).filter((r) => r.mark !== null && r.rewound_by === null);
  }

  async markRewound(ids: readonly string[], rewindId: string): Promise<void> {
    await this.q("UPDATE runs SET rewound_by = $1 WHERE id = ANY($2)", [rewindId, ids]);
  }

  async clearRewound(rewindId: string): Promise<void> {
    await this.q("UPDATE runs SET rewound_by = NULL WHERE rewound_by = $1", [rewindId]);
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.q("DELETE FROM runs WHERE thread_id = $1", [threadId]);
    await this.q("DELETE FROM run_locks WHERE thread_id = $1", [threadId]);
  }

  /**
   * Ends a run that is still pending or running. One that a takeover already ended (interrupted, when another machine
   * took its lease) keeps that record: its machine, woken late, does not rewrite it as a success or an error.
   */
  async finish(id: string, r: { status: RunStatus; stop_reason?: string | null; input_tokens?: number; output_tokens?: number; error?: string | null }): Promise<void> {
    await this.q("UPDATE runs SET status = $1, stop_reason = $2, input_tokens = $3, output_tokens = $4, error = $5, ended_at = $6 WHERE id = $7 AND status IN ('pending', 'running')", [
      r.status,
      r.stop_reason ?? null,
      r.input_tokens ?? 0,
      r.output_tokens ?? 0,
      r.error ?? null,
      new Date().toISOString(),
      id,
    ]);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    return (await this.q<RunRecord>("SELECT * FROM runs WHERE id = $1", [id]))[0];
  }

  async forThread(threadId: string): Promise<RunRecord[]> {
    return this.q<RunRecord>("SELECT * FROM runs WHERE thread_id = $1 ORDER BY started_at, seq", [threadId]);
  }

  close(): void {
    this.stopHeartbeat();
  }
}

/** `threads rm`: the thread's rows in every table of deerflow's schema that has a thread_id column, in one transaction. */
export async function deletePgThreadRows(saver: DeerflowPostgresSaver, threadId: string): Promise<Record<string, number>> {
  await saver.setup();
  return saver.transaction(async (c) => {
    const { rows } = await c.query<{ table_name: string }>("SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'thread_id'");
    const deleted: Record<string, number> = {};
    for (const { table_name } of rows) deleted[table_name] = (await c.query(`DELETE FROM "${table_name}" WHERE thread_id = $1`, [threadId])).rowCount ?? 0;
    deleted.threads = (await c.query("DELETE FROM threads WHERE id = $1", [threadId])).rowCount ?? 0;
    return deleted;
  });
}

/**
 * Undoes the runs this home could not roll back while the team database was gone (`notePendingRollback`): the thread
 * goes back to its mark, the run reads `error`, its stale lease goes. A thread another run is working on now is left
 * for a later open; one that later runs built on keeps its rows (undoing them would undo those runs too).
 */
export async function applyPgPendingRollbacks(saver: DeerflowPostgresSaver, home: string, path: string): Promise<void> {
  for (const { runId, done } of pendingRollbacks(home, path, "postgres")) {
    const finished = await withRetry(() =>
      saver.transaction(async (c) => {
        const run = (await c.query<RunRecord & { seq: string }>("SELECT * FROM runs WHERE id = $1", [runId])).rows[0];
        if (!run?.mark) return true;
        const lease = (await c.query<{ run_id: string; expired: boolean }>("SELECT run_id, expires_at < now() AS expired FROM run_locks WHERE thread_id = $1 FOR UPDATE", [run.thread_id])).rows[0];
        if (lease && lease.run_id !== runId && !lease.expired) return false;
        const later = await c.query("SELECT 1 FROM runs WHERE thread_id = $1 AND seq > $2 AND mark IS NOT NULL LIMIT 1", [run.thread_id, run.seq]);
        const error = run.error ?? "the team database was unreachable (rolled back when it was back)";
        if (later.rowCount === 0) await DeerflowPostgresSaver.rollbackWith(c, run.thread_id, JSON.parse(run.mark) as RollbackMark);
        await c.query("UPDATE runs SET status = 'error', stop_reason = 'error', error = $2, ended_at = COALESCE(ended_at, $3) WHERE id = $1", [
          runId,
          later.rowCount === 0 ? error : `${error}; not rolled back: later runs built on it`,
          new Date().toISOString(),
        ]);
        if (later.rowCount === 0) await c.query("UPDATE threads SET status = 'error', updated_at = $2 WHERE id = $1", [run.thread_id, new Date().toISOString()]);
        await c.query("DELETE FROM run_locks WHERE thread_id = $1 AND run_id = $2", [run.thread_id, runId]);
        return true;
      }),
    ).catch((err: unknown) => {
      // The database still away fails setup, which says so; anything else must not lock deerflow out: kept for later.
      if (isConnectionFault(err)) throw err;
      return false;
    });
    if (finished) done();
  }
}
