// What DeerflowPostgresSaver adds to LangGraph's PostgresSaver, on a real server: pending writes in MemorySaver's
// (writesSortKey) order, the channel-mode gate, rollback marks, and the schema's versioned migrations (an older
// schema is brought forward; a newer one, or a "deerflow" schema of another application, is refused).
import type { RunnableConfig } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type PendingWrite } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CheckpointModeMismatchError } from "../../src/persistence/mode-gate.js";
import { openPool } from "../../src/persistence/postgres-connection.js";
import { DeerflowPostgresSaver } from "../../src/persistence/postgres-saver.js";
import { PG_MIGRATIONS } from "../../src/persistence/postgres-schema.js";
import type { ChannelMode } from "../../src/vocabulary/checkpoint-modes.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const savers: DeerflowPostgresSaver[] = [];
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterEach(async () => {
  for (const s of savers.splice(0)) await s.close();
});
afterAll(async () => db?.drop());

function saver(channelMode: ChannelMode = "full", url = db.url): DeerflowPostgresSaver {
  const s = new DeerflowPostgresSaver(openPool(url), { channelMode });
  savers.push(s);
  return s;
}

// Inserted in an order that is neither the path order nor the task-id order; one path holds an astral character,
// where code-point order and UTF-16 order differ.
const WRITES: { taskId: string; taskPath: string; writes: PendingWrite[] }[] = [
  {
    taskId: "task-a",
    taskPath: "~__pregel_push, 0000000002",
    writes: [
      ["messages", "a0"],
      ["messages", "a1"],
    ],
  },
  { taskId: "task-c", taskPath: "~__pregel_push, 0000000000", writes: [["messages", "c0"]] },
  { taskId: "task-0", taskPath: "", writes: [["messages", "input"]] },
  {
    taskId: "task-b",
    taskPath: "~__pregel_push, 0000000001",
    writes: [
      ["messages", "b0"],
      ["other", "b1"],
    ],
  },
  { taskId: "task-d", taskPath: "\u{1F600}", writes: [["messages", "d0"]] },
  { taskId: "task-e", taskPath: "\uFF5E", writes: [["messages", "e0"]] },
];

async function seed(s: BaseCheckpointSaver, threadId: string): Promise<RunnableConfig> {
  const checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { messages: ["seed"] }, channel_versions: { messages: 1 } };
  const c0 = await s.put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, checkpoint, { source: "loop", step: 0, parents: {} }, { messages: 1 });
  for (const w of WRITES) await s.putWrites(c0, w.writes, w.taskId, w.taskPath);
  return c0;
}

describe.skipIf(pgSkip)("DeerflowPostgresSaver", () => {
  it("returns pending writes in MemorySaver's order (task path by code point, task id, idx)", async () => {
    const memory = new MemorySaver();
    const expected = (await memory.getTuple(await seed(memory, "t")))!.pendingWrites;
    const s = saver();
    const c0 = await seed(s, "order");
    expect((await s.getTuple(c0))!.pendingWrites).toEqual(expected);
    const listed = [];
    for await (const t of s.list({ configurable: { thread_id: "order" } })) listed.push(t);
    expect(listed[0]!.pendingWrites).toEqual(expected);
    // Another process (a fresh pool) reads the same order.
    expect((await saver().getTuple(c0))!.pendingWrites).toEqual(expected);
  });

  it("marks each checkpoint with its mode, hides the marker, and refuses the thread in the other mode", async () => {
    const delta = saver("delta");
    const c0 = await seed(delta, "gate");
    const tuple = await delta.getTuple(c0);
    expect(tuple!.metadata).not.toHaveProperty("deerflow_channel_mode");
    const raw = await delta.db.query("SELECT metadata FROM checkpoints WHERE thread_id = 'gate'");
    expect(raw.rows[0].metadata.deerflow_channel_mode).toBe("delta");
    await expect(saver("full").getTuple(c0)).rejects.toBeInstanceOf(CheckpointModeMismatchError);
    await expect(saver("full").putWrites(c0, [["x", 1]], "t")).rejects.toBeInstanceOf(CheckpointModeMismatchError);
  });

  it("rolls a thread back to a mark, leaving other threads alone", async () => {
    const s = saver();
    const keep = await seed(s, "rb");
    await seed(s, "other");
    const mark = await s.mark();
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(1), channel_values: { messages: ["later"] }, channel_versions: { messages: 2 } };
    const later = await s.put(keep, checkpoint, { source: "loop", step: 1, parents: {} }, { messages: 2 });
    await s.putWrites(later, [["messages", "w"]], "t1");
    await seed(s, "other2");
    await s.rollbackTo("rb", mark);
    expect((await s.getTuple({ configurable: { thread_id: "rb" } }))!.checkpoint.id).toBe(keep.configurable!.checkpoint_id);
    expect(await s.getTuple({ configurable: { thread_id: "other2" } })).toBeDefined();
  });

  it("migrates an older schema forward and records each version", async () => {
    const old = await createTestDatabase("dfold");
    try {
      // A database at our schema version 1 (before the thread index), as an earlier deerflow left it.
      const first = saver("full", old.url);
      await first.setup();
      await first.db.query("DROP TABLE threads, runs, run_locks; DELETE FROM deerflow_schema_version WHERE v > 1");
      const s = saver("full", old.url);
      await s.setup();
      const { rows } = await s.db.query("SELECT v FROM deerflow_schema_version ORDER BY v");
      expect(rows.map((r) => r.v)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
      expect((await s.db.query("SELECT count(*)::int AS n FROM threads")).rows[0].n).toBe(0);
    } finally {
      for (const s of savers.splice(0)) await s.close();
      await old.drop();
    }
  });

  it("refuses a schema newer than it knows and a deerflow schema made by another application", async () => {
    const other = await createTestDatabase("dfother");
    try {
      const c = new pg.Client({ connectionString: other.url });
      await c.connect();
      await c.query("CREATE SCHEMA deerflow; CREATE TABLE deerflow.threads (id serial primary key, body text)");
      await c.end();
      await expect(saver("full", other.url).setup()).rejects.toThrow(/schema "deerflow" with tables deerflow did not create \(threads\)/);

      const s = saver();
      await s.setup();
      await s.db.query("INSERT INTO deerflow_schema_version (v) VALUES (999)");
      try {
        await expect(saver().setup()).rejects.toThrow(/schema version 999, newer than this deerflow knows/);
      } finally {
        await s.db.query("DELETE FROM deerflow_schema_version WHERE v = 999");
      }
    } finally {
      for (const s of savers.splice(0)) await s.close();
      await other.drop();
    }
  });
});
