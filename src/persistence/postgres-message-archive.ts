// The message archive on a team database (compaction's originals, read back by read_history), as in the SQLite file.
import type pg from "pg";
import type { ArchiveInput, ArchivedMessage } from "./message-archive.js";
import type { DeerflowPostgresSaver } from "./postgres-saver.js";
import type { PgRunRecords } from "./postgres-store.js";

/** Compaction's archive of original messages, as in the SQLite file (idempotent by thread and message id). */
export class PgMessageArchive {
  constructor(
    private readonly saver: DeerflowPostgresSaver,
    private readonly leases?: PgRunRecords,
  ) {}

  async put(threadId: string, checkpointId: string | null, messages: readonly ArchiveInput[]): Promise<{ from: number; to: number; count: number }> {
    await this.saver.setup();
    return this.saver.transaction(async (c) => {
      // Compaction by a run that lost the thread's lease archives nothing into the thread another run now owns.
      await this.leases?.fenceIn(c, threadId);
      // One archiver per thread at a time (the run lease already ensures it; this keeps seq dense regardless).
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`archive:${threadId}`]);
      let next = (await this.countWith(c, threadId)) + 1;
      let from = Number.POSITIVE_INFINITY;
      let to = 0;
      const now = new Date().toISOString();
      for (const m of messages) {
        const known = await c.query<{ seq: number }>("SELECT seq FROM message_archive WHERE thread_id = $1 AND message_id = $2", [threadId, m.message_id]);
        const seq = known.rows[0]?.seq ?? next++;
        if (!known.rows[0]) {
          await c.query("INSERT INTO message_archive (thread_id, seq, message_id, checkpoint_id, role, name, text, archived_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
            threadId,
            seq,
            m.message_id,
            checkpointId,
            m.role,
            m.name ?? null,
            m.text,
            now,
          ]);
        }
        from = Math.min(from, seq);
        to = Math.max(to, seq);
      }
      return { from: Number.isFinite(from) ? from : 0, to, count: messages.length };
    });
  }

  private async countWith(c: pg.PoolClient | pg.Pool, threadId: string): Promise<number> {
    const { rows } = await c.query<{ n: number | null }>("SELECT MAX(seq) AS n FROM message_archive WHERE thread_id = $1", [threadId]);
    return rows[0]?.n ?? 0;
  }

  async range(threadId: string, from: number, to: number): Promise<ArchivedMessage[]> {
    await this.saver.setup();
    return (await this.saver.db.query<ArchivedMessage>("SELECT * FROM message_archive WHERE thread_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq", [threadId, from, to])).rows;
  }

  async search(threadId: string, query: string, limit: number): Promise<ArchivedMessage[]> {
    await this.saver.setup();
    const like = `%${query.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    return (await this.saver.db.query<ArchivedMessage>("SELECT * FROM message_archive WHERE thread_id = $1 AND (text ILIKE $2 OR name ILIKE $2) ORDER BY seq LIMIT $3", [threadId, like, limit])).rows;
  }

  async count(threadId: string): Promise<number> {
    await this.saver.setup();
    return this.countWith(this.saver.db, threadId);
  }
}
