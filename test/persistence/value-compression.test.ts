// Large channel values and pending writes are stored deflated (persistence/value-compression.ts): a thread's
// messages are most of the file, and a delta-mode thread keeps each one twice. What a user would notice: every
// value reads back as written, rows written before compression (plain JSON) still read, small values stay as
// they are, and the SQL that reads checkpoint metadata keeps working on a file full of deflated rows.
import { AIMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeerflowSqliteSaver } from "../../src/persistence/index.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => void;
let saver: DeerflowSqliteSaver;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  saver = DeerflowSqliteSaver.open(join(dir, "t.sqlite"), { channelMode: "full" });
});
afterEach(() => {
  saver.close();
  cleanup();
});

// Real text (this test's own source), as an answer quoting code would carry.
const PROSE = readFileSync(new URL(import.meta.url), "utf8").repeat(3);

async function seed() {
  const values = { messages: [new AIMessage({ content: PROSE, id: "m1" })], title: "short" };
  const versions = { messages: 1, title: 1 };
  const config = await saver.put(
    { configurable: { thread_id: "t", checkpoint_ns: "" } },
    { ...emptyCheckpoint(), id: uuid6(0), channel_values: values, channel_versions: versions },
    { source: "loop", step: 0, parents: {} },
    versions,
  );
  await saver.putWrites(
    config,
    [
      ["messages", new AIMessage({ content: PROSE, id: "m2" })],
      ["title", "t2"],
    ],
    "task-1",
  );
  return config;
}

const types = (table: string) =>
  Object.fromEntries((saver.db.prepare(`SELECT channel, type, length(value) AS n FROM ${table}`).all() as { channel: string; type: string; n: number }[]).map((r) => [r.channel, r]));

describe("stored values are deflated past a kilobyte", () => {
  it("large values are stored deflated and read back whole; small ones are stored as they are", async () => {
    const config = await seed();
    const blobs = types("checkpoint_blobs");
    expect(blobs.messages!.type).toBe("json+deflate");
    expect(blobs.messages!.n).toBeLessThan(PROSE.length / 2);
    expect(blobs.title!.type).toBe("json");
    expect(types("writes").messages!.type).toBe("json+deflate");
    expect(types("writes").title!.type).toBe("json");

    const tuple = (await saver.getTuple(config))!;
    const values = tuple.checkpoint.channel_values as { messages: AIMessage[]; title: string };
    expect(values.messages[0]!.content).toBe(PROSE);
    expect(values.title).toBe("short");
    expect(tuple.pendingWrites!.map(([, ch, v]) => [ch, ch === "messages" ? (v as AIMessage).content : v])).toEqual([
      ["messages", PROSE],
      ["title", "t2"],
    ]);
    // Metadata stays JSON the SQL can read (the checkpoint mode marker).
    expect(saver.db.prepare("SELECT json_extract(CAST(metadata AS TEXT), '$.source') AS s FROM checkpoints").get()).toEqual({ s: "loop" });
  });

  it("rows written before compression, as plain JSON, still read", async () => {
    const config = await seed();
    // Rewrite the deflated rows as a deerflow without compression stored them.
    const plain = (table: string) => {
      const rows = saver.db.prepare(`SELECT rowid, value FROM ${table} WHERE type = 'json+deflate'`).all() as { rowid: number; value: Buffer }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) saver.db.prepare(`UPDATE ${table} SET type = 'json', value = ? WHERE rowid = ?`).run(inflateRawSync(r.value), r.rowid);
    };
    plain("checkpoint_blobs");
    plain("writes");
    const tuple = (await saver.getTuple(config))!;
    expect((tuple.checkpoint.channel_values as { messages: AIMessage[] }).messages[0]!.content).toBe(PROSE);
    expect((tuple.pendingWrites![0]![2] as AIMessage).content).toBe(PROSE);
  });
});
