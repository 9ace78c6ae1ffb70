// Pruning a thread's step checkpoints: the policy (docs/architecture.md, Checkpoints), one for both stores. Every graph step
// writes a checkpoint (some 25 per turn with the lead agent's hooks), but rollback and rewind only ever go back to the
// point a run started from: the thread's last checkpoint before that run's rollback mark. So once a run has
// finished, every checkpoint before its mark is kept whole only if it is such a point (one per run) or newer;
// the others are slimmed in place:
//  - the row stays (same checkpoint_id, position and parent link, so marks and the parent chain hold) but keeps only
//    the versions of the delta channels, and metadata reduced to step/source/parents, the mode marker and a
//    "pruned" marker;
//  - its writes keep only the delta channels' (delta mode rebuilds `messages` by replaying them along the chain);
//  - blobs before the mark that no whole checkpoint references go, except each delta channel's newest snapshot
//    (the seed the thread's head replays from). An older point rebuilt after a rewind replays from an older seed,
//    or from the thread's start: every delta write is kept, so the result is the same, only slower.
// Rows are never renumbered: a mark is a position (SQLite's rowid, PostgreSQL's seq). Each store reads and writes its
// own rows (sqlite-prune.ts, postgres-prune.ts); what to slim and what to drop is decided here.
import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import { CHANNEL_MODE_METADATA_KEY, DELTA_CHANNELS, PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import type { RollbackMark } from "./sqlite-saver.js";

export interface PruneResult {
  /** Step checkpoints slimmed now. */
  checkpoints: number;
  writes: number;
  blobs: number;
}

/** A main-namespace checkpoint row, decoded. `pos`: its position (rowid / seq). */
export interface PruneCheckpointRow {
  pos: number;
  checkpoint_id: string;
  checkpoint: Checkpoint;
  metadata: Record<string, unknown>;
}

/** One thread's rows in one store, as the policy needs them. */
export interface PruneRows {
  /** For each position, that of the thread's last main-namespace checkpoint at or before it (null: none). */
  lastCheckpointsAtOrBefore(positions: readonly number[]): Promise<(number | null)[]>;
  /** The thread's main-namespace checkpoints not yet slimmed (whole), decoded. */
  wholeCheckpoints(): Promise<PruneCheckpointRow[]>;
  /** The thread's main-namespace blobs up to `pos`. */
  blobsUpTo(pos: number): Promise<{ pos: number; channel: string; version: string }[]>;
  /** The position of the thread's newest blob of `channel`. */
  newestBlob(channel: string): Promise<number | null>;
  /** In one transaction: each checkpoint replaced by its slim form, its writes except `keepChannels` dropped, `blobs` dropped. */
  apply(slimmed: readonly PruneCheckpointRow[], keepChannels: readonly string[], blobs: readonly number[]): Promise<{ writes: number; blobs: number }>;
}

function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, from[k]]));
}

/** A checkpoint as pruning leaves it: no values, only the delta channels' versions; metadata to its skeleton. */
function slim(row: PruneCheckpointRow, deltas: readonly string[]): PruneCheckpointRow {
  const cp = row.checkpoint;
  const meta = row.metadata;
  return {
    ...row,
    checkpoint: { ...cp, channel_values: {}, channel_versions: pick(cp.channel_versions ?? {}, deltas), versions_seen: {} } as Checkpoint,
    metadata: { ...pick(meta, ["source", "step", "parents"]), [CHANNEL_MODE_METADATA_KEY]: meta[CHANNEL_MODE_METADATA_KEY] ?? "full", [PRUNED_METADATA_KEY]: true },
  };
}

/**
 * Slims the thread's step checkpoints that neither rollback nor rewind can go back to (see the header). `marks`:
 * the rollback marks of the thread's runs (the newest bounds what is touched: the latest run stays whole).
 */
export async function pruneThread(rows: PruneRows, mode: ChannelMode, marks: readonly RollbackMark[]): Promise<PruneResult> {
  const result: PruneResult = { checkpoints: 0, writes: 0, blobs: 0 };
  if (marks.length === 0) return result;
  const deltas = mode === "delta" ? DELTA_CHANNELS : [];
  const bound = Math.max(...marks.map((m) => m.checkpoints));
  const blobBound = Math.max(...marks.map((m) => m.blobs));
  const keep = new Set((await rows.lastCheckpointsAtOrBefore(marks.map((m) => m.checkpoints))).filter((p): p is number => p !== null));
  const whole = await rows.wholeCheckpoints();
  const slimmed = whole.filter((r) => r.pos <= bound && !keep.has(r.pos)).map((r) => slim(r, deltas));
  if (slimmed.length === 0) return result;

  // The (channel, version) pairs the checkpoints that stay whole still reference.
  const slimIds = new Set(slimmed.map((s) => s.pos));
  const referenced = new Set<string>();
  for (const row of whole) {
    if (slimIds.has(row.pos)) continue;
    for (const [ch, v] of Object.entries(row.checkpoint.channel_versions ?? {})) referenced.add(`${ch}\0${String(v)}`);
  }
  const seeds = new Set<number | null>();
  for (const ch of deltas) seeds.add(await rows.newestBlob(ch));
  const dropBlobs = (await rows.blobsUpTo(blobBound)).filter((b) => !referenced.has(`${b.channel}\0${b.version}`) && !seeds.has(b.pos)).map((b) => b.pos);

  const done = await rows.apply(slimmed, deltas, dropBlobs);
  return { checkpoints: slimmed.length, ...done };
}
