// DeerFlow's SQLite checkpointer (docs/architecture.md, Checkpoints).
//
// Why not the stock `SqliteSaver` (@langchain/langgraph-checkpoint-sqlite 1.0.4)?
//  1. It drops `putWrites`' task path and reads pending writes without ORDER BY. LangGraph applies a
//     superstep's writes in `writesSortKey` order `(task_path, task_id, idx)`, and `DeltaChannel`
//     rebuilds history by replaying stored writes, so with parallel tool calls a restored delta
//     history could come back with ToolMessages out of order. Here the path is stored
//     (`writes.task_path`) and pending writes are always returned sorted with the official
//     `writesSortKey` / `compareWritesSortKeys`.
//  2. It stores every channel's whole value inside every checkpoint row. Here (like the Postgres
//     saver) a channel value is stored once per version in `checkpoint_blobs`, and a checkpoint row
//     only references versions; `put` writes only the channels in `newVersions`. This is what the
//     checkpoint-validation suite requires ("should only store channel_values that have changed",
//     skipped for the stock saver) and what `DeltaChannel` assumes (a channel with a version and no
//     stored value is rebuilt from ancestor writes).
//  3. Channel-mode markers and the fail-closed compatibility gate (see below).
//
// Versions: blobs are keyed by (thread, namespace, channel, version), so two forks of one thread
// must never produce the same version with different values. `getNextVersion` therefore returns
// `floor(current) + 1 + random fraction` (the Python Postgres saver's trick, kept numeric so it still
// compares correctly with the integer versions of threads written by the stock saver).
//
// Legacy files written by the stock `SqliteSaver` open as-is: same `checkpoints` / `writes` tables,
// `task_path` is added with ALTER TABLE, and rows that carry their values inline are read inline
// (blobs only fill channels missing from the row). Their metadata has no marker, so they count as
// "full" threads.
//
// Mode markers: every `put` stores `metadata.deerflow_channel_mode`. Reads return metadata WITHOUT
// that key: the marker is bookkeeping of this saver, and the checkpoint-validation suite asserts that
// metadata round-trips unaltered ("should store the metadata without alteration"). Filtering `list`
// on the key still works (the filter runs on the stored JSON).

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type DeltaChannelHistory,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { CHANNEL_MODE_METADATA_KEY, PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import { type PruneResult, pruneThreadCheckpoints } from "./sqlite-prune.js";
import { CheckpointModeMismatchError, GUARDED_SAVER_BRAND } from "./mode-gate.js";
import { ensureSchema } from "./sqlite-schema.js";
import { returnFreePages } from "./sqlite-space.js";
import { packValue, unpackValue } from "./value-compression.js";

export { CheckpointModeMismatchError, GUARDED_SAVER_BRAND, isGuardedSaver } from "./mode-gate.js";

export interface DeerflowSqliteSaverOptions {
  /** Checkpoint channel mode of this process (docs/architecture.md, Checkpoints). Default "full". */
  channelMode?: ChannelMode;
  serde?: SerializerProtocol;
}

/** Highest row ids at a point in time (see `mark`). */
export interface RollbackMark {
  checkpoints: number;
  writes: number;
  blobs: number;
}

interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string | null;
  checkpoint: Uint8Array | string;
  metadata: Uint8Array | string;
}

interface WriteRow {
  task_id: string;
  task_path: string | null;
  idx: number;
  channel: string;
  type: string | null;
  value: Uint8Array | string | null;
}

const CHECKPOINT_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata";
const MODE_SQL = `COALESCE(json_extract(CAST(metadata AS TEXT), '$.${CHANNEL_MODE_METADATA_KEY}'), 'full')`;

/** Rows in `writesSortKey` order: the order live execution applies a superstep's writes in. */
function sortWrites(rows: WriteRow[]): WriteRow[] {
  return rows
    .map((row) => ({ row, key: writesSortKey(row.task_path ?? "", row.task_id, row.idx) }))
    .sort((a, b) => compareWritesSortKeys(a.key, b.key))
    .map(({ row }) => row);
}

export class DeerflowSqliteSaver extends BaseCheckpointSaver<number> {
  readonly [GUARDED_SAVER_BRAND] = true as const;
  readonly db: Database.Database;
  readonly channelMode: ChannelMode;
  /** Thread ids already checked against `channelMode` (the gate runs one query per thread). */
  private readonly verifiedThreads = new Set<string>();
  private readonly stmts: ReturnType<DeerflowSqliteSaver["prepare"]>;

  /** `db`: an open better-sqlite3 Database, or a file path (":memory:" works too). */
  constructor(db: Database.Database | string, options: DeerflowSqliteSaverOptions = {}) {
    super(options.serde);
    this.channelMode = options.channelMode ?? "full";
    if (this.channelMode !== "full" && this.channelMode !== "delta") {
      throw new TypeError(`channelMode must be "full" or "delta" (got ${JSON.stringify(this.channelMode)})`);
    }
    this.db = typeof db === "string" ? new Database(db) : db;
    try {
      this.setup();
      this.stmts = this.prepare();
    } catch (err) {
      // A file this constructor opened is closed again: nobody else holds the handle (a corrupt or locked file, a
      // full disk), and an open handle keeps its WAL and locks alive until the process exits.
      if (typeof db === "string") this.db.close();
      throw err;
    }
  }

  /** Open (creating parent directories and the file if needed) a checkpoint database. */
  static open(path: string, options: DeerflowSqliteSaverOptions = {}): DeerflowSqliteSaver {
    if (path !== ":memory:" && path !== "") mkdirSync(dirname(resolve(path)), { recursive: true });
    return new DeerflowSqliteSaver(path, options);
  }

  /** Close the underlying database connection (idempotent). */
  close(): void {
    if (this.db.open) this.db.close();
  }

  private setup(): void {
    ensureSchema(this.db);
  }

  private prepare() {
    const db = this.db;
    return {
      latest: db.prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`),
      byId: db.prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`),
      writes: db.prepare(`SELECT task_id, task_path, idx, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`),
      sends: db.prepare(`SELECT task_id, task_path, idx, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = '${TASKS}'`),
      blob: db.prepare(`SELECT type, value FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?`),
      insertBlob: db.prepare(`INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value) VALUES (?, ?, ?, ?, ?, ?)`),
      insertCheckpoint: db.prepare(`INSERT OR REPLACE INTO checkpoints (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertWriteReplace: db.prepare(`INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertWriteIgnore: db.prepare(`INSERT OR IGNORE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // A mismatching marker sorts first, so one row answers "is any checkpoint of another mode?".
      threadMode: db.prepare(`SELECT ${MODE_SQL} AS mode FROM checkpoints WHERE thread_id = ? ORDER BY (${MODE_SQL} = ?) ASC LIMIT 1`),
    };
  }

  // ---- mode gate ---------------------------------------------------------------------------------

  /**
   * The channel mode a thread's checkpoints were saved in: a mode different from this process's if
   * any checkpoint carries one, else this process's mode; undefined for a thread with no checkpoints.
   */
  getThreadChannelMode(threadId: string): string | undefined {
    const row = this.stmts.threadMode.get(threadId, this.channelMode) as { mode: string } | undefined;
    return row?.mode;
  }

  /** Fail closed: throw when the thread was saved in another channel mode (docs/architecture.md, Checkpoints). */
  private assertThreadMode(threadId: string): void {
    if (this.verifiedThreads.has(threadId)) return;
    const stored = this.getThreadChannelMode(threadId);
    if (stored === undefined) return; // no checkpoints yet: nothing to protect, check again next time
    if (stored !== this.channelMode) throw new CheckpointModeMismatchError(threadId, stored, this.channelMode);
    this.verifiedThreads.add(threadId);
  }

  // ---- reads -------------------------------------------------------------------------------------

  private async loadSortedWrites(rows: WriteRow[]): Promise<CheckpointPendingWrite[]> {
    return Promise.all(sortWrites(rows).map(async (w): Promise<CheckpointPendingWrite> => [w.task_id, w.channel, await this.serde.loadsTyped(...unpackValue(w.type ?? "json", w.value ?? ""))]));
  }

  /** Stored value of `channel` at `version`, or `undefined` when none was stored (a delta step). */
  private async loadBlob(threadId: string, ns: string, channel: string, version: unknown): Promise<{ value: unknown } | undefined> {
    const blob = this.stmts.blob.get(threadId, ns, channel, String(version)) as { type: string; value: Uint8Array | null } | undefined;
    if (blob === undefined) return undefined;
    return { value: await this.serde.loadsTyped(...unpackValue(blob.type, blob.value ?? "")) };
  }

  private async rowToTuple(row: CheckpointRow, config: RunnableConfig): Promise<CheckpointTuple> {
    const { thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id } = row;
    const checkpoint = (await this.serde.loadsTyped(row.type ?? "json", row.checkpoint)) as Checkpoint;
    // Inline values (rows written by the stock SqliteSaver) win; blobs fill the rest.
    const values: Record<string, unknown> = { ...(checkpoint.channel_values ?? {}) };
    for (const [channel, version] of Object.entries(checkpoint.channel_versions ?? {})) {
      if (Object.prototype.hasOwnProperty.call(values, channel)) continue;
      const blob = await this.loadBlob(thread_id, checkpoint_ns, channel, version);
      if (blob !== undefined) values[channel] = blob.value;
    }
    checkpoint.channel_values = values;
    if (checkpoint.v < 4 && parent_checkpoint_id != null) {
      // Pre-v4 checkpoints kept pending sends as TASKS writes on the parent.
      const sends = this.stmts.sends.all(thread_id, checkpoint_ns, parent_checkpoint_id) as WriteRow[];
      checkpoint.channel_values[TASKS] = (await this.loadSortedWrites(sends)).map((w) => w[2]);
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }
    const metadata = (await this.serde.loadsTyped(row.type ?? "json", row.metadata)) as CheckpointMetadata & Record<string, unknown>;
    const { [CHANNEL_MODE_METADATA_KEY]: _marker, [PRUNED_METADATA_KEY]: _pruned, ...publicMetadata } = metadata;
    const writes = this.stmts.writes.all(thread_id, checkpoint_ns, checkpoint_id) as WriteRow[];
    return {
      config,
      checkpoint,
      metadata: publicMetadata as CheckpointMetadata,
      parentConfig: parent_checkpoint_id ? { configurable: { thread_id, checkpoint_ns, checkpoint_id: parent_checkpoint_id } } : undefined,
      pendingWrites: await this.loadSortedWrites(writes),
    };
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined || threadId === null) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const checkpointId = getCheckpointId(config);
    this.assertThreadMode(threadId);
    const row = (checkpointId ? this.stmts.byId.get(threadId, ns, checkpointId) : this.stmts.latest.get(threadId, ns)) as CheckpointRow | undefined;
    if (row === undefined) return undefined;
    const tupleConfig = checkpointId ? config : { configurable: { thread_id: row.thread_id, checkpoint_ns: ns, checkpoint_id: row.checkpoint_id } };
    return this.rowToTuple(row, tupleConfig);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options ?? {};
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = config.configurable?.checkpoint_ns as string | undefined | null;
    if (threadId) this.assertThreadMode(threadId);
    const where: string[] = [];
    const args: unknown[] = [];
    if (threadId) {
      where.push("thread_id = ?");
      args.push(threadId);
    }
    if (ns !== undefined && ns !== null) {
      where.push("checkpoint_ns = ?");
      args.push(ns);
    }
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    if (beforeId !== undefined) {
      where.push("checkpoint_id < ?");
      args.push(beforeId);
    }
    for (const [key, value] of Object.entries(filter ?? {})) {
      if (value === undefined) continue;
      where.push("json(CAST(metadata AS TEXT)) -> ? = ?");
      args.push(`$.${key}`, JSON.stringify(value));
    }
    let sql = `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints`;
    if (where.length > 0) sql += ` WHERE ${where.join(" AND ")}`;
    sql += " ORDER BY checkpoint_id DESC";
    if (limit) sql += ` LIMIT ${Number.parseInt(String(limit), 10)}`;
    const rows = this.db.prepare(sql).all(...args) as CheckpointRow[];
    for (const row of rows) {
      // Unscoped listings cross threads: check each thread the first time it shows up.
      if (!threadId) this.assertThreadMode(row.thread_id);
      yield await this.rowToTuple(row, {
        configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.checkpoint_id },
      });
    }
  }

  /**
   * Walk the parent chain for `DeltaChannel` reconstruction (same contract as the base walk and
   * `MemorySaver`), reading rows directly: the base walk calls `getTuple` per ancestor, which would
   * deserialize every channel's blob and every write at each step of the chain.
   */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const remaining = new Set(channels);
    const blocks = new Map<string, CheckpointPendingWrite[][]>(channels.map((ch) => [ch, []]));
    const seeds = new Map<string, unknown>();
    if (threadId !== undefined && threadId !== null) {
      this.assertThreadMode(threadId);
      const checkpointId = getCheckpointId(config);
      const target = (checkpointId ? this.stmts.byId.get(threadId, ns, checkpointId) : this.stmts.latest.get(threadId, ns)) as CheckpointRow | undefined;
      let cursor = target?.parent_checkpoint_id ?? null;
      while (cursor !== null && remaining.size > 0) {
        const row = this.stmts.byId.get(threadId, ns, cursor) as CheckpointRow | undefined;
        if (row === undefined) break;
        // Writes stored on this ancestor (they produced its child), for the channels still walking.
        const writeRows = (this.stmts.writes.all(threadId, ns, cursor) as WriteRow[]).filter((w) => remaining.has(w.channel));
        const perChannel = new Map<string, CheckpointPendingWrite[]>();
        for (const write of await this.loadSortedWrites(writeRows)) {
          const block = perChannel.get(write[1]) ?? [];
          block.push(write);
          perChannel.set(write[1], block);
        }
        for (const [ch, block] of perChannel) blocks.get(ch)!.push(block);
        // A value stored at this ancestor (inline or as a blob of its version) is the seed.
        const checkpoint = (await this.serde.loadsTyped(row.type ?? "json", row.checkpoint)) as Checkpoint;
        for (const ch of Array.from(remaining)) {
          const inline = checkpoint.channel_values ?? {};
          if (Object.prototype.hasOwnProperty.call(inline, ch) && (inline as Record<string, unknown>)[ch] !== undefined) {
            seeds.set(ch, (inline as Record<string, unknown>)[ch]);
            remaining.delete(ch);
            continue;
          }
          const version = (checkpoint.channel_versions ?? {})[ch];
          if (version === undefined) continue;
          const blob = await this.loadBlob(threadId, ns, ch, version);
          if (blob !== undefined) {
            seeds.set(ch, blob.value);
            remaining.delete(ch);
          }
        }
        cursor = row.parent_checkpoint_id;
      }
    }
    const result: Record<string, DeltaChannelHistory> = {};
    for (const ch of channels) {
      // Blocks were collected newest ancestor first; replay is oldest → newest.
      const entry: DeltaChannelHistory = { writes: blocks.get(ch)!.slice().reverse().flat() };
      if (seeds.has(ch)) entry.seed = seeds.get(ch);
      result[ch] = entry;
    }
    return result;
  }

  // ---- writes ------------------------------------------------------------------------------------

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const threadId = config.configurable.thread_id as string | undefined;
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? "";
    const parentId = (config.configurable.checkpoint_id as string | undefined) ?? null;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    this.assertThreadMode(threadId);

    // Only channels with a new version are stored, each once per version (see the header).
    const versions = newVersions ?? checkpoint.channel_versions;
    const blobs = await Promise.all(
      Object.entries(versions)
        .filter(([ch]) => Object.prototype.hasOwnProperty.call(checkpoint.channel_values, ch))
        .filter(([ch]) => (checkpoint.channel_values as Record<string, unknown>)[ch] !== undefined)
        .map(async ([ch, version]) => {
          const [type, value] = packValue(await this.serde.dumpsTyped((checkpoint.channel_values as Record<string, unknown>)[ch]));
          return [threadId, ns, ch, String(version), type, value] as const;
        }),
    );
    const stored = { ...copyCheckpoint(checkpoint), channel_values: {} };
    const markedMetadata = { ...metadata, [CHANNEL_MODE_METADATA_KEY]: this.channelMode };
    const [[checkpointType, checkpointBytes], [metadataType, metadataBytes]] = await Promise.all([this.serde.dumpsTyped(stored), this.serde.dumpsTyped(markedMetadata)]);
    if (checkpointType !== metadataType) throw new Error("Failed to serialize checkpoint and metadata to the same type.");

    this.db.transaction(() => {
      for (const blob of blobs) this.stmts.insertBlob.run(...blob);
      this.stmts.insertCheckpoint.run(threadId, ns, checkpoint.id, parentId, checkpointType, checkpointBytes, metadataBytes);
    })();
    this.verifiedThreads.add(threadId);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const threadId = config.configurable.thread_id as string | undefined;
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? "";
    const checkpointId = config.configurable.checkpoint_id as string | undefined;
    if (!threadId) throw new Error("Missing thread_id field in config.configurable.");
    if (!checkpointId) throw new Error("Missing checkpoint_id field in config.configurable.");
    this.assertThreadMode(threadId);
    // Same rule as the stock savers: special writes (errors, interrupts, resume…) replace, others
    // are written once.
    const allSpecial = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const insert = allSpecial ? this.stmts.insertWriteReplace : this.stmts.insertWriteIgnore;
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, bytes] = packValue(await this.serde.dumpsTyped(value));
        return [threadId, ns, checkpointId, taskId, taskPath ?? "", WRITES_IDX_MAP[channel] ?? idx, channel, type, bytes] as const;
      }),
    );
    this.db.transaction(() => {
      for (const row of rows) insert.run(...row);
    })();
  }

  /**
   * A mark of everything stored so far (the highest row of each table). `rollbackTo(thread, mark)` removes all that
   * the thread gained after it, so a failed run leaves the thread exactly as after the last good run.
   */
  mark(): RollbackMark {
    const max = (table: string) => (this.db.prepare(`SELECT COALESCE(MAX(rowid), 0) AS m FROM ${table}`).get() as { m: number }).m;
    return { checkpoints: max("checkpoints"), writes: max("writes"), blobs: max("checkpoint_blobs") };
  }

  rollbackTo(threadId: string, mark: RollbackMark): void {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND rowid > ?").run(threadId, mark.checkpoints);
      this.db.prepare("DELETE FROM writes WHERE thread_id = ? AND rowid > ?").run(threadId, mark.writes);
      this.db.prepare("DELETE FROM checkpoint_blobs WHERE thread_id = ? AND rowid > ?").run(threadId, mark.blobs);
    })();
  }

  /**
   * Slims the thread's step checkpoints that rollback and rewind cannot go back to (policy: checkpoint-prune.ts), then
   * gives the file's free pages back to the disk (sqlite-space.ts).
   */
  async prune(threadId: string, marks: readonly RollbackMark[]): Promise<PruneResult> {
    const mode = this.getThreadChannelMode(threadId);
    if (mode === undefined) return { checkpoints: 0, writes: 0, blobs: 0 };
    const result = await pruneThreadCheckpoints(this.db, this.serde, threadId, mode as ChannelMode, marks);
    returnFreePages(this.db);
    return result;
  }

  async deleteThread(threadId: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM checkpoints WHERE thread_id = ?").run(threadId);
      this.db.prepare("DELETE FROM writes WHERE thread_id = ?").run(threadId);
      this.db.prepare("DELETE FROM checkpoint_blobs WHERE thread_id = ?").run(threadId);
    })();
    this.verifiedThreads.delete(threadId);
  }

  /**
   * `floor(current) + 1 + a random fraction`: monotonic, numeric (compares correctly with the integer
   * versions of legacy threads) and unique across forks, which share the blob table.
   */
  override getNextVersion(current: number | undefined): number {
    const base = typeof current === "number" ? current : typeof current === "string" ? Number.parseFloat(current) || 0 : 0;
    return Math.floor(base) + 1 + Math.random();
  }
}
