import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, ReducedValue, START, StateGraph, StateSchema, DeltaValue, MessagesValue, END } from "@langchain/langgraph";
import { createAgent, createMiddleware, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DEFAULT_SNAPSHOT_FREQUENCY,
  FULL_MESSAGES_VALUE,
  GOAL_CLEAR,
  DoubleWriteError,
  MessageRemovalError,
  SandboxConflictError,
  THREAD_STATE_FIELDS,
  adaptMiddlewareStateSchemaToMode,
  adaptStateSchemaToMode,
  clearGoalUpdate,
  createThreadStateSchema,
  type CheckpointChannelMode,
  type GoalState,
} from "../../src/state/index.js";

const MODES: CheckpointChannelMode[] = ["full", "delta"];
let threadCounter = 0;
const newThread = () => ({ configurable: { thread_id: `t-${++threadCounter}` } });

const goal: GoalState = {
  objective: "finish",
  status: "active",
  created_at: "t0",
  updated_at: "t0",
  continuation_count: 0,
  max_continuations: 8,
  no_progress_count: 0,
  max_no_progress_continuations: 2,
};

describe("createThreadStateSchema", () => {
  it.each(MODES)("%s: has exactly THREAD_STATE_FIELDS, each with a default", (mode) => {
    const schema = createThreadStateSchema(mode);
    expect(schema.getChannelKeys()).toEqual([...THREAD_STATE_FIELDS]);
    expect((schema.getJsonSchema() as { required?: string[] }).required).toBeUndefined(); // nothing is required: every field has a default
  });

  it("full mode uses a reduced messages value; delta mode a DeltaValue with snapshot frequency 20 by default", () => {
    expect(createThreadStateSchema("full").fields.messages).toBe(FULL_MESSAGES_VALUE);
    const delta = createThreadStateSchema("delta").fields.messages;
    expect(DeltaValue.isInstance(delta)).toBe(true);
    expect(delta.snapshotFrequency).toBe(DEFAULT_SNAPSHOT_FREQUENCY);
    expect(createThreadStateSchema("delta", { snapshotFrequency: 50 }).fields.messages.snapshotFrequency).toBe(50);
  });

  it("every other field is a ReducedValue shared by both modes", () => {
    const full = createThreadStateSchema("full").fields;
    const delta = createThreadStateSchema("delta").fields;
    for (const key of THREAD_STATE_FIELDS.filter((k) => k !== "messages")) {
      expect(ReducedValue.isInstance(full[key])).toBe(true);
      expect(delta[key]).toBe(full[key]);
    }
  });

  it("rejects a bad snapshot frequency or mode with a clear error", () => {
    expect(() => createThreadStateSchema("delta", { snapshotFrequency: 0 })).toThrow(/snapshotFrequency must be a positive integer/);
    expect(() => createThreadStateSchema("delta", { snapshotFrequency: 2.5 })).toThrow(RangeError);
    expect(() => createThreadStateSchema("weird" as CheckpointChannelMode)).toThrow(/Unknown checkpoint channel mode/);
  });
});

describe.each(MODES)("ThreadState in a real StateGraph (%s mode)", (mode) => {
  it("two nodes writing the same reducer fields in one step merge (no InvalidUpdateError)", async () => {
    const State = createThreadStateSchema(mode);
    const graph = new StateGraph(State)
      .addNode("a", () => ({ artifacts: ["/o/a.md"], sandbox: { sandbox_id: "sb" }, tool_artifact_processed: ["m1"] }))
      .addNode("b", () => ({ artifacts: ["/o/b.md", "/o/a.md"], sandbox: { sandbox_id: "sb" }, tool_artifact_processed: ["m2"] }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    const config = newThread();
    const out = await graph.invoke({ messages: [new HumanMessage({ id: "h", content: "go" })] }, config);
    expect(new Set(out.artifacts)).toEqual(new Set(["/o/a.md", "/o/b.md"]));
    expect(out.artifacts).toHaveLength(2);
    expect(out.sandbox).toEqual({ sandbox_id: "sb" });
    expect(new Set(out.tool_artifact_processed)).toEqual(new Set(["m1", "m2"]));
    const state = await graph.getState(config);
    expect(state.values.artifacts).toHaveLength(2);
    expect(state.values.messages.map((m: BaseMessage) => m.content)).toEqual(["go"]);
  });

  it.each([
    ["title", { title: "a" }, { title: "b" }],
    ["thread_data", { thread_data: { workspace_path: "/w1" } }, { thread_data: { workspace_path: "/w2" } }],
  ])("two different writes of %s in one step fail the step with DoubleWriteError naming the field; in turn they are fine", async (field, a, b) => {
    const parallel = new StateGraph(createThreadStateSchema(mode))
      .addNode("a", () => a)
      .addNode("b", () => b)
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    const failed = parallel.invoke({}, newThread());
    await expect(failed).rejects.toBeInstanceOf(DoubleWriteError);
    await expect(failed).rejects.toThrow(`Two different writes of "${field}" in one step`);
    const sequential = new StateGraph(createThreadStateSchema(mode))
      .addNode("a", () => a)
      .addNode("b", () => b)
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: new MemorySaver() });
    expect((await sequential.invoke({}, newThread()))[field as "title"]).toEqual(Object.values(b)[0]);
  });

  it("the same value written twice in one step (a middleware node re-emitting the state it was given) and a null thread_data are no conflict", async () => {
    const paths = { workspace_path: "/w", uploads_path: "/u", outputs_path: "/o" };
    const graph = new StateGraph(createThreadStateSchema(mode))
      .addNode("a", () => ({ title: "t", thread_data: paths }))
      .addNode("b", () => ({ title: "t", thread_data: { outputs_path: "/o", uploads_path: "/u", workspace_path: "/w" } }))
      .addNode("c", () => ({ thread_data: null }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(START, "c")
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({}, newThread());
    expect(out.title).toBe("t");
    expect(out.thread_data).toEqual(paths);
  });

  it("defaults are present before any write", async () => {
    const graph = new StateGraph(createThreadStateSchema(mode))
      .addNode("noop", () => ({}))
      .addEdge(START, "noop")
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [] }, newThread());
    expect(out).toMatchObject({
      messages: [],
      sandbox: null,
      title: null,
      artifacts: [],
      todos: [],
      goal: null,
      viewed_images: {},
      promoted: null,
      delegations: [],
      skill_context: [],
      tool_artifacts: [],
      tool_artifact_processed: [],
      summary_text: null,
    });
  });

  it("two different sandbox ids in one step fail the step with SandboxConflictError", async () => {
    const graph = new StateGraph(createThreadStateSchema(mode))
      .addNode("a", () => ({ sandbox: { sandbox_id: "sb-1" } }))
      .addNode("b", () => ({ sandbox: { sandbox_id: "sb-2" } }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({}, newThread())).rejects.toBeInstanceOf(SandboxConflictError);
  });

  it("goal: null keeps, GOAL_CLEAR clears, the marker passes input validation", async () => {
    const State = createThreadStateSchema(mode);
    const graph = new StateGraph(State)
      .addNode("set", () => ({ goal }))
      .addNode("wipe", () => ({ goal: null, todos: null }))
      .addEdge(START, "set")
      .addEdge("set", "wipe")
      .compile({ checkpointer: new MemorySaver() });
    const config = newThread();
    const out = await graph.invoke({}, config);
    expect(out.goal).toEqual(goal);
    await graph.updateState(
      config,
      clearGoalUpdate({
        status: "achieved",
        objective: "finish",
        goal_created_at: "t0",
        achieved_at: "t1",
        continuation_count: 0,
        max_continuations: 8,
        reason: "done",
        relied_on_assumption: false,
        reply_message_id: null,
      }),
    );
    const state = await graph.getState(config);
    expect(state.values.goal).toBeNull();
    expect(state.values.goal_outcome).toMatchObject({ status: "achieved", reason: "done" });
    expect(GOAL_CLEAR).toBe("__deerflow_goal_clear__");
  });

  it("an invalid write is rejected by the field's input schema", async () => {
    const graph = new StateGraph(createThreadStateSchema(mode))
      .addNode("bad", () => ({ todos: [{ content: "x", status: "doing" }] }) as never)
      .addEdge(START, "bad")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/todos/);
  });

  it("removing an unknown message id fails the step", async () => {
    const graph = new StateGraph(createThreadStateSchema(mode))
      .addNode("rm", () => ({ messages: [new RemoveMessage({ id: "ghost" })] }))
      .addEdge(START, "rm")
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, newThread())).rejects.toBeInstanceOf(MessageRemovalError);
  });
});

describe("delta messages rebuild the same history as full mode", () => {
  /** A tiny chat graph: each invoke adds a user message, then "model" replies, edits or removes. */
  function build(mode: CheckpointChannelMode, snapshotFrequency: number) {
    const checkpointer = new MemorySaver();
    let turn = 0;
    const graph = new StateGraph(createThreadStateSchema(mode, { snapshotFrequency }))
      .addNode("model", (state: { messages: BaseMessage[] }) => {
        turn += 1;
        const last = state.messages.at(-1)!;
        const update: BaseMessage[] = [new AIMessage({ id: `ai-${turn}`, content: `echo ${String(last.content)}` })];
        if (turn % 3 === 0) update.push(new AIMessage({ id: `ai-${turn - 1}`, content: `edited ${turn - 1}` }));
        if (turn % 4 === 0) update.push(new RemoveMessage({ id: state.messages[0]!.id! }));
        return { messages: update, artifacts: [`/o/${turn % 2}.md`] };
      })
      .addNode("tool", () => ({ messages: [{ role: "user", content: "plain object, no id" }] }))
      .addEdge(START, "model")
      .addEdge("model", "tool")
      .addEdge("tool", END)
      .compile({ checkpointer });
    return { graph, checkpointer };
  }

  const view = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.content, m.id?.startsWith("ai-") || m.id?.startsWith("h-") ? m.id : "*"]);

  it("after many steps, getState in delta equals full (content, order, explicit ids)", async () => {
    const full = build("full", 3);
    const delta = build("delta", 3);
    const cf = newThread();
    const cd = newThread();
    for (let i = 0; i < 12; i += 1) {
      const input = { messages: [new HumanMessage({ id: `h-${i}`, content: `turn ${i}` })] };
      await full.graph.invoke(input, cf);
      await delta.graph.invoke({ messages: [new HumanMessage({ id: `h-${i}`, content: `turn ${i}` })] }, cd);
    }
    const f = await full.graph.getState(cf);
    const d = await delta.graph.getState(cd);
    expect(view(d.values.messages)).toEqual(view(f.values.messages));
    expect(d.values.messages.length).toBeGreaterThan(20);
    expect(d.values.artifacts).toEqual(f.values.artifacts);

    // It really is delta: most checkpoints do not carry the messages list, full ones always do.
    const countWithMessages = async (saver: MemorySaver, config: object) => {
      let n = 0;
      let total = 0;
      for await (const t of saver.list(config)) {
        total += 1;
        if ("messages" in t.checkpoint.channel_values) n += 1;
      }
      return { n, total };
    };
    const fullCounts = await countWithMessages(full.checkpointer, cf);
    const deltaCounts = await countWithMessages(delta.checkpointer, cd);
    expect(fullCounts.n).toBe(fullCounts.total);
    expect(deltaCounts.n).toBeLessThan(deltaCounts.total / 2);
  });

  it("ids of messages written without one are stable across reads, so they can be removed later", async () => {
    const { graph } = build("delta", 100);
    const config = newThread();
    await graph.invoke({ messages: [{ role: "user", content: "no id here" }] }, config);
    const first = await graph.getState(config);
    const second = await graph.getState(config);
    const ids = first.values.messages.map((m: BaseMessage) => m.id);
    expect(second.values.messages.map((m: BaseMessage) => m.id)).toEqual(ids);
    expect(ids.every((id: string | undefined) => typeof id === "string" && id.length > 0)).toBe(true);

    // Remove the id-less user message by the id a reader saw.
    await graph.updateState(config, { messages: [new RemoveMessage({ id: ids[0] })] });
    const after = await graph.getState(config);
    expect(after.values.messages.map((m: BaseMessage) => m.id)).toEqual(ids.slice(1));
  });
});

describe("adaptStateSchemaToMode", () => {
  const custom = () =>
    new StateSchema({
      messages: MessagesValue,
      counter: new ReducedValue(z.number().default(0), { reducer: (a: number, b: number) => a + b }),
    });

  it("returns a copy whose messages value matches the mode; the input is untouched", () => {
    const input = custom();
    const before = { ...input.fields };
    const delta = adaptStateSchemaToMode(input, "delta", { snapshotFrequency: 30 });
    expect(delta).not.toBe(input);
    expect(input.fields).toEqual(before);
    expect(input.fields.messages).toBe(MessagesValue);
    expect(DeltaValue.isInstance(delta.fields.messages)).toBe(true);
    expect((delta.fields.messages as unknown as DeltaValue).snapshotFrequency).toBe(30);
    expect(delta.fields.counter).toBe(input.fields.counter);

    const full = adaptStateSchemaToMode(delta, "full");
    expect(full).not.toBe(delta);
    expect(full.fields.messages).toBe(FULL_MESSAGES_VALUE);
    expect(DeltaValue.isInstance(delta.fields.messages)).toBe(true);
  });

  it("leaves a schema without messages without messages, unless ensureMessages", () => {
    const input = new StateSchema({ flag: z.boolean().default(false) });
    const copy = adaptStateSchemaToMode(input, "delta");
    expect(copy).not.toBe(input);
    expect(Object.keys(copy.fields)).toEqual(["flag"]);
    const ensured = adaptStateSchemaToMode(input, "delta", { ensureMessages: true });
    expect(Object.keys(ensured.fields)).toEqual(["flag", "messages"]);
    expect(Object.keys(input.fields)).toEqual(["flag"]);
  });

  it("the adapted schema works in a graph (delta)", async () => {
    const graph = new StateGraph(adaptStateSchemaToMode(custom(), "delta"))
      .addNode("n", () => ({ messages: [new AIMessage({ id: "a", content: "x" })], counter: 2 }))
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    const config = newThread();
    await graph.invoke({ messages: [new HumanMessage({ id: "h", content: "q" })], counter: 1 }, config);
    const state = await graph.getState(config);
    expect(state.values.counter).toBe(3);
    expect(state.values.messages.map((m: BaseMessage) => m.id)).toEqual(["h", "a"]);
  });
});

describe.each(MODES)("with langchain createAgent (%s mode)", (mode) => {
  it("invokes without 'required state fields'; ThreadState survives createAgent feeding the state back each run", async () => {
    const model = fakeModel().respond(new AIMessage("first")).respond(new AIMessage("second")).respond(new AIMessage("third"));
    let runs = 0;
    const written = {
      artifacts: ["/o/run.md"],
      sandbox: { sandbox_id: "sb-1" },
      todos: [{ content: "t", status: "in_progress" as const }],
      goal,
      viewed_images: { "/a.png": { mime_type: "image/png", size: 1, actual_path: "/a.png", sha256: "ab" } },
      promoted: { catalog_hash: "h", names: ["x", "y"], turn_id: "turn-1" },
      delegations: [{ id: "c1", run_id: "r1", description: "d", subagent_type: "bash", status: "completed" as const, created_at: "t0" }],
      skill_context: [{ name: "s", path: "/s/SKILL.md", description: "d", loaded_at: 1 }],
      tool_artifacts: [{ handle: "art_00000001", tool_name: "bash", tool_call_id: "c1", call_index: 0, artifact_type: "file", display_name: "path", real_ref: "/very/long/path", created_at: "t0" }],
    };
    const marker = createMiddleware({
      name: "Marker",
      stateSchema: adaptMiddlewareStateSchemaToMode(
        new StateSchema({
          messages: MessagesValue,
          marker_seen: new ReducedValue(z.boolean().default(false), { reducer: (_a: boolean, b: boolean) => b }),
        }),
        mode,
      ),
      beforeAgent: () => {
        runs += 1;
        return runs === 1 ? { ...written, marker_seen: true } : {};
      },
    });
    const agent = createAgent({
      model,
      tools: [],
      stateSchema: createThreadStateSchema(mode),
      middleware: [marker],
      checkpointer: new MemorySaver(),
    });
    const config = newThread();
    await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "hi" })] }, config);
    await agent.invoke({ messages: [new HumanMessage({ id: "u2", content: "again" })] }, config);
    await agent.invoke({ messages: [new HumanMessage({ id: "u3", content: "more" })] }, config);
    const state = await agent.graph.getState(config);
    const values = state.values as Record<string, unknown> & { messages: BaseMessage[] };
    expect(values.messages.map((m) => m.content)).toEqual(["hi", "first", "again", "second", "more", "third"]);
    expect(values).toMatchObject({ ...written, marker_seen: true });
  });

  it("a middleware schema adapted to the mode keeps or drops messages (delta must not reach createAgent's zod parse)", () => {
    const schema = new StateSchema({ messages: MessagesValue, x: z.string().default("") });
    const adapted = adaptMiddlewareStateSchemaToMode(schema, mode);
    expect(adapted).not.toBe(schema);
    expect(schema.fields.messages).toBe(MessagesValue);
    if (mode === "full") expect(adapted.fields.messages).toBe(FULL_MESSAGES_VALUE);
    else expect(Object.keys(adapted.fields)).toEqual(["x"]);
  });
});
