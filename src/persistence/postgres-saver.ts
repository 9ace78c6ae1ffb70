// DeerFlow's PostgreSQL checkpointer: LangGraph's PostgresSaver (@langchain/langgraph-checkpoint-postgres 1.0.5)
// extended the way DeerflowSqliteSaver extends the stock SQLite one (see sqlite-saver.ts for the why):
//  1. Pending writes keep their task path (`checkpoint_writes.task_path`) and come back in `writesSortKey` order
//     (task_path, task_id, idx), compared by code point: `COLLATE "C"` orders UTF-8 text by bytes, which is code
//     point order. The stock saver orders by (task_id, idx) only.
//  2. Channel-mode markers (`metadata.deerflow_channel_mode`, hidden again on read) and the fail-closed gate.
//  3. Rollback marks: every checkpoint table gets a `seq` (bigserial) column; a mark is the highest seq of each, and
//     `rollbackTo` removes what the thread gained after it.
// The stock saver's own migrations run first (its `checkpoint_migrations` table); ours follow in `postgres-schema.ts`.
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  WRITES_IDX_MAP,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { CHANNEL_MODE_METADATA_KEY, PRUNED_METADATA_KEY, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import type { PruneResult } from "./checkpoint-prune.js";
import { prunePostgresThread } from "./postgres-prune.js";
import { CheckpointModeMismatchError, GUARDED_SAVER_BRAND } from "./mode-gate.js";
import { PG_SCHEMA, migratePostgres } from "./postgres-schema.js";
import { DatabaseUnavailableError, isConnectionFault, withRetry } from "./postgres-connection.js";
import { findDeerflowError } from "../errors.js";
import type { RollbackMark } from "./sqlite-saver.js";

export interface DeerflowPostgresSaverOptions {
  channelMode?: ChannelMode;
  /** The database's URL, to name it (without its password) when it cannot be used. */
  url?: string;
  serde?: SerializerProtocol;
  /** Runs once the schema is ready, before the first use (the store undoes runs left pending here). */
  onReady?: () => Promise<void>;
  /** Runs before every write on a thread (the store checks the run still holds the thread's lease). */
  beforeWrite?: (threadId: string) => Promise<void>;
  /** The same check inside a write's transaction, holding the lease row until the commit (the store's fenceIn). */
  fenceIn?: (client: pg.PoolClient, threadId: string) => Promise<void>;
}

const MODE_SQL = `COALESCE(metadata ->> '${CHANNEL_MODE_METADATA_KEY}', 'full')`;

/** The stock SELECT with pending writes aggregated in `writesSortKey` order instead of (task_id, idx). */
function orderedSelect(select: string): string {
  const stock = "order by cw.task_id, cw.idx";
  if (!select.includes(stock)) throw new Error("@langchain/langgraph-checkpoint-postgres changed its SELECT; re-check the pending-write order");
  return select.replace(stock, `order by cw.task_path COLLATE "C", cw.task_id COLLATE "C", cw.idx`);
}

/**
 * A task's pending writes in one statement (one round trip, atomic without a transaction): the rows come in as arrays
 * and `unnest` pairs them up. Upserts when every channel is a special one (WRITES_IDX_MAP: a task's error or
 * interrupt replaces the last), else a write already stored stays (a retried step writes the same rows).
 */
const INSERT_WRITES = (replace: boolean) => `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
  SELECT $1, $2, $3, $4, $5, w.idx, w.channel, w.type, w.blob FROM unnest($6::int[], $7::text[], $8::text[], $9::bytea[]) AS w(idx, channel, type, blob)
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${replace ? "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob, task_path = EXCLUDED.task_path" : "DO NOTHING"}`;

export class DeerflowPostgresSaver extends PostgresSaver {
  readonly [GUARDED_SAVER_BRAND] = true as const;
  readonly channelMode: ChannelMode;
  private readonly verifiedThreads = new Set<string>();
  private ready: Promise<void> | undefined;
  private readonly url: string | undefined;
  private readonly onReady: (() => Promise<void>) | undefined;
  private readonly beforeWrite: ((threadId: string) => Promise<void>) | undefined;
  private readonly fenceIn: DeerflowPostgresSaverOptions["fenceIn"];
  /** The pool (the stock saver keeps its own reference private). */
  readonly db: pg.Pool;

  constructor(pool: pg.Pool, options: DeerflowPostgresSaverOptions = {}) {
    super(pool, options.serde, { schema: PG_SCHEMA });
    this.db = pool;
    this.url = options.url;
    this.onReady = options.onReady;
    this.beforeWrite = options.beforeWrite;
    this.fenceIn = options.fenceIn;
    this.channelMode = options.channelMode ?? "full";
    if (this.channelMode !== "full" && this.channelMode !== "delta") {
      throw new TypeError(`channelMode must be "full" or "delta" (got ${JSON.stringify(this.channelMode)})`);
    }
    // The stock statements are private in its typings, but they are what its reads run.
    const stock = this as unknown as { SQL_STATEMENTS: { SELECT_SQL: string } };
    stock.SQL_STATEMENTS.SELECT_SQL = orderedSelect(stock.SQL_STATEMENTS.SELECT_SQL);
  }

  /** The stock tables, then ours, once per process; concurrent first uses serialize on an advisory lock. */
  override setup(): Promise<void> {
    const prepare = async () => {
      await migratePostgres(this.db, () => super.setup());
      await this.onReady?.();
    };
    return (this.ready ??= prepare().catch((err: unknown) => {
      this.ready = undefined;
      // Our own refusals (a newer or foreign schema) stand; the server's are said as what they mean.
      throw findDeerflowError(err) ? err : new DatabaseUnavailableError(this.url ?? "postgres://(unnamed)", err);
    }));
  }

  // ---- mode gate ---------------------------------------------------------------------------------

  async getThreadChannelMode(threadId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ mode: string }>(`SELECT ${MODE_SQL} AS mode FROM checkpoints WHERE thread_id = $1 ORDER BY (${MODE_SQL} = $2) ASC LIMIT 1`, [threadId, this.channelMode]);
    return rows[0]?.mode;
  }

  private async assertThreadMode(threadId: string): Promise<void> {
    if (this.verifiedThreads.has(threadId)) return;
    const stored = await this.getThreadChannelMode(threadId);
    if (stored === undefined) return;
    if (stored !== this.channelMode) throw new CheckpointModeMismatchError(threadId, stored, this.channelMode);
    this.verifiedThreads.add(threadId);
  }

  private static hideMarker(tuple: CheckpointTuple): CheckpointTuple {
    const { [CHANNEL_MODE_METADATA_KEY]: _marker, [PRUNED_METADATA_KEY]: _pruned, ...rest } = (tuple.metadata ?? {}) as Record<string, unknown>;
    return { ...tuple, metadata: rest as CheckpointMetadata };
  }

  // ---- reads -------------------------------------------------------------------------------------

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined || threadId === null) return undefined;
    await this.setup();
    await this.assertThreadMode(threadId);
    // Its reads are single statements, which the pool retries.
    const tuple = await super.getTuple(config);
    return tuple && DeerflowPostgresSaver.hideMarker(tuple);
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.setup();
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId) await this.assertThreadMode(threadId);
    for await (const tuple of super.list(config, options)) {
      if (!threadId) await this.assertThreadMode(tuple.config.configurable?.thread_id as string);
      yield DeerflowPostgresSaver.hideMarker(tuple);
    }
  }

  // ---- writes ------------------------------------------------------------------------------------

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    await this.setup();
    await this.assertThreadMode(threadId);
    await this.beforeWrite?.(threadId);
    // Upserts: a retry after a dropped connection writes the same rows again.
    const marked = { ...metadata, [CHANNEL_MODE_METADATA_KEY]: this.channelMode } as CheckpointMetadata;
    const next = await withRetry(() => super.put(config, checkpoint, marked, newVersions));
    this.verifiedThreads.add(threadId);
    return next;
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (!threadId) throw new Error("Missing thread_id field in config.configurable.");
    if (!checkpointId) throw new Error("Missing checkpoint_id field in config.configurable.");
    await this.setup();
    await this.assertThreadMode(threadId);
    await this.beforeWrite?.(threadId);
    const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    // One row per idx, as statements run one by one would leave it (the last upsert wins; the first insert stays):
    // one statement cannot touch a row twice.
    const byIdx = new Map<number, [number, string, string, Buffer]>();
    for (const [idx, [channel, value]] of writes.entries()) {
      const at = WRITES_IDX_MAP[channel] ?? idx;
      if (byIdx.has(at) && !replace) continue;
      const [type, bytes] = await this.serde.dumpsTyped(value);
      byIdx.set(at, [at, channel, type, Buffer.from(bytes)]);
    }
    const rows = [...byIdx.values()];
    // A single statement: the pool retries it across a restart (openPool).
    await this.db.query(INSERT_WRITES(replace), [threadId, ns, checkpointId, taskId, taskPath ?? "", rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])]);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.setup();
    await super.deleteThread(threadId);
    this.verifiedThreads.delete(threadId);
  }

  // ---- pruning -----------------------------------------------------------------------------------

  /** Slims the thread's step checkpoints that rollback and rewind cannot go back to (policy: checkpoint-prune.ts). */
  async prune(threadId: string, marks: readonly RollbackMark[]): Promise<PruneResult> {
    await this.setup();
    const mode = await this.getThreadChannelMode(threadId);
    if (mode === undefined) return { checkpoints: 0, writes: 0, blobs: 0 };
    return prunePostgresThread(this, threadId, mode as ChannelMode, marks);
  }

  /** The store's lease check inside a write's transaction (holds the lease row until the commit), for writes made outside the saver. */
  async fenceOn(client: pg.PoolClient, threadId: string): Promise<void> {
    await this.fenceIn?.(client, threadId);
  }

  // ---- rollback marks ----------------------------------------------------------------------------

  async mark(): Promise<RollbackMark> {
    await this.setup();
    const { rows } = await this.db.query<{ c: string; w: string; b: string }>(
      `SELECT (SELECT COALESCE(MAX(seq), 0) FROM checkpoints) AS c, (SELECT COALESCE(MAX(seq), 0) FROM checkpoint_writes) AS w, (SELECT COALESCE(MAX(seq), 0) FROM checkpoint_blobs) AS b`,
    );
    return { checkpoints: Number(rows[0]!.c), writes: Number(rows[0]!.w), blobs: Number(rows[0]!.b) };
  }

  async rollbackTo(threadId: string, mark: RollbackMark): Promise<void> {
    // Fenced in the transaction (no check before it too): a run that lost the thread must never delete the rows of the
    // run that took it.
    await withRetry(() =>
      this.transaction(async (client) => {
        await this.fenceOn(client, threadId);
        await DeerflowPostgresSaver.rollbackWith(client, threadId, mark);
      }),
    );
  }

  /** `rollbackTo` inside the caller's transaction. */
  static async rollbackWith(client: pg.PoolClient, threadId: string, mark: RollbackMark): Promise<void> {
    await client.query("DELETE FROM checkpoints WHERE thread_id = $1 AND seq > $2", [threadId, mark.checkpoints]);
    await client.query("DELETE FROM checkpoint_writes WHERE thread_id = $1 AND seq > $2", [threadId, mark.writes]);
    await client.query("DELETE FROM checkpoint_blobs WHERE thread_id = $1 AND seq > $2", [threadId, mark.blobs]);
  }

  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.db.connect();
    let failed = false;
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      failed = isConnectionFault(err);
      throw err;
    } finally {
      // A connection that failed is closed rather than handed out again.
      client.release(failed);
    }
  }

  close(): Promise<void> {
    return this.end();
  }
}
