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
import { MessageArchive } from "../../src/persistence/message-archive.js";
import { ensureSchema } from "../../src/persistence/sqlite-schema.js";
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

// Made at run time: PROSE is this file's own text, which holds every literal written here.
const TAG = ["zq", "7x"].join("");

describe("the message archive stores long texts deflated", () => {
  it("a long original is a BLOB on disk, read back whole, and found by search; short ones stay text", () => {
    ensureSchema(saver.db);
    const archive = new MessageArchive(saver.db);
    archive.put("t", null, [
      { message_id: "m1", role: "assistant", text: `${PROSE}needle-in-the-haystack` },
      { message_id: "m2", role: "user", text: `the ${TAG} question` },
    ]);
    const stored = saver.db.prepare("SELECT message_id, typeof(text) AS kind FROM message_archive ORDER BY seq").all();
    expect(stored).toEqual([
      { message_id: "m1", kind: "blob" },
      { message_id: "m2", kind: "text" },
    ]);
    expect(archive.range("t", 1, 2).map((m) => m.text)).toEqual([`${PROSE}needle-in-the-haystack`, `the ${TAG} question`]);
    expect(archive.search("t", "NEEDLE-in-the", 5).map((m) => m.message_id)).toEqual(["m1"]);
    expect(archive.search("t", `${TAG.toUpperCase()} QUEST`, 5).map((m) => m.message_id)).toEqual(["m2"]);
  });
});
