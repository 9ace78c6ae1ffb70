// Pruning on the SQLite file: the thread's rows as the policy (checkpoint-prune.ts) reads and writes them. A row's
// position is its rowid; checkpoints and metadata are serialized by the saver's serde. A slimmed checkpoint is deleted
// and inserted again under its own rowid rather than updated: an UPDATE that shrinks a row leaves its page as full of
// holes as before (SQLite rebalances a page only when a delete leaves it mostly empty), and a 2 KB step checkpoint
// slimmed to 300 bytes would leave most of every page empty. The pages this frees are given back to the disk by the
// saver (sqlite-space.ts); no full VACUUM here.
import type Database from "better-sqlite3";
import type { Checkpoint, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { type PruneCheckpointRow, type PruneResult, type PruneRows, pruneThread } from "./checkpoint-prune.js";
import type { RollbackMark } from "./sqlite-saver.js";

export type { PruneResult };

interface Row {
  rowid: number;
  checkpoint_id: string;
  type: string | null;
  checkpoint: Uint8Array | string;
  metadata: Uint8Array | string;
}

const PRUNED_SQL = `json_extract(CAST(metadata AS TEXT), '$.${PRUNED_METADATA_KEY}')`;

/** Replaces some columns of the checkpoint at `rowid` by deleting the row and inserting it again with the same rowid. */
function slimRewrite(db: Database.Database): (rowid: number, values: Record<string, unknown>) => void {
  const columns = (db.prepare("PRAGMA table_info(checkpoints)").all() as { name: string }[]).map((c) => c.name);
  const read = db.prepare("SELECT * FROM checkpoints WHERE rowid = ?");
  const remove = db.prepare("DELETE FROM checkpoints WHERE rowid = ?");
  const insert = db.prepare(`INSERT INTO checkpoints (rowid, ${columns.map((c) => `"${c}"`).join(", ")}) VALUES (?${", ?".repeat(columns.length)})`);
  return (rowid, values) => {
    const row = read.get(rowid) as Record<string, unknown> | undefined;
    if (!row) return;
    remove.run(rowid);
    insert.run(rowid, ...columns.map((c) => (c in values ? values[c] : row[c])));
  };
}

function sqliteRows(db: Database.Database, serde: SerializerProtocol, threadId: string): PruneRows {
  return {
    async lastCheckpointsAtOrBefore(positions) {
      const last = db.prepare("SELECT MAX(rowid) AS r FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND rowid <= ?");
      return positions.map((pos) => (last.get(threadId, pos) as { r: number | null }).r);
    },
    async wholeCheckpoints() {
      const rows = db.prepare(`SELECT rowid, checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND ${PRUNED_SQL} IS NULL`).all(threadId) as Row[];
      return Promise.all(
        rows.map(async (r) => ({
          pos: r.rowid,
          checkpoint_id: r.checkpoint_id,
          checkpoint: (await serde.loadsTyped(r.type ?? "json", r.checkpoint)) as Checkpoint,
          metadata: (await serde.loadsTyped(r.type ?? "json", r.metadata)) as Record<string, unknown>,
        })),
      );
    },
    async blobsUpTo(pos) {
      return (
        db.prepare("SELECT rowid AS pos, channel, version FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = '' AND rowid <= ?").all(threadId, pos) as {
          pos: number;
          channel: string;
          version: string;
        }[]
      ).map((b) => ({ ...b, version: String(b.version) }));
    },
    async newestBlob(channel) {
      return (db.prepare("SELECT MAX(rowid) AS r FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = '' AND channel = ?").get(threadId, channel) as { r: number | null }).r;
    },
    async apply(slimmed: readonly PruneCheckpointRow[], keepChannels, blobs) {
      const encoded = await Promise.all(
        slimmed.map(async (s) => {
          const [type, checkpoint] = await serde.dumpsTyped(s.checkpoint);
          const [, metadata] = await serde.dumpsTyped(s.metadata);
          return { s, type, checkpoint, metadata };
        }),
      );
      const rewrite = slimRewrite(db);
      const keep = keepChannels.map(() => "?").join(", ");
      const dropWrites = db.prepare(`DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?${keepChannels.length ? ` AND channel NOT IN (${keep})` : ""}`);
      const dropBlob = db.prepare("DELETE FROM checkpoint_blobs WHERE rowid = ?");
      const done = { writes: 0, blobs: 0 };
      db.transaction(() => {
        for (const e of encoded) {
          rewrite(e.s.pos, { type: e.type, checkpoint: e.checkpoint, metadata: e.metadata });
          done.writes += dropWrites.run(threadId, e.s.checkpoint_id, ...keepChannels).changes;
        }
        for (const b of blobs) done.blobs += dropBlob.run(b).changes;
      })();
      return done;
    },
  };
}

/** Slims the thread's step checkpoints that rollback and rewind cannot go back to (policy: checkpoint-prune.ts). */
export function pruneThreadCheckpoints(db: Database.Database, serde: SerializerProtocol, threadId: string, mode: ChannelMode, marks: readonly RollbackMark[]): Promise<PruneResult> {
  return pruneThread(sqliteRows(db, serde, threadId), mode, marks);
}
