// Hook fusion (src/agent/fuse-hooks.ts): the graph that runs consecutive hooks of a kind as one node must behave like
// langchain's graph with one node per hook (`hookFusion: false`): same hook calls in the same order, each hook seeing
// what the previous ones wrote, same jumps, same final state (messages with their ids included), in full and delta
// checkpoint mode, with fewer checkpoints.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { MemorySaver, ReducedValue, StateSchema } from "@langchain/langgraph";
import { type AgentMiddleware, createMiddleware, fakeModel, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDeerflowAgent, type CheckpointChannelMode } from "../../src/agent/create-deerflow-agent.js";
import { isHookCarrier } from "../../src/agent/fuse-hooks.js";
import { DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";
import { orderedUnion } from "../../src/state/reducers/util.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

// `seen` is a set-like list (idempotent, as langchain's write-back of a node's input requires); `count` a plain field.
const schema = new StateSchema({
  seen: new ReducedValue(
    z.array(z.string()).default(() => []),
    { inputSchema: z.array(z.string()).nullish(), reducer: (a: string[], b: string[] | null | undefined) => orderedUnion(a, b) },
  ),
  count: z.number().default(0),
});

type Calls = string[];
type S = { messages: BaseMessage[]; seen: string[]; count: number };

/** A hook that records its call and what it saw (so a skipped, reordered or stale-state hook changes the record). */
function step(name: string, kind: string, calls: Calls, extra?: (s: S) => Record<string, unknown> | undefined) {
  return (s: S) => {
    const mark = `${kind} ${name} count=${s.count} seen=${s.seen.length} msgs=${s.messages.length}`;
    calls.push(mark);
    return { seen: [mark], count: s.count + 1, ...(extra?.(s) ?? {}) };
  };
}

function stack(calls: Calls, opts: { jumpModelOnce?: boolean; endFromAfterModel?: boolean } = {}): AgentMiddleware[] {
  let jumped = false;
  return [
    createMiddleware({
      name: "A",
      stateSchema: schema,
      beforeAgent: step("A", "beforeAgent", calls),
      beforeModel: step("A", "beforeModel", calls, (s) => (s.count < 3 ? { messages: [new HumanMessage("reminder from A")] } : undefined)),
      afterModel: step("A", "afterModel", calls),
      afterAgent: step("A", "afterAgent", calls),
    }),
    createMiddleware({
      name: "B",
      stateSchema: schema,
      // Removes A's first reminder (written in the same fused node) and replaces the user's message in place.
      beforeModel: step("B", "beforeModel", calls, (s) => {
        const reminder = s.messages.find((m) => m.content === "reminder from A");
        const user = s.messages.find((m) => m.id === "u1");
        if (!reminder || !user || user.content !== "hi") return undefined;
        return { messages: [new RemoveMessage({ id: reminder.id! }), new HumanMessage({ id: "u1", content: "hi (edited by B)" })] };
      }),
      afterModel: {
        canJumpTo: ["model", "end"],
        hook: (s: S) => {
          const out = step("B", "afterModel", calls)(s);
          if (opts.jumpModelOnce && !jumped) {
            jumped = true;
            return { ...out, jumpTo: "model" as const };
          }
          if (opts.endFromAfterModel && s.count > 8) return { ...out, jumpTo: "end" as const };
          return out;
        },
      },
    }),
    createMiddleware({ name: "C", stateSchema: schema, beforeModel: step("C", "beforeModel", calls), afterModel: step("C", "afterModel", calls), afterAgent: step("C", "afterAgent", calls) }),
    createMiddleware({ name: "D", beforeModel: () => undefined, afterModel: () => undefined }), // no change: no write
  ] as AgentMiddleware[];
}

const echo = tool(async ({ text }: { text: string }) => `echo: ${text}`, { name: "echo", description: "echo", schema: z.object({ text: z.string() }) });

function model() {
  return fakeModel()
    .respond(new AIMessage({ id: "ai1", content: "", tool_calls: [{ id: "t1", name: "echo", args: { text: "one" } }] }))
    .respond(new AIMessage({ id: "ai2", content: "", tool_calls: [{ id: "t2", name: "echo", args: { text: "two" } }] }))
    .respond(new AIMessage({ id: "ai3", content: "done" }))
    .respond(new AIMessage({ id: "ai4", content: "done again" }));
}

function saverFor(mode: CheckpointChannelMode) {
  if (mode === "full") return new MemorySaver();
  const dir = mkdtempSync(join(tmpdir(), "deerflow-fuse-"));
  dirs.push(dir);
  return DeerflowSqliteSaver.open(join(dir, "t.sqlite"), { channelMode: "delta" });
}

async function run(hookFusion: boolean, mode: CheckpointChannelMode, opts: Parameters<typeof stack>[1] = {}) {
  const calls: Calls = [];
  const checkpointer = saverFor(mode);
  const agent = createDeerflowAgent(model(), [echo], { middleware: stack(calls, opts), checkpointer, checkpointChannelMode: mode, hookFusion }) as unknown as {
    stream(i: unknown, c: unknown): Promise<AsyncIterable<[string, Record<string, unknown>]>>;
    graph: { getState(c: unknown): Promise<{ values: S }>; getStateHistory(c: unknown): AsyncIterable<unknown> };
  };
  const config = { configurable: { thread_id: "t" }, recursionLimit: 200 };
  const updates: string[] = [];
  for await (const [, chunk] of await agent.stream({ messages: [new HumanMessage({ id: "u1", content: "hi" })] }, { ...config, streamMode: ["updates"] })) updates.push(...Object.keys(chunk));
  const { values } = await agent.graph.getState(config);
  let checkpoints = 0;
  for await (const _ of agent.graph.getStateHistory(config)) checkpoints++;
  // Random (v4) ids are not compared: the tools node's results get one in delta mode, fused or not. Deterministic
  // ones (v5, given by the messages reducer) and the script's own are.
  const messages = values.messages.map((m) => ({ id: /^[0-9a-f]{8}-[0-9a-f]{4}-4/.test(m.id ?? "") ? "random" : m.id, type: m.getType(), content: m.content }));
  return { calls, state: { messages, seen: values.seen, count: values.count }, updates, checkpoints };
}

describe("hook fusion", () => {
  for (const mode of ["full", "delta"] as const) {
    it(`runs every hook in langchain's order against the updated state, to the same final state (${mode} mode)`, async () => {
      const fused = await run(true, mode);
      const plain = await run(false, mode);
      expect(fused.calls).toEqual(plain.calls);
      expect(fused.state).toEqual(plain.state);
      // Not vacuous: three model calls, every kind of hook, and each hook saw the writes of the one before it.
      expect(fused.calls.slice(0, 4)).toEqual([
        "beforeAgent A count=0 seen=0 msgs=1",
        "beforeModel A count=1 seen=1 msgs=1",
        "beforeModel B count=2 seen=2 msgs=2",
        "beforeModel C count=3 seen=3 msgs=1",
      ]);
      expect(
        fused.calls
          .filter((c) => c.startsWith("afterModel"))
          .slice(0, 3)
          .map((c) => c.split(" count")[0]),
      ).toEqual(["afterModel C", "afterModel B", "afterModel A"]);
      expect(fused.state.messages.find((m) => m.id === "u1")?.content).toBe("hi (edited by B)");
      expect(fused.state.messages.filter((m) => m.content === "reminder from A")).toHaveLength(0); // written and removed in one node
      expect(fused.state.messages.at(-1)?.content).toBe("done");
      // The tools and model nodes are still named as the runtime expects; fewer steps were checkpointed.
      expect(fused.updates).toContain("model_request");
      expect(fused.updates).toContain("tools");
      expect(fused.checkpoints).toBeLessThan(plain.checkpoints);
    });
  }

  it("a jump from inside the after-model hooks goes where the unfused graph goes", async () => {
    const fused = await run(true, "full", { jumpModelOnce: true });
    const plain = await run(false, "full", { jumpModelOnce: true });
    expect(fused.calls).toEqual(plain.calls);
    expect(fused.state).toEqual(plain.state);
    // B jumped back to the model: A's afterModel did not run after it that time.
    const firstAfter = fused.calls.findIndex((c) => c.startsWith("afterModel B"));
    expect(fused.calls[firstAfter + 1]).toMatch(/^beforeModel|^afterModel C/);
    const endFused = await run(true, "full", { endFromAfterModel: true });
    const endPlain = await run(false, "full", { endFromAfterModel: true });
    expect(endFused.calls).toEqual(endPlain.calls);
    expect(endFused.state).toEqual(endPlain.state);
  });

  it("a jump a hook may not make fails with langchain's message in both graphs", async () => {
    const bad = (calls: Calls) => [...stack(calls).slice(0, 2), createMiddleware({ name: "Rogue", beforeModel: () => ({ jumpTo: "end" }) as never })];
    const errorOf = async (hookFusion: boolean) => {
      const agent = createDeerflowAgent(model(), [echo], { middleware: bad([]), checkpointer: new MemorySaver(), hookFusion });
      return (agent as unknown as { invoke(i: unknown, c: unknown): Promise<unknown> }).invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "x" } }).then(
        () => "no error",
        (e: Error) => e.message,
      );
    };
    const fused = await errorOf(true);
    expect(fused).toBe(await errorOf(false));
    expect(fused).toContain("Invalid jump target: end");
  });

  it("fuses runs of hooks into one node each and keeps the stack's own middleware", () => {
    const agent = createDeerflowAgent(model(), [echo], { middleware: stack([]) });
    const list = agent.options.middleware as AgentMiddleware[];
    expect(list.filter((m) => !isHookCarrier(m)).map((m) => m.name)).toEqual(["A", "B", "C", "D"]);
    // B's afterModel may jump: the after-model run is cut after it (D, C, B | A), the before-model run is whole.
    expect(list.filter(isHookCarrier).map((m) => m.name)).toEqual(["afterAgent(..A)", "beforeModel(..D)", "afterModel(..B)"]);
  });

  it("a thread last written by the one-node-per-hook graph (an older build) still takes state updates", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "old" }, recursionLimit: 200 };
    type G = { invoke(i: unknown, c: unknown): Promise<unknown>; graph: { updateState(c: unknown, v: unknown): Promise<unknown>; getState(c: unknown): Promise<{ values: S }> } };
    const old = createDeerflowAgent(model(), [echo], { middleware: stack([]), checkpointer, hookFusion: false }) as unknown as G;
    await old.invoke({ messages: [new HumanMessage({ id: "u1", content: "hi" })] }, config);
    const now = createDeerflowAgent(model(), [echo], { middleware: stack([]), checkpointer }) as unknown as G;
    await now.graph.updateState(config, { count: 100 });
    expect((await now.graph.getState(config)).values.count).toBe(100);
  });
});
