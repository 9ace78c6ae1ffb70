// docs/architecture.md, Checkpoints: checkpoint channel mode markers and the fail-closed compatibility gate.
import { HumanMessage, AIMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesDeltaValue, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/errors.js";
import { CheckpointModeMismatchError, DeerflowSqliteSaver, isGuardedSaver } from "../../src/persistence/index.js";
import { CHANNEL_MODE_METADATA_KEY, type ChannelMode } from "../../src/vocabulary/index.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => void;
let file: string;
const toClose: { close(): void }[] = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  file = join(dir, "nested", "dirs", "checkpoints.sqlite"); // open() creates the parents
});
afterEach(() => {
  for (const s of toClose.splice(0)) s.close();
  cleanup();
});
function openSaver(channelMode?: ChannelMode): DeerflowSqliteSaver {
  const saver = DeerflowSqliteSaver.open(file, channelMode ? { channelMode } : {});
  toClose.push(saver);
  return saver;
}

/** echo graph: one AI reply per human message. */
function buildGraph(mode: ChannelMode, checkpointer: BaseCheckpointSaver) {
  const State = new StateSchema({ messages: mode === "delta" ? MessagesDeltaValue : MessagesValue });
  const graph = new StateGraph(State) as any;
  return graph
    .addNode("echo", (s: { messages: BaseMessage[] }) => ({
      messages: [new AIMessage({ id: `ai-${s.messages.length}`, content: `echo ${s.messages.at(-1)!.content}` })],
    }))
    .addEdge(START, "echo")
    .addEdge("echo", END)
    .compile({ checkpointer });
}
const cfg = (thread_id: string) => ({ configurable: { thread_id } });
const say = (text: string) => ({ messages: [new HumanMessage({ id: `h-${text}`, content: text })] });
const texts = (messages: BaseMessage[]) => messages.map((m) => m.content);

async function expectMismatch(promise: Promise<unknown>, threadId: string, storedMode: string, requestedMode: string) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CheckpointModeMismatchError);
  const e = err as CheckpointModeMismatchError;
  expect(e).toMatchObject({ threadId, storedMode, requestedMode, exitCode: ExitCode.usage });
  expect(e.message).toBe(
    `Thread ${threadId} was saved in "${storedMode}" checkpoint mode, but this process runs in "${requestedMode}" mode. ` +
      `Run with DEERFLOW_CHECKPOINT_MODE=${storedMode} (or set checkpoint.channelMode in .deerflowrc) to open it.`,
  );
}
async function drain(gen: AsyncGenerator<unknown>) {
  const out = [];
  for await (const x of gen) out.push(x);
  return out;
}
const rawMetadata = (threadId: string): Record<string, unknown>[] => {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT CAST(metadata AS TEXT) AS m FROM checkpoints WHERE thread_id = ?").all(threadId) as { m: string }[];
    return rows.map((r) => JSON.parse(r.m));
  } finally {
    db.close();
  }
};

describe("mode markers", () => {
  it("every put stores the marker; readers never see it; the caller's metadata is not mutated", async () => {
    const saver = openSaver("delta");
    expect(saver.channelMode).toBe("delta");
    const metadata: CheckpointMetadata = { source: "input", step: -1, parents: {} };
    const config = await saver.put(cfg("t"), { ...emptyCheckpoint(), id: uuid6(0) }, metadata, {});
    expect(metadata).toEqual({ source: "input", step: -1, parents: {} });
    expect(rawMetadata("t")).toEqual([{ ...metadata, [CHANNEL_MODE_METADATA_KEY]: "delta" }]);
    expect((await saver.getTuple(config))!.metadata).toEqual(metadata);
    expect((await drain(saver.list(cfg("t"))))[0]).toMatchObject({ metadata });
    // The stored key is still usable as a list filter.
    expect(await drain(saver.list(cfg("t"), { filter: { [CHANNEL_MODE_METADATA_KEY]: "delta" } }))).toHaveLength(1);
    expect(await drain(saver.list(cfg("t"), { filter: { [CHANNEL_MODE_METADATA_KEY]: "full" } }))).toHaveLength(0);
  });

  it("default mode is full; a graph run marks every checkpoint", async () => {
    const saver = openSaver();
    expect(saver.channelMode).toBe("full");
    await buildGraph("full", saver).invoke(say("hi"), cfg("t"));
    const stored = rawMetadata("t");
    expect(stored.length).toBeGreaterThan(1);
    expect(stored.every((m) => m[CHANNEL_MODE_METADATA_KEY] === "full")).toBe(true);
  });

  it("isGuardedSaver recognises only this saver", () => {
    expect(isGuardedSaver(openSaver())).toBe(true);
    expect(isGuardedSaver(new MemorySaver())).toBe(false);
    expect(isGuardedSaver(SqliteSaver.fromConnString(":memory:"))).toBe(false);
    expect(isGuardedSaver(null)).toBe(false);
    expect(isGuardedSaver({})).toBe(false);
  });

  it("rejects an unknown mode", () => {
    expect(() => openSaver("partial" as ChannelMode)).toThrow(/channelMode/);
  });
});

describe("compatibility gate", () => {
  it("a full thread opened in delta mode is an error naming the thread and both modes", async () => {
    const full = openSaver("full");
    await buildGraph("full", full).invoke(say("hi"), cfg("thread-full"));
    full.close();

    const delta = openSaver("delta");
    await expectMismatch(delta.getTuple(cfg("thread-full")), "thread-full", "full", "delta");
    await expectMismatch(drain(delta.list(cfg("thread-full"))), "thread-full", "full", "delta");
    await expectMismatch(delta.put(cfg("thread-full"), emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {}), "thread-full", "full", "delta");
    await expectMismatch(buildGraph("delta", delta).invoke(say("again"), cfg("thread-full")), "thread-full", "full", "delta");
    // Nothing was written by the refused process.
    expect(rawMetadata("thread-full").every((m) => m[CHANNEL_MODE_METADATA_KEY] === "full")).toBe(true);
  });

  it("a delta thread opened in full mode is an error", async () => {
    const delta = openSaver("delta");
    await buildGraph("delta", delta).invoke(say("hi"), cfg("thread-delta"));
    delta.close();

    const full = openSaver("full");
    await expectMismatch(full.getTuple(cfg("thread-delta")), "thread-delta", "delta", "full");
    await expectMismatch(buildGraph("full", full).getState(cfg("thread-delta")), "thread-delta", "delta", "full");
    await expectMismatch(full.putWrites({ configurable: { thread_id: "thread-delta", checkpoint_ns: "", checkpoint_id: "x" } }, [["messages", []]], "task"), "thread-delta", "delta", "full");
    await expectMismatch(full.getDeltaChannelHistory({ config: cfg("thread-delta"), channels: ["messages"] }), "thread-delta", "delta", "full");
    // Unscoped listing crosses threads: it fails closed on the foreign one.
    await expectMismatch(drain(full.list({})), "thread-delta", "delta", "full");
    expect(full.getThreadChannelMode("thread-delta")).toBe("delta");
    expect(full.getThreadChannelMode("nope")).toBeUndefined();
  });

  it("modes coexist per thread in one file; other threads are unaffected", async () => {
    const full = openSaver("full");
    await buildGraph("full", full).invoke(say("a"), cfg("f"));
    full.close();
    const delta = openSaver("delta");
    const out = await buildGraph("delta", delta).invoke(say("b"), cfg("d"));
    expect(texts(out.messages)).toEqual(["b", "echo b"]);
    await expectMismatch(delta.getTuple(cfg("f")), "f", "full", "delta");
  });

  it("unmarked (legacy) checkpoints count as full; the legacy writes table is migrated", async () => {
    // A file written by the stock SqliteSaver: no markers, no writes.task_path column.
    file = join(dir, "legacy.sqlite");
    const stock = new SqliteSaver(new Database(file));
    await buildGraph("full", stock).invoke(say("one"), cfg("legacy"));
    stock.db.close();
    expect(rawMetadata("legacy").some((m) => CHANNEL_MODE_METADATA_KEY in m)).toBe(false);

    const delta = openSaver("delta");
    await expectMismatch(delta.getTuple(cfg("legacy")), "legacy", "full", "delta");
    delta.close();

    const full = openSaver("full");
    const db = new Database(file, { readonly: true });
    const columns = (db.prepare("PRAGMA table_info(writes)").all() as { name: string }[]).map((c) => c.name);
    db.close();
    expect(columns).toContain("task_path");
    const graph = buildGraph("full", full);
    expect(texts((await graph.getState(cfg("legacy"))).values.messages)).toEqual(["one", "echo one"]);
    const out = await graph.invoke(say("two"), cfg("legacy"));
    expect(texts(out.messages)).toEqual(["one", "echo one", "two", "echo two"]);
    // Old rows keep no marker; new rows carry "full".
    const markers = rawMetadata("legacy").map((m) => m[CHANNEL_MODE_METADATA_KEY]);
    expect(markers).toContain(undefined);
    expect(markers).toContain("full");
    // Same result as if the whole thread had been run on MemorySaver.
    const memory = buildGraph("full", new MemorySaver());
    await memory.invoke(say("one"), cfg("m"));
    expect(texts((await memory.invoke(say("two"), cfg("m"))).messages)).toEqual(texts(out.messages));
  });

  it("reopening the file (close + new instance) keeps state, markers and the gate", async () => {
    for (const mode of ["full", "delta"] as const) {
      const first = openSaver(mode);
      await buildGraph(mode, first).invoke(say("one"), cfg(`t-${mode}`));
      first.close();

      const second = openSaver(mode);
      const graph = buildGraph(mode, second);
      expect(texts((await graph.getState(cfg(`t-${mode}`))).values.messages)).toEqual(["one", "echo one"]);
      const out = await graph.invoke(say("two"), cfg(`t-${mode}`));
      expect(texts(out.messages)).toEqual(["one", "echo one", "two", "echo two"]);
      second.close();

      const other: ChannelMode = mode === "full" ? "delta" : "full";
      const third = openSaver(other);
      await expectMismatch(third.getTuple(cfg(`t-${mode}`)), `t-${mode}`, mode, other);
      third.close();
      expect(rawMetadata(`t-${mode}`).every((m) => m[CHANNEL_MODE_METADATA_KEY] === mode)).toBe(true);
    }
  });

  it("the verified-thread cache does not outlive deleteThread", async () => {
    const full = openSaver("full");
    await buildGraph("full", full).invoke(say("x"), cfg("t"));
    await full.deleteThread("t");
    expect(await full.getTuple(cfg("t"))).toBeUndefined();
    full.close();
    const delta = openSaver("delta");
    await buildGraph("delta", delta).invoke(say("y"), cfg("t"));
    delta.close();
    const fullAgain = openSaver("full");
    await expectMismatch(fullAgain.getTuple(cfg("t")), "t", "delta", "full");
  });
});
