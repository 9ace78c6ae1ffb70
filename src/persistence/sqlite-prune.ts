// Pruning a thread's step checkpoints (the documented policy, README "Performance"). Every graph step writes a
// checkpoint (some 25 per turn with the lead agent's hooks), but rollback and rewind only ever go back to the
// point a run started from: the thread's last checkpoint before that run's rollback mark. So once a run has
// finished, every checkpoint before its mark is kept whole only if it is such a point (one per run) or newer;
// the others are slimmed in place:
//  - the row stays (same checkpoint_id, rowid and parent link, so marks and the parent chain hold) but keeps only
//    the versions of the delta channels, and metadata reduced to step/source/parents, the mode marker and a
//    "pruned" marker;
//  - its writes keep only the delta channels' (delta mode rebuilds `messages` by replaying them along the chain);
//  - blobs before the mark that no whole checkpoint references go, except each delta channel's newest snapshot
//    (the seed the thread's head replays from). An older point rebuilt after a rewind replays from an older seed,
//    or from the thread's start: every delta write is kept, so the result is the same, only slower.
// Rows are never renumbered (no VACUUM: marks are rowids); SQLite reuses the freed pages.
import type Database from "better-sqlite3";
import type { Checkpoint, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { CHANNEL_MODE_METADATA_KEY, DELTA_CHANNELS, PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import type { RollbackMark } from "./sqlite-saver.js";

export interface PruneResult {
  /** Step checkpoints slimmed now. */
  checkpoints: number;
  writes: number;
  blobs: number;
}

interface Row {
  rowid: number;
  checkpoint_id: string;
  type: string | null;
  checkpoint: Uint8Array | string;
  metadata: Uint8Array | string;
}

const PRUNED_SQL = `json_extract(CAST(metadata AS TEXT), '$.${PRUNED_METADATA_KEY}')`;

function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, from[k]]));
}

/**
 * Slims the thread's step checkpoints that neither rollback nor rewind can go back to (see the header). `marks`:
 * the rollback marks of the thread's runs (the newest bounds what is touched: the latest run stays whole).
 */
export async function pruneThreadCheckpoints(db: Database.Database, serde: SerializerProtocol, threadId: string, mode: ChannelMode, marks: readonly RollbackMark[]): Promise<PruneResult> {
  const result: PruneResult = { checkpoints: 0, writes: 0, blobs: 0 };
  if (marks.length === 0) return result;
  const deltas = mode === "delta" ? DELTA_CHANNELS : [];
  const bound = Math.max(...marks.map((m) => m.checkpoints));
  const blobBound = Math.max(...marks.map((m) => m.blobs));
  const lastBefore = db.prepare("SELECT MAX(rowid) AS r FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND rowid <= ?");
  const keep = new Set(marks.map((m) => (lastBefore.get(threadId, m.checkpoints) as { r: number | null }).r).filter((r): r is number => r !== null));
  const candidates = (
    db.prepare(`SELECT rowid, checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND rowid <= ? AND ${PRUNED_SQL} IS NULL`).all(threadId, bound) as Row[]
  ).filter((r) => !keep.has(r.rowid));
  if (candidates.length === 0) return result;

  const slimmed: { rowid: number; checkpoint_id: string; type: string; checkpoint: Uint8Array | string; metadata: Uint8Array | string }[] = [];
  for (const row of candidates) {
    const cp = (await serde.loadsTyped(row.type ?? "json", row.checkpoint)) as Checkpoint;
    const meta = (await serde.loadsTyped(row.type ?? "json", row.metadata)) as Record<string, unknown>;
    const stub = { ...cp, channel_values: {}, channel_versions: pick(cp.channel_versions ?? {}, deltas), versions_seen: {} } as Checkpoint;
    const [type, checkpoint] = await serde.dumpsTyped(stub);
    const [, metadata] = await serde.dumpsTyped({ ...pick(meta, ["source", "step", "parents"]), [CHANNEL_MODE_METADATA_KEY]: meta[CHANNEL_MODE_METADATA_KEY] ?? "full", [PRUNED_METADATA_KEY]: true });
    slimmed.push({ rowid: row.rowid, checkpoint_id: row.checkpoint_id, type, checkpoint, metadata });
  }

  // The (channel, version) pairs whole checkpoints still reference.
  const referenced = new Set<string>();
  const whole = db.prepare(`SELECT rowid, type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND ${PRUNED_SQL} IS NULL`).all(threadId) as Row[];
  const slimIds = new Set(slimmed.map((s) => s.rowid));
  for (const row of whole) {
    if (slimIds.has(row.rowid)) continue;
    const cp = (await serde.loadsTyped(row.type ?? "json", row.checkpoint)) as Checkpoint;
    for (const [ch, v] of Object.entries(cp.channel_versions ?? {})) referenced.add(`${ch}\0${String(v)}`);
  }

  const update = db.prepare("UPDATE checkpoints SET type = ?, checkpoint = ?, metadata = ? WHERE rowid = ?");
  const placeholders = deltas.map(() => "?").join(", ");
  const dropWrites = db.prepare(
    `DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?${deltas.length ? ` AND channel NOT IN (${placeholders})` : ""}`,
  );
  const blobs = db.prepare("SELECT rowid, channel, version FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = '' AND rowid <= ?").all(threadId, blobBound) as { rowid: number; channel: string; version: string }[];
  const newestDelta = db.prepare("SELECT MAX(rowid) AS r FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = '' AND channel = ?");
  const seeds = new Set(deltas.map((ch) => (newestDelta.get(threadId, ch) as { r: number | null }).r));
  const dropBlob = db.prepare("DELETE FROM checkpoint_blobs WHERE rowid = ?");
  db.transaction(() => {
    for (const s of slimmed) {
      update.run(s.type, s.checkpoint, s.metadata, s.rowid);
      result.writes += dropWrites.run(threadId, s.checkpoint_id, ...deltas).changes;
    }
    for (const b of blobs) {
      if (referenced.has(`${b.channel}\0${b.version}`) || seeds.has(b.rowid)) continue;
      result.blobs += dropBlob.run(b.rowid).changes;
    }
  })();
  result.checkpoints = slimmed.length;
  return result;
}
