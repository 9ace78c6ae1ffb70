// Pruning on the team database: the thread's rows as the policy (checkpoint-prune.ts) reads and writes them. A row's
// position is its `seq` (what rollback marks hold there); checkpoints and metadata are jsonb, channel values live in
// `checkpoint_blobs` only (the stock saver keeps none inline), so a slimmed checkpoint is its jsonb without values.
// One statement per kind of change, in one transaction, retried as a whole across a server restart. No VACUUM FULL:
// it locks the tables every machine of the team writes to while it rewrites them; autovacuum makes the space the
// old row versions held reusable by the next rows, so the tables stop growing rather than shrink (docs/team-database.md).
import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import { PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { type PruneResult, type PruneRows, pruneThread } from "./checkpoint-prune.js";
import { withRetry } from "./postgres-connection.js";
import type { DeerflowPostgresSaver } from "./postgres-saver.js";
import type { RollbackMark } from "./sqlite-saver.js";

const MAIN = "thread_id = $1 AND checkpoint_ns = ''";

function postgresRows(saver: DeerflowPostgresSaver, threadId: string): PruneRows {
  const q = async <R extends Record<string, unknown>>(sql: string, args: unknown[] = []) => (await saver.db.query<R>(sql, [threadId, ...args])).rows;
  return {
    async lastCheckpointsAtOrBefore(positions) {
      // One round trip for every run's start point, however many runs the thread has had.
      const rows = await q<{ r: string | null }>(`SELECT (SELECT MAX(seq) FROM checkpoints WHERE ${MAIN} AND seq <= m.pos) AS r FROM unnest($2::bigint[]) WITH ORDINALITY AS m(pos, i) ORDER BY m.i`, [
        [...positions],
      ]);
      return rows.map((row) => (row.r == null ? null : Number(row.r)));
    },
    async wholeCheckpoints() {
      const rows = await q<{ seq: string; checkpoint_id: string; checkpoint: Checkpoint; metadata: Record<string, unknown> }>(
        `SELECT seq, checkpoint_id, checkpoint, metadata FROM checkpoints WHERE ${MAIN} AND metadata ->> '${PRUNED_METADATA_KEY}' IS NULL`,
      );
      return rows.map((r) => ({ pos: Number(r.seq), checkpoint_id: r.checkpoint_id, checkpoint: r.checkpoint, metadata: r.metadata }));
    },
    async blobsUpTo(pos) {
      return (await q<{ seq: string; channel: string; version: string }>(`SELECT seq, channel, version FROM checkpoint_blobs WHERE ${MAIN} AND seq <= $2`, [pos])).map((b) => ({
        pos: Number(b.seq),
        channel: b.channel,
        version: b.version,
      }));
    },
    async newestBlob(channel) {
      const r = (await q<{ r: string | null }>(`SELECT MAX(seq) AS r FROM checkpoint_blobs WHERE ${MAIN} AND channel = $2`, [channel]))[0]?.r;
      return r == null ? null : Number(r);
    },
    async apply(slimmed, keepChannels, blobs) {
      // Values live in blobs: the jsonb keeps none (as the stock saver writes it).
      const checkpoints = slimmed.map(({ checkpoint: { channel_values: _values, ...rest } }) => JSON.stringify(rest));
      const metadata = slimmed.map((s) => JSON.stringify(s.metadata));
      const seqs = slimmed.map((s) => s.pos);
      const ids = slimmed.map((s) => s.checkpoint_id);
      return withRetry(() =>
        saver.transaction(async (c) => {
          await saver.fenceOn(c, threadId);
          await c.query(
            `UPDATE checkpoints SET checkpoint = u.checkpoint, metadata = u.metadata
               FROM unnest($2::bigint[], $3::jsonb[], $4::jsonb[]) AS u(seq, checkpoint, metadata)
              WHERE checkpoints.thread_id = $1 AND checkpoints.checkpoint_ns = '' AND checkpoints.seq = u.seq`,
            [threadId, seqs, checkpoints, metadata],
          );
          const writes = await c.query(`DELETE FROM checkpoint_writes WHERE ${MAIN} AND checkpoint_id = ANY($2) AND channel <> ALL($3)`, [threadId, ids, [...keepChannels]]);
          const dropped = await c.query(`DELETE FROM checkpoint_blobs WHERE ${MAIN} AND seq = ANY($2::bigint[])`, [threadId, [...blobs]]);
          return { writes: writes.rowCount ?? 0, blobs: dropped.rowCount ?? 0 };
        }),
      );
    },
  };
}

/** Slims the thread's step checkpoints that rollback and rewind cannot go back to (policy: checkpoint-prune.ts). */
export function prunePostgresThread(saver: DeerflowPostgresSaver, threadId: string, mode: ChannelMode, marks: readonly RollbackMark[]): Promise<PruneResult> {
  return pruneThread(postgresRows(saver, threadId), mode, marks);
}
