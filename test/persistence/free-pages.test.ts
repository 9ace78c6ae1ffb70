// The SQLite file gives back what pruning frees (persistence/sqlite-space.ts), driven through the real runtime against
// the loopback test model, on real files: a new file is in auto_vacuum INCREMENTAL mode and keeps no free pages after
// a run; an existing file is switched with one VACUUM on open, which keeps every rowid (rollback marks and rewinds
// hold rowids) with the SQLite better-sqlite3 ships; a file a live run is using is left until the next open.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, closeChatShell, createChatSession } from "../../src/runtime/chat-session.js";
import { undoRewind } from "../../src/runtime/rewind.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { loadConfig } from "../../src/config/load.js";
import { openSqliteStore, sqliteStoreOf } from "../../src/persistence/store.js";
import type { ScriptedReply, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";

const env = useInProcessModel("deerflow-free-pages-", closeChatShell);
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const SOURCES = new URL("../../src/runtime/", import.meta.url).pathname;
const signal = () => new AbortController().signal;
const file = () => join(home, "deerflow.sqlite");
const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);

/** The conversation as the TUI draws it: "user: …" / "assistant: …" lines (answers cut to 20 characters). */
async function conversation(s: ChatSession, threadId: string): Promise<string[]> {
  const view = await s.resume({ threadId });
  return view.entries.flatMap((e) => (e.kind === "user" || e.kind === "assistant" ? [`${e.kind}: ${e.text.slice(0, 20)}`] : []));
}

/** A turn of the session's thread (its first turn starts the thread). */
async function ask(s: ChatSession, n: number): Promise<string> {
  const r = await s.send({ prompt: `question ${n}` }, () => {}, signal());
  expect(r.result.status).toBe("success");
  return r.result.thread_id;
}

function inFile<T>(read: (db: Database.Database) => T): T {
  const db = new Database(file(), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Each marked table's rows as "rowid primary-key" lines, in rowid order. */
function rowids(db: Database.Database): Record<string, string[]> {
  const keys = { checkpoints: "checkpoint_id", writes: "checkpoint_id || ' ' || task_id || ' ' || idx", checkpoint_blobs: "channel || ' ' || version" };
  return Object.fromEntries(Object.entries(keys).map(([t, k]) => [t, (db.prepare(`SELECT rowid || ' ' || ${k} AS r FROM ${t} ORDER BY rowid`).all() as { r: string }[]).map((x) => x.r)]));
}

async function backTo(s: ChatSession, question: string): Promise<number> {
  const run = (await s.rewindable()).find((r) => r.input === question);
  if (!run) throw new Error(`no run asked ${question}`);
  return run.back;
}

describe("the SQLite file gives back what pruning frees", () => {
  it("a 41-turn thread of 6 KB answers keeps no free pages and holds little more than its live rows, and rolls back and rewinds as before", async () => {
    // ≈ 6 KB answers of real text (slices of this repository's runtime sources): repeated filler deflates to nothing.
    const source = readdirSync(SOURCES)
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .map((f) => readFileSync(join(SOURCES, f), "utf8"))
      .join("\n");
    const answer = (n: number) => `answer ${n} ${source.slice(n * 6000, n * 6000 + 6000)}`;
    let n = 0;
    server.setScript(() => ({ content: answer(++n) }));
    // What pruning leaves, without compaction's archive of the originals (a 32k default window compacts this thread;
    // bench/pruned-disk.mjs reports both).
    writeFileSync(join(cwd, ".deerflowrc"), JSON.stringify({ compaction: { enabled: false } }));
    const s = createChatSession({ home, model: "test-model", cwd });
    let threadId = "";
    for (let i = 1; i <= 41; i++) threadId = await ask(s, i);

    // The store is still open: the file and its WAL together, as they are on disk now.
    const open = size(file()) + size(`${file()}-wal`);
    const inside = inFile((db) => ({
      autoVacuum: db.pragma("auto_vacuum", { simple: true }),
      free: db.pragma("freelist_count", { simple: true }),
      used: (db.prepare("SELECT SUM(pgsize - unused) AS b FROM dbstat").get() as { b: number }).b,
    }));
    expect(inside).toMatchObject({ autoVacuum: 2, free: 0 });
    // Before: 2.3 MB (sparse pages of slimmed rows, free pages, a 4 MB WAL) for 1 MB of live rows; then 1.27 MB before
    // large values were stored deflated (persistence/value-compression.ts).
    expect(open).toBeLessThanOrEqual(1024 * 1024);
    expect(open / inside.used).toBeLessThan(1.7);

    // A failing run still rolls back, a rewind and its undo still work on the packed file.
    server.setScript([{ status: 400, error: "bad request" }]);
    await expect(s.send({ prompt: "question 42" }, () => {}, signal())).rejects.toThrow();
    const all = await conversation(s, threadId);
    expect(all).toHaveLength(82);
    expect(all.slice(-2)).toEqual(["user: question 41", `assistant: ${answer(41).slice(0, 20)}`]);
    await s.rewind(await backTo(s, "question 40"), "conversation");
    expect(await conversation(s, threadId)).toEqual(all.slice(0, 78));
    const runtime = ThreadRuntime.for(loadConfig({ cwd, flags: { home } }));
    await undoRewind({ home, store: sqliteStoreOf(runtime.store, "Rewind"), runtime, threadId });
    expect(await conversation(s, threadId)).toEqual(all);
  }, 240_000);

  it("an existing file is switched to INCREMENTAL on open with every rowid kept: marks taken before still roll back, rewinds still undo", async () => {
    const turn = (n: number): ScriptedReply[] => [{ toolCalls: [{ name: "bash", args: { command: `echo step ${n}` } }] }, { content: `answer ${n}` }];
    const agent = [...turn(1), ...turn(2), ...turn(3)];
    server.setScript(() => agent.shift() ?? { content: "(unscripted reply)" });
    const s = createChatSession({ home, model: "test-model", cwd });
    let threadId = "";
    for (const i of [1, 2, 3]) threadId = await ask(s, i);
    await s.rewind(await backTo(s, "question 3"), "conversation");
    await closeChatShell();

    // The file as deerflow wrote it before INCREMENTAL mode (NONE), with the holes pruning and rewinding leave.
    const legacy = new Database(file());
    legacy.pragma("auto_vacuum = NONE");
    legacy.exec("VACUUM");
    expect(legacy.pragma("auto_vacuum", { simple: true })).toBe(0);
    const before = rowids(legacy);
    const holes = (t: string) => (legacy.prepare(`SELECT MAX(rowid) - COUNT(*) AS h FROM ${t}`).get() as { h: number }).h;
    expect(holes("writes")).toBeGreaterThan(0);
    expect(holes("checkpoint_blobs")).toBeGreaterThan(0);
    const mark = JSON.parse((legacy.prepare("SELECT mark FROM runs WHERE input = 'question 2'").get() as { mark: string }).mark);
    legacy.close();

    const store = openSqliteStore(home, "delta");
    expect(store.sqlite.pragma("auto_vacuum", { simple: true })).toBe(2);
    expect(rowids(store.sqlite)).toEqual(before);
    // The mark of run 2, taken before the VACUUM, still cuts the thread back to after run 1.
    store.saver.rollbackTo(threadId, mark);
    store.close();
    const s2 = createChatSession({ home, model: "test-model", cwd });
    expect(await conversation(s2, threadId)).toEqual(["user: question 1", "assistant: answer 1"]);
    await closeChatShell();

    // `threads rm` gives the thread's pages back too.
    const rm = openSqliteStore(home, "delta");
    const pages = rm.sqlite.pragma("page_count", { simple: true }) as number;
    rm.deleteThreadRows(threadId);
    expect(rm.sqlite.pragma("freelist_count", { simple: true })).toBe(0);
    expect(rm.sqlite.pragma("page_count", { simple: true })).toBeLessThan(pages);
    rm.close();
  }, 180_000);

  it("an existing file a run is using is left as it is, and switched at the next open after the run", () => {
    const first = openSqliteStore(home, "full");
    expect(first.runs.acquire("t-1", "r-1")).toEqual({ ok: true });
    first.close();
    const legacy = new Database(file());
    legacy.pragma("auto_vacuum = NONE");
    legacy.exec("VACUUM");
    legacy.close();

    // The run holds its lock (this process is alive): opening leaves the mode alone.
    const during = openSqliteStore(home, "full");
    expect(during.sqlite.pragma("auto_vacuum", { simple: true })).toBe(0);
    during.runs.release("t-1", "r-1");
    during.close();
    const after = openSqliteStore(home, "full");
    expect(after.sqlite.pragma("auto_vacuum", { simple: true })).toBe(2);
    after.close();
  });
});
