// Pending writes come back in `writesSortKey` order (task_path, task_id, idx), the order live
// execution applies a superstep's writes in — the same order MemorySaver returns. The stock
// SqliteSaver 1.0.4 drops the task path and returns writes in table order (by task id), which is
// what made a restored DeltaChannel history come back with parallel ToolMessages out of order.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DeltaValue, END, MemorySaver, MessagesDeltaValue, MessagesValue, START, Send, StateGraph, StateSchema } from "@langchain/langgraph";
import { DeltaSnapshot, emptyCheckpoint, uuid6, type BaseCheckpointSaver, type PendingWrite } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeerflowSqliteSaver } from "../../src/persistence/index.js";
import type { ChannelMode } from "../../src/vocabulary/checkpoint-modes.js";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => void;
const open: DeerflowSqliteSaver[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  cleanup();
});
function openSaver(file: string, channelMode: ChannelMode = "full"): DeerflowSqliteSaver {
  const saver = DeerflowSqliteSaver.open(join(dir, file), { channelMode });
  open.push(saver);
  return saver;
}

// Inserted in an order that is neither the path order nor the task-id order.
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
];
const SORTED = [
  ["task-0", "messages", "input"],
  ["task-c", "messages", "c0"],
  ["task-b", "messages", "b0"],
  ["task-b", "other", "b1"],
  ["task-a", "messages", "a0"],
  ["task-a", "messages", "a1"],
];

/** c0 (snapshot seed) ← writes ← c1 ← writes ← c2, on any saver. */
async function seedThread(saver: BaseCheckpointSaver, threadId: string) {
  const put = (parent: RunnableConfig, values: Record<string, unknown>) => {
    const versions = Object.fromEntries(Object.keys(values).map((k) => [k, 1]));
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: values, channel_versions: versions };
    return saver.put(parent, checkpoint, { source: "loop", step: 0, parents: {} }, versions);
  };
  const c0 = await put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { messages: new DeltaSnapshot(["seed"]) });
  for (const w of WRITES) await saver.putWrites(c0, w.writes, w.taskId, w.taskPath);
  const c1 = await put(c0, {});
  for (const w of [...WRITES].reverse()) await saver.putWrites(c1, w.writes, w.taskId, w.taskPath);
  const c2 = await put(c1, {});
  return { c0, c1, c2 };
}

describe("pending writes order", () => {
  it("getTuple and list return MemorySaver's order, also after reopening the file", async () => {
    const memory = new MemorySaver();
    const { c0: m0 } = await seedThread(memory, "t");
    const expected = (await memory.getTuple(m0))!.pendingWrites;
    expect(expected).toEqual(SORTED);

    const saver = openSaver("order.sqlite");
    const { c0, c1 } = await seedThread(saver, "t");
    expect((await saver.getTuple(c0))!.pendingWrites).toEqual(expected);
    expect((await saver.getTuple(c1))!.pendingWrites).toEqual(expected);
    const listed = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "t" } })) listed.push(tuple.pendingWrites);
    expect(listed).toEqual([[], expected, expected]); // c2, c1, c0
    saver.close();
    const reopened = openSaver("order.sqlite");
    expect((await reopened.getTuple(c0))!.pendingWrites).toEqual(expected);
  });

  it("getDeltaChannelHistory equals MemorySaver's", async () => {
    const memory = new MemorySaver();
    const m = await seedThread(memory, "t");
    const saver = openSaver("history.sqlite", "delta");
    const s = await seedThread(saver, "t");
    const channels = ["messages", "other"];
    const fromMemory = await memory.getDeltaChannelHistory({ config: m.c2, channels });
    const fromSqlite = await saver.getDeltaChannelHistory({ config: s.c2, channels });
    expect(fromSqlite).toEqual(fromMemory);
    expect(fromSqlite.messages!.writes.map((w) => w[2])).toEqual(["input", "c0", "b0", "a0", "a1", "input", "c0", "b0", "a0", "a1"]);
    expect((fromSqlite.messages!.seed as DeltaSnapshot).value).toEqual(["seed"]);
    // The latest checkpoint (no checkpoint_id) and a mid-chain one agree too.
    expect(await saver.getDeltaChannelHistory({ config: { configurable: { thread_id: "t", checkpoint_ns: "" } }, channels })).toEqual(fromSqlite);
    expect(await saver.getDeltaChannelHistory({ config: s.c1, channels })).toEqual(await memory.getDeltaChannelHistory({ config: m.c1, channels }));
  });

  it("the stock SqliteSaver 1.0.4 does not (the bug this saver fixes)", async () => {
    const stock = SqliteSaver.fromConnString(join(dir, "stock.sqlite"));
    const { c0 } = await seedThread(stock, "t");
    const order = (await stock.getTuple(c0))!.pendingWrites!.map((w) => w[2]);
    expect(order).not.toEqual(SORTED.map((w) => w[2]));
    stock.db.close();
  });
});

// ---- a real graph: parallel tool nodes writing one messages channel --------------------------------

const TOOL_COUNT = 6;

/** model → (Send ×6) tool → END; tools finish in reverse order, so writes arrive reversed. */
function buildGraph(messages: typeof MessagesValue | typeof MessagesDeltaValue, checkpointer: BaseCheckpointSaver) {
  const State = new StateSchema({ messages });
  // Loosely typed on purpose: the test is about what the saver stores, not graph typing.
  const graph = new StateGraph(State) as any;
  return graph
    .addNode("model", (state: { messages: BaseMessage[] }) => {
      const turn = state.messages.filter((m) => HumanMessage.isInstance(m)).length;
      const tool_calls = Array.from({ length: TOOL_COUNT }, (_, i) => ({ id: `call-${turn}-${i}`, name: `tool${i}`, args: { i } }));
      return { messages: [new AIMessage({ id: `ai-${turn}`, content: "", tool_calls })] };
    })
    .addNode("tool", async ({ call }: { call: { id: string; name: string; args: { i: number } } }) => {
      await new Promise((r) => setTimeout(r, (TOOL_COUNT - call.args.i) * 4));
      return { messages: [new ToolMessage({ id: `tm-${call.id}`, tool_call_id: call.id, content: `${call.name} done` })] };
    })
    .addEdge(START, "model")
    .addConditionalEdges("model", (state: { messages: AIMessage[] }) => state.messages.at(-1)!.tool_calls!.map((call) => new Send("tool", { call })))
    .addEdge("tool", END)
    .compile({ checkpointer });
}

const ids = (messages: BaseMessage[]) => messages.map((m) => m.id);

async function runTurns(graph: ReturnType<typeof buildGraph>, threadId: string) {
  const config = { configurable: { thread_id: threadId } };
  let live: BaseMessage[] = [];
  for (let turn = 0; turn < 3; turn++) {
    live = (await graph.invoke({ messages: [new HumanMessage({ id: `h-${turn}`, content: `turn ${turn}` })] }, config)).messages;
  }
  return live;
}

async function history(graph: ReturnType<typeof buildGraph>, threadId: string) {
  const states: (string | undefined)[][] = [];
  for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: threadId } })) {
    states.push(ids(snapshot.values.messages ?? []));
  }
  return states;
}

describe.each([
  {
    mode: "delta" as const,
    // Small snapshot cadence, so history mixes DeltaSnapshot seeds and replayed writes.
    messages: new DeltaValue(MessagesDeltaValue.valueSchema, {
      inputSchema: MessagesDeltaValue.inputSchema,
      reducer: MessagesDeltaValue.reducer,
      snapshotFrequency: 3,
    }) as typeof MessagesDeltaValue,
  },
  { mode: "delta" as const, messages: MessagesDeltaValue },
  { mode: "full" as const, messages: MessagesValue },
])("graph with parallel tool nodes ($mode mode)", ({ mode, messages }) => {
  it("a resumed state from a reopened file equals the MemorySaver one, at every checkpoint", async () => {
    const memoryGraph = buildGraph(messages, new MemorySaver());
    const memoryLive = await runTurns(memoryGraph, "thread");

    const file = `graph-${mode}.sqlite`;
    const sqliteLive = await runTurns(buildGraph(messages, openSaver(file, mode)), "thread");
    expect(ids(sqliteLive)).toEqual(ids(memoryLive));
    open.pop()!.close();

    const reopened = buildGraph(messages, openSaver(file, mode));
    const state = await reopened.getState({ configurable: { thread_id: "thread" } });
    expect(ids(state.values.messages)).toEqual(ids(memoryLive));
    // Path order, not completion order: tool0 … tool5 after each AI message.
    expect(ids(state.values.messages).slice(0, 8)).toEqual(["h-0", "ai-1", ...Array.from({ length: TOOL_COUNT }, (_, i) => `tm-call-1-${i}`)]);
    const memoryHistory = await history(memoryGraph, "thread");
    expect(memoryHistory.length).toBeGreaterThan(6);
    expect(await history(reopened, "thread")).toEqual(memoryHistory);

    // And the thread keeps going from the reopened file.
    const next = await reopened.invoke(
      { messages: [new HumanMessage({ id: "h-3", content: "again" })] },
      {
        configurable: { thread_id: "thread" },
      },
    );
    const memoryNext = await memoryGraph.invoke(
      { messages: [new HumanMessage({ id: "h-3", content: "again" })] },
      {
        configurable: { thread_id: "thread" },
      },
    );
    expect(ids(next.messages)).toEqual(ids(memoryNext.messages));
  });
});

// ---- forks: blobs are shared per (thread, channel, version), so two branches must never share a version

describe.each([
  { mode: "full" as const, messages: MessagesValue },
  { mode: "delta" as const, messages: MessagesDeltaValue },
])("forked thread ($mode mode)", ({ mode, messages }) => {
  it("two branches from one checkpoint keep their own values", async () => {
    const echo = (checkpointer: BaseCheckpointSaver) => {
      const graph = new StateGraph(new StateSchema({ messages })) as any;
      return graph
        .addNode("echo", (s: { messages: BaseMessage[] }) => ({
          messages: [new AIMessage({ id: `ai-${s.messages.at(-1)!.id}`, content: `echo ${s.messages.at(-1)!.content}` })],
        }))
        .addEdge(START, "echo")
        .addEdge("echo", END)
        .compile({ checkpointer });
    };
    const run = async (graph: ReturnType<typeof echo>) => {
      const say = (t: string) => ({ messages: [new HumanMessage({ id: t, content: t })] });
      const base = { configurable: { thread_id: "fork" } };
      await graph.invoke(say("one"), base);
      const forkPoint = (await graph.getState(base)).config;
      const a = await graph.invoke(say("A"), forkPoint);
      const b = await graph.invoke(say("B"), forkPoint);
      const states: unknown[] = [];
      for await (const s of graph.getStateHistory(base)) states.push(s.values.messages?.map((m: BaseMessage) => m.content));
      return { a: a.messages.map((m: BaseMessage) => m.content), b: b.messages.map((m: BaseMessage) => m.content), states };
    };
    const expected = await run(echo(new MemorySaver()));
    expect(expected.b).toEqual(["one", "echo one", "B", "echo B"]);
    const file = `fork-${mode}.sqlite`;
    expect(await run(echo(openSaver(file, mode)))).toEqual(expected);
    open.pop()!.close();
    const states: unknown[] = [];
    for await (const s of echo(openSaver(file, mode)).getStateHistory({ configurable: { thread_id: "fork" } })) {
      states.push(s.values.messages?.map((m: BaseMessage) => m.content));
    }
    expect(states).toEqual(expected.states);
  });
});
