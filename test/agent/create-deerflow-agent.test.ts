// docs/architecture.md, createDeerflowAgent (the factory and its validation) and §3 (RuntimeFeatures, the default stack, DeerFlow's order, anchors).
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesValue, StateSchema } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import Database from "better-sqlite3";
import { type AgentMiddleware, createAgent, createMiddleware, fakeModel, tool } from "langchain";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { anchorOf, before, nextTo } from "../../src/agent/anchors.js";
import { type DeerflowAgentOptions, assembleMiddleware, createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { AgentOptionsError, AnchorError, MiddlewareTypeError } from "../../src/agent/errors.js";
import { isHookCarrier } from "../../src/agent/fuse-hooks.js";
import { clarificationMiddleware } from "../../src/middleware/clarification.js";
import { ASK_CLARIFICATION } from "../../src/vocabulary/message-markers.js";
import { threadDataMiddleware } from "../../src/middleware/thread-data.js";
import { summarizationMiddleware } from "../../src/middleware/summarization.js";
import { SubagentRuntime } from "../../src/subagents/runtime.js";
import { CheckpointModeMismatchError, DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";
import { startTestModelServer, type TestModelServer } from "../support/openai-server.js";

// Spies that delegate to the real implementations: they let the validation tests prove that nothing was built
// (no built-in middleware created, no graph compiled) when an option is refused.
vi.mock("langchain", async (importOriginal) => {
  const mod = await importOriginal<typeof import("langchain")>();
  return { ...mod, createAgent: vi.fn(mod.createAgent) };
});
vi.mock("../../src/middleware/thread-data.js", async (importOriginal) => {
  const mod = await importOriginal<typeof import("../../src/middleware/thread-data.js")>();
  return { ...mod, threadDataMiddleware: vi.fn(mod.threadDataMiddleware) };
});
vi.mock("../../src/middleware/clarification.js", async (importOriginal) => {
  const mod = await importOriginal<typeof import("../../src/middleware/clarification.js")>();
  return { ...mod, clarificationMiddleware: vi.fn(mod.clarificationMiddleware) };
});

// ---------------------------------------------------------------------------------------------------------------
// helpers

const tmpDirs: string[] = [];
function tmp(prefix = "deerflow-agent-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tmpDirs.push(d);
  return d;
}
const openSavers: { close(): void }[] = [];
function openSaver(file: string, channelMode: "full" | "delta"): DeerflowSqliteSaver {
  const s = DeerflowSqliteSaver.open(file, { channelMode });
  openSavers.push(s);
  return s;
}
afterEach(() => {
  for (const s of openSavers.splice(0)) s.close();
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const mw = (name: string) => createMiddleware({ name });
const names = (list: readonly AgentMiddleware[]) => list.map((m) => m.name);
const DEFAULT_NAMES = [
  "ThreadData",
  "Uploads",
  "Sandbox",
  "DanglingToolCall",
  "ToolCallIds",
  "AnswerSecretMasking",
  "ToolResultSecretMasking",
  "ToolErrorHandling",
  "InvalidToolCall",
  "LoopDetection",
  "Clarification",
];

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to throw, it returned normally");
}

/**
 * createDeerflowAgent must refuse `options` with `cls` (and `code`), and — for the §2 validation and the feature
 * checks — before anything is built: no built-in middleware created, no graph compiled.
 */
function expectRefused<E extends Error>(
  options: DeerflowAgentOptions,
  cls: abstract new (...args: any[]) => E,
  code?: string,
  { nothingBuilt = true, tools = [] as Parameters<typeof createDeerflowAgent>[1] } = {},
): E {
  vi.mocked(createAgent).mockClear();
  vi.mocked(threadDataMiddleware).mockClear();
  vi.mocked(clarificationMiddleware).mockClear();
  const err = caught(() => createDeerflowAgent(fakeModel(), tools, options));
  expect(err).toBeInstanceOf(cls);
  if (code !== undefined) expect((err as { code?: unknown }).code).toBe(code);
  expect((err as Error).message.length).toBeGreaterThan(20);
  expect(createAgent).not.toHaveBeenCalled();
  if (nothingBuilt) {
    expect(threadDataMiddleware).not.toHaveBeenCalled();
    expect(clarificationMiddleware).not.toHaveBeenCalled();
  }
  // assembleMiddleware runs the same checks
  expect(caught(() => assembleMiddleware(options))).toBeInstanceOf(cls);
  return err as E;
}

const text = (m: BaseMessage) =>
  typeof m.content === "string" ? m.content : m.content.map((b) => (typeof b === "string" ? b : b.type === "text" ? String((b as { text?: unknown }).text) : JSON.stringify(b))).join("");
/** What a restored message is, independent of class identity. */
function shape(m: BaseMessage) {
  return {
    type: m.type,
    id: m.id,
    content: text(m),
    tool_calls: AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })) : undefined,
    tool_call_id: ToolMessage.isInstance(m) ? m.tool_call_id : undefined,
  };
}

type DeerflowAgent = ReturnType<typeof createDeerflowAgent>;
/**
 * agent.invoke with a plain `{ messages }` input. The cast is needed because createDeerflowAgent's return type
 * infers the agent's input state as `never` (it passes its schema and middleware to createAgent `as never`).
 */
const say = (agent: DeerflowAgent, input: { messages: BaseMessage[] }, config?: Record<string, unknown>): Promise<any> => agent.invoke(input as never, config as never);

const withoutToolIds = (m: ReturnType<typeof shape>) => (m.type === "tool" ? { ...m, id: undefined } : m);

const echo = tool(async ({ text }: { text: string }) => `echo: ${text}`, {
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string() }),
});

// ---------------------------------------------------------------------------------------------------------------

describe("createDeerflowAgent: validation (docs/architecture.md, createDeerflowAgent), each a typed error raised before anything is built", () => {
  it("middleware together with features → middleware_with_features", () => {
    const e = expectRefused({ middleware: [mw("A")], features: { sandbox: false } }, AgentOptionsError, "middleware_with_features");
    expect(e.name).toBe("AgentOptionsError");
    expect(e.message).toMatch(/one or the other/);
    // even an empty features object counts as "features given"
    expectRefused({ middleware: [mw("A")], features: {} }, AgentOptionsError, "middleware_with_features");
    expectRefused({ middleware: [], features: {} }, AgentOptionsError, "middleware_with_features");
  });

  it("middleware together with a non-empty extraMiddleware → middleware_with_extras (an empty one is fine)", () => {
    expectRefused({ middleware: [mw("A")], extraMiddleware: [mw("B")] }, AgentOptionsError, "middleware_with_extras");
    expect(names(assembleMiddleware({ middleware: [mw("A")], extraMiddleware: [] }))).toEqual(["A"]);
  });

  it("subagentRuntime without features.subagent, or with a full takeover → subagent_runtime_without_feature", () => {
    expectRefused({ subagentRuntime: {} }, AgentOptionsError, "subagent_runtime_without_feature");
    expectRefused({ subagentRuntime: { batchWorker: { started: true } } }, AgentOptionsError, "subagent_runtime_without_feature");
    expectRefused({ features: { subagent: false }, subagentRuntime: {} }, AgentOptionsError, "subagent_runtime_without_feature");
    expectRefused({ features: { sandbox: false }, subagentRuntime: {} }, AgentOptionsError, "subagent_runtime_without_feature");
    expectRefused({ middleware: [mw("SubagentLimit")], subagentRuntime: {} }, AgentOptionsError, "subagent_runtime_without_feature");
  });

  it("subagentRuntime whose batch worker is not started → subagent_runtime_not_started; started + subagent instance → OK", () => {
    const subagent = mw("SubagentLimit");
    const e = expectRefused({ features: { subagent }, subagentRuntime: { batchWorker: { started: false } } }, AgentOptionsError, "subagent_runtime_not_started");
    expect(e.message).toMatch(/start/);

    const ok = { features: { subagent }, subagentRuntime: { batchWorker: { started: true } } };
    expect(names(assembleMiddleware(ok))).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "SubagentLimit",
      "LoopDetection",
      "Clarification",
    ]);
    vi.mocked(createAgent).mockClear();
    vi.mocked(threadDataMiddleware).mockClear();
    vi.mocked(clarificationMiddleware).mockClear();
    const agent = createDeerflowAgent(fakeModel(), [], ok);
    // (the spies expectRefused relies on do see a successful build)
    expect(createAgent).toHaveBeenCalledTimes(1);
    expect(threadDataMiddleware).toHaveBeenCalledTimes(1);
    expect(clarificationMiddleware).toHaveBeenCalledTimes(1);
    expect(names(agent.options.middleware as AgentMiddleware[])).toContain("SubagentLimit");
    // a runtime without a batch worker needs nothing started
    expect(() => createDeerflowAgent(fakeModel(), [], { features: { subagent }, subagentRuntime: {} })).not.toThrow();
  });

  describe("an extraMiddleware item that is not a middleware → MiddlewareTypeError naming the item's type", () => {
    class Helper {
      name = "Helper"; // a name but no hooks
      run() {}
    }
    class Nameless {}
    function namedHook() {}
    const cases: [string, unknown, RegExp][] = [
      ["a named function", namedHook, /got a function \(namedHook\)/],
      ["an arrow function", (() => () => {})(), /got a function/],
      ["a plain object", { foo: 1 }, /got a plain object/],
      ["a plain object with only a name", { name: "OnlyName" }, /got a plain object/],
      ["null", null, /got null/],
      ["a number", 42, /got number/],
      ["a string", "Clarification", /got string/],
      ["undefined", undefined, /got undefined/],
      ["an array", [mw("Nested")], /got an array/],
      ["a class instance without hooks", new Helper(), /got an object of class Helper/],
      ["a nameless class instance", new Nameless(), /got an object of class Nameless/],
    ];
    for (const [label, item, expected] of cases) {
      it(label, () => {
        const e = expectRefused({ extraMiddleware: [mw("Fine"), item as AgentMiddleware] }, MiddlewareTypeError);
        expect(e).toBeInstanceOf(TypeError);
        expect(e.name).toBe("MiddlewareTypeError");
        expect(e.index).toBe(1);
        expect(e.message).toContain("extraMiddleware[1]");
        expect(e.message).toMatch(expected);
      });
    }

    it("a hand-written middleware object (a name and a hook, no brand) is accepted", () => {
      const hand = { name: "HandWritten", beforeModel: () => undefined } as unknown as AgentMiddleware;
      expect(names(assembleMiddleware({ extraMiddleware: [hand] })).at(-2)).toBe("HandWritten");
    });
  });

  it('checkpointChannelMode "delta" with a raw checkpointer → delta_with_raw_checkpointer', () => {
    const e = expectRefused({ checkpointChannelMode: "delta", checkpointer: new MemorySaver() }, AgentOptionsError, "delta_with_raw_checkpointer");
    expect(e.message).toMatch(/DeerflowSqliteSaver/);
    const stock = SqliteSaver.fromConnString(":memory:");
    expectRefused({ checkpointChannelMode: "delta", checkpointer: stock }, AgentOptionsError, "delta_with_raw_checkpointer");
    // full mode takes any checkpointer
    expect(() => createDeerflowAgent(fakeModel(), [], { checkpointer: new MemorySaver() })).not.toThrow();
    expect(() => createDeerflowAgent(fakeModel(), [], { checkpointChannelMode: "full", checkpointer: stock })).not.toThrow();
  });

  it("delta with the guarded DeerflowSqliteSaver, or with no checkpointer at all, is allowed", async () => {
    const saver = openSaver(join(tmp(), "c.sqlite"), "delta");
    expect(() => createDeerflowAgent(fakeModel(), [], { checkpointChannelMode: "delta", checkpointer: saver })).not.toThrow();
    // ephemeral delta agent: builds and runs
    const model = fakeModel().respond(new AIMessage({ id: "a1", content: "ephemeral ok" }));
    const agent = createDeerflowAgent(model, [], { features: { sandbox: false }, checkpointChannelMode: "delta", checkpointSnapshotFrequency: 5 });
    const out = await say(agent, { messages: [new HumanMessage("hi")] });
    expect(text(out.messages.at(-1)!)).toBe("ephemeral ok");
  });

  it("checkpointSnapshotFrequency without delta, or not a positive integer → invalid_snapshot_frequency", () => {
    expectRefused({ checkpointSnapshotFrequency: 20 }, AgentOptionsError, "invalid_snapshot_frequency");
    expectRefused({ checkpointChannelMode: "full", checkpointSnapshotFrequency: 20 }, AgentOptionsError, "invalid_snapshot_frequency");
    for (const bad of [0, -1, -20, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectRefused({ checkpointChannelMode: "delta", checkpointSnapshotFrequency: bad }, AgentOptionsError, "invalid_snapshot_frequency");
    }
    expect(() => assembleMiddleware({ checkpointChannelMode: "delta", checkpointSnapshotFrequency: 1 })).not.toThrow();
    expect(() => assembleMiddleware({ checkpointChannelMode: "delta", checkpointSnapshotFrequency: 100 })).not.toThrow();
  });

  it("an unknown checkpointChannelMode is refused", () => {
    const e = expectRefused({ checkpointChannelMode: "deltas" as never }, AgentOptionsError);
    expect(e.message).toContain('"deltas"');
  });
});

describe("RuntimeFeatures (docs/architecture.md, Middleware order)", () => {
  it("guardrail: true and summarization: true need a configured instance → feature_needs_instance; an instance takes its place", () => {
    expect(expectRefused({ features: { guardrail: true } }, AgentOptionsError, "feature_needs_instance").message).toMatch(/guardrail/);
    expect(expectRefused({ features: { summarization: true } }, AgentOptionsError, "feature_needs_instance").message).toMatch(/summarizationMiddleware/);
    const stack = names(assembleMiddleware({ features: { summarization: summarizationMiddleware({ contextWindow: 8000 }) } }));
    expect(stack.indexOf("Summarization")).toBe(stack.indexOf("InvalidToolCall") + 1);
  });

  it("subagent: true needs a SubagentRuntime; with one, SubagentLimit and the task tool are built in", () => {
    expectRefused({ features: { subagent: true } }, AgentOptionsError, "subagent_runtime_missing");
    const runtime = new SubagentRuntime();
    expect(names(assembleMiddleware({ features: { subagent: true }, subagentRuntime: runtime }))).toContain("SubagentLimit");
    expect(() => createDeerflowAgent(fakeModel(), [], { features: { subagent: true }, subagentRuntime: runtime })).not.toThrow();
  });

  it("memory: true is the built-in Memory middleware, at DeerFlow's place (after Title, before ViewImage)", () => {
    const list = names(assembleMiddleware({ features: { memory: true, autoTitle: true, vision: true } }));
    expect(list.indexOf("Memory")).toBe(list.indexOf("Title") + 1);
    expect(list.indexOf("ViewImage")).toBe(list.indexOf("Memory") + 1);
  });

  it("the built-ins that exist are used for true: Todo (planMode), Title, ViewImage, TokenBudget in DeerFlow's places", () => {
    expect(names(assembleMiddleware({ planMode: true, features: { autoTitle: true, vision: true, tokenBudget: true } }))).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "Todo",
      "Title",
      "ViewImage",
      "LoopDetection",
      "TokenBudget",
      "Clarification",
    ]);
  });

  it("an unknown feature key is refused, naming the known ones", () => {
    const e = expectRefused({ features: { sandboxx: true } as never }, AgentOptionsError, "invalid_feature_value");
    expect(e.message).toContain('"sandboxx"');
    expect(e.message).toContain("loopDetection");
    expectRefused({ features: { todo: false } as never }, AgentOptionsError, "invalid_feature_value");
  });

  it.each([
    ["a string", "yes"],
    ["a number", 1],
    ["null", null],
    ["an object without a name", {}],
    ["an array", []],
    ["a function", () => undefined],
  ])("a feature value that is %s is refused", (_label, value) => {
    expectRefused({ features: { loopDetection: value as never } }, AgentOptionsError, "invalid_feature_value");
    expectRefused({ features: { memory: value as never } }, AgentOptionsError, "invalid_feature_value");
  });

  it("defaults: sandbox and loopDetection on, everything else off", () => {
    expect(names(assembleMiddleware({}))).toEqual(DEFAULT_NAMES);
    expect(names(assembleMiddleware())).toEqual(DEFAULT_NAMES);
    expect(names(assembleMiddleware({ features: {} }))).toEqual(DEFAULT_NAMES);
    expect(names(assembleMiddleware({ features: { sandbox: true, loopDetection: true, memory: false, guardrail: false } }))).toEqual(DEFAULT_NAMES);
    // undefined means "default"
    expect(names(assembleMiddleware({ features: { sandbox: undefined } }))).toEqual(DEFAULT_NAMES);
  });

  it("sandbox: false drops ThreadData, Uploads and Sandbox; loopDetection: false drops LoopDetection", () => {
    expect(names(assembleMiddleware({ features: { sandbox: false } }))).toEqual([
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "LoopDetection",
      "Clarification",
    ]);
    expect(names(assembleMiddleware({ features: { loopDetection: false } }))).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "Clarification",
    ]);
    expect(names(assembleMiddleware({ features: { sandbox: false, loopDetection: false } }))).toEqual([
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "Clarification",
    ]);
  });

  it("all features on: DeerFlow's exact order, instances used as given", () => {
    const inst = {
      sandbox: mw("MySandbox"),
      guardrail: mw("Guardrail"),
      summarization: mw("Summarization"),
      autoTitle: mw("Title"),
      memory: mw("Memory"),
      vision: mw("ViewImage"),
      subagent: mw("SubagentLimit"),
      tokenBudget: mw("TokenBudget"),
    };
    const stack = assembleMiddleware({ features: { ...inst, loopDetection: true } });
    expect(names(stack)).toEqual([
      "ThreadData",
      "Uploads",
      "MySandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "Guardrail",
      "ToolErrorHandling",
      "InvalidToolCall",
      "Summarization",
      "Title",
      "Memory",
      "ViewImage",
      "SubagentLimit",
      "LoopDetection",
      "TokenBudget",
      "Clarification",
    ]);
    for (const m of Object.values(inst)) expect(stack).toContain(m); // the very instances
    // a loopDetection instance replaces the built-in in the same place
    const loop = mw("MyLoop");
    expect(names(assembleMiddleware({ features: { loopDetection: loop } }))).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "MyLoop",
      "Clarification",
    ]);
    // and the compiled agent carries the same order
    const agent = createDeerflowAgent(fakeModel(), [], { features: { ...inst } });
    expect(names((agent.options.middleware as AgentMiddleware[]).filter((m) => !isHookCarrier(m)))).toEqual(names(stack));
  });

  it("the sandbox feature creates <home>/threads/<id>/{workspace,uploads,outputs} and records them in state", async () => {
    const home = tmp();
    const model = fakeModel().respond(new AIMessage({ id: "a1", content: "done" }));
    const agent = createDeerflowAgent(model, [], { checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "sbx-1", deerflow_home: home } };
    await say(agent, { messages: [new HumanMessage("hi")] }, config);
    const root = join(home, "threads", "sbx-1");
    for (const d of ["workspace", "uploads", "outputs"]) expect(statSync(join(root, d)).isDirectory()).toBe(true);
    const values = (await agent.graph.getState(config)).values as any;
    expect(values.sandbox.sandbox_id).toBe("local:sbx-1");
    expect(values.thread_data).toEqual({
      workspace_path: join(root, "workspace"),
      uploads_path: join(root, "uploads"),
      outputs_path: join(root, "outputs"),
    });
  });
});

describe("extras and anchors (docs/architecture.md, Middleware order)", () => {
  const at = (list: string[], name: string) => list.indexOf(name);

  it("nextTo(X) lands right after X, before(X) right before X", () => {
    const list = names(assembleMiddleware({ extraMiddleware: [nextTo("LoopDetection", mw("AfterLoop")), before("ToolErrorHandling", mw("BeforeTEH"))] }));
    expect(list).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "BeforeTEH",
      "ToolErrorHandling",
      "InvalidToolCall",
      "LoopDetection",
      "AfterLoop",
      "Clarification",
    ]);
  });

  it("an extra may anchor to another extra, whatever the list order", () => {
    const expected = [
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "LoopDetection",
      "A",
      "B",
      "C",
      "Clarification",
    ];
    const a = nextTo("LoopDetection", mw("A"));
    const b = nextTo("A", mw("B"));
    const c = nextTo("B", mw("C"));
    expect(names(assembleMiddleware({ extraMiddleware: [a, b, c] }))).toEqual(expected);
    expect(names(assembleMiddleware({ extraMiddleware: [c, b, a] }))).toEqual(expected);
    // before another extra
    const d = before("A", mw("D"));
    expect(names(assembleMiddleware({ extraMiddleware: [d, a] }))).toEqual([
      "ThreadData",
      "Uploads",
      "Sandbox",
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "LoopDetection",
      "D",
      "A",
      "Clarification",
    ]);
    // an unanchored extra can be a target too
    expect(names(assembleMiddleware({ extraMiddleware: [nextTo("U", mw("V")), mw("U")] })).slice(-3)).toEqual(["U", "V", "Clarification"]);
  });

  it("unanchored extras go just before Clarification, in the given order", () => {
    const list = names(assembleMiddleware({ extraMiddleware: [mw("X1"), mw("X2"), mw("X3")] }));
    expect(list).toEqual([...DEFAULT_NAMES.slice(0, -1), "X1", "X2", "X3", "Clarification"]);
    // also when features change what comes before
    expect(names(assembleMiddleware({ features: { sandbox: false, loopDetection: false }, extraMiddleware: [mw("X1"), mw("X2")] }))).toEqual([
      "DanglingToolCall",
      "ToolCallIds",
      "AnswerSecretMasking",
      "ToolResultSecretMasking",
      "ToolErrorHandling",
      "InvalidToolCall",
      "X1",
      "X2",
      "Clarification",
    ]);
  });

  it("Clarification stays last even when an extra names it as anchor", () => {
    const list = names(assembleMiddleware({ extraMiddleware: [nextTo("Clarification", mw("AfterClar")), mw("Plain")] }));
    expect(list.at(-1)).toBe("Clarification");
    expect(list.slice(-3)).toEqual(["Plain", "AfterClar", "Clarification"]);
    const list2 = names(assembleMiddleware({ extraMiddleware: [before("Clarification", mw("BeforeClar"))] }));
    expect(list2.slice(-2)).toEqual(["BeforeClar", "Clarification"]);
    expect(list2.filter((n) => n === "Clarification")).toHaveLength(1);
  });

  it("anchors keep their place when features around them are toggled", () => {
    const extra = nextTo("DanglingToolCall", mw("E"));
    for (const features of [{}, { sandbox: false }, { loopDetection: false }, { guardrail: mw("Guardrail") }]) {
      const list = names(assembleMiddleware({ features, extraMiddleware: [extra] }));
      expect(at(list, "E")).toBe(at(list, "DanglingToolCall") + 1);
    }
  });

  it("two extras on one anchor → duplicate_anchor", () => {
    expectRefused({ extraMiddleware: [nextTo("LoopDetection", mw("A")), nextTo("LoopDetection", mw("B"))] }, AnchorError, "duplicate_anchor", { nothingBuilt: false });
    expectRefused({ extraMiddleware: [before("Sandbox", mw("A")), before("Sandbox", mw("B"))] }, AnchorError, "duplicate_anchor", { nothingBuilt: false });
    expectRefused({ extraMiddleware: [nextTo("Clarification", mw("A")), nextTo("Clarification", mw("B"))] }, AnchorError, "duplicate_anchor", { nothingBuilt: false });
    // next to X and before X are different anchors
    expect(() => assembleMiddleware({ extraMiddleware: [nextTo("LoopDetection", mw("A")), before("LoopDetection", mw("B"))] })).not.toThrow();
  });

  it("both anchors on one extra → both_anchors", () => {
    const both = before("ToolErrorHandling", nextTo("LoopDetection", mw("Both")));
    expect(anchorOf(both)).toEqual({ next: "LoopDetection", before: "ToolErrorHandling" });
    expectRefused({ extraMiddleware: [both] }, AnchorError, "both_anchors", { nothingBuilt: false });
  });

  it("an unknown anchor (or one naming a disabled feature) → unknown_anchor", () => {
    const e = expectRefused({ extraMiddleware: [nextTo("NoSuchMiddleware", mw("A"))] }, AnchorError, "unknown_anchor", { nothingBuilt: false });
    expect(e.message).toContain("NoSuchMiddleware");
    expectRefused({ features: { loopDetection: false }, extraMiddleware: [nextTo("LoopDetection", mw("A"))] }, AnchorError, "unknown_anchor", { nothingBuilt: false });
    expectRefused({ features: { sandbox: false }, extraMiddleware: [before("Sandbox", mw("A"))] }, AnchorError, "unknown_anchor", { nothingBuilt: false });
    expectRefused({ extraMiddleware: [before("Memory", mw("A"))] }, AnchorError, "unknown_anchor", { nothingBuilt: false });
    // an extra anchored to an extra that itself has an unknown anchor
    expectRefused({ extraMiddleware: [nextTo("B", mw("A")), nextTo("Nowhere", mw("B"))] }, AnchorError, "unknown_anchor", { nothingBuilt: false });
  });

  it("a cycle → anchor_cycle", () => {
    const e = expectRefused({ extraMiddleware: [nextTo("B", mw("A")), nextTo("A", mw("B"))] }, AnchorError, "anchor_cycle", { nothingBuilt: false });
    expect(e.message).toMatch(/A → B/);
    expectRefused({ extraMiddleware: [nextTo("B", mw("A")), before("C", mw("B")), nextTo("A", mw("C"))] }, AnchorError, "anchor_cycle", { nothingBuilt: false });
    expectRefused({ extraMiddleware: [nextTo("Self", mw("Self"))] }, AnchorError, "anchor_cycle", { nothingBuilt: false });
  });

  it("nextTo / before return anchored copies; the caller's object is unchanged", () => {
    const original = createMiddleware({ name: "Orig", beforeModel: () => undefined });
    const keys = Reflect.ownKeys(original);
    const values = keys.map((k) => (original as any)[k]);
    const a = nextTo("LoopDetection", original);
    const b = before("ToolErrorHandling", original);
    expect(a).not.toBe(original);
    expect(b).not.toBe(original);
    expect(Reflect.ownKeys(original)).toEqual(keys);
    expect(keys.map((k) => (original as any)[k])).toEqual(values);
    expect(anchorOf(original)).toBeUndefined();
    expect(anchorOf(a)).toEqual({ next: "LoopDetection" });
    expect(anchorOf(b)).toEqual({ before: "ToolErrorHandling" });
    // the copies keep everything else (hooks, brand) and still pass as middleware
    expect(a.beforeModel).toBe(original.beforeModel);
    expect(names(assembleMiddleware({ extraMiddleware: [a] })).indexOf("Orig")).toBe(10);
    // a hook-less createMiddleware({ name }) copy is still a middleware
    expect(() => assembleMiddleware({ extraMiddleware: [nextTo("LoopDetection", mw("Bare"))] })).not.toThrow();
  });
});

describe("never mutates the caller's objects", () => {
  function snapshot(o: object) {
    const keys = Reflect.ownKeys(o);
    return { keys, values: keys.map((k) => (o as any)[k]) };
  }
  function schemaSnapshot(s: StateSchema<any>) {
    return { keys: Object.keys(s.fields), values: Object.values(s.fields) };
  }

  for (const mode of ["full", "delta"] as const) {
    it(`tools, middleware (stateSchema, tools) and features stay as they were (${mode} mode)`, async () => {
      const home = tmp();
      const extraTool = tool(async () => "extra", { name: "extra_tool", description: "from the middleware", schema: z.object({}) });
      const otherTool = tool(async () => "other", { name: "other_tool", description: "from the middleware", schema: z.object({}) });
      const mwSchema = new StateSchema({ messages: MessagesValue, note: z.string().default("none") });
      const extra = createMiddleware({
        name: "Extra",
        stateSchema: mwSchema,
        tools: [extraTool, otherTool],
        beforeModel: (state) => ({ note: `saw ${state.messages.length}` }) as never,
      });
      const memory = createMiddleware({ name: "Memory", stateSchema: new StateSchema({ messages: MessagesValue }), beforeAgent: () => undefined });
      const userTool = tool(async () => "user", { name: "extra_tool", description: "the user's version", schema: z.object({}) });
      const tools = [echo, userTool];
      const toolsBefore = [...tools];
      const features = { sandbox: true, memory, loopDetection: true };
      const featuresBefore = snapshot(features);
      const callerSchema = new StateSchema({ custom: z.string().default("x") });
      const callerSchemaBefore = schemaSnapshot(callerSchema);
      const mwBefore = snapshot(extra);
      const mwSchemaBefore = schemaSnapshot(mwSchema);
      const mwToolsBefore = [...extra.tools!];
      const memoryBefore = snapshot(memory);
      const memorySchemaBefore = schemaSnapshot(memory.stateSchema as StateSchema<any>);

      const checkpointer = mode === "delta" ? openSaver(join(home, "c.sqlite"), "delta") : new MemorySaver();
      const model = fakeModel()
        .respond(new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "t1", name: "echo", args: { text: "x" }, type: "tool_call" }] }))
        .respond(new AIMessage({ id: "a2", content: "done" }));
      const agent = createDeerflowAgent(model, tools, {
        features,
        extraMiddleware: [extra],
        stateSchema: callerSchema,
        checkpointChannelMode: mode,
        checkpointer,
      });

      const verify = () => {
        expect(tools).toHaveLength(2);
        tools.forEach((t, i) => expect(t).toBe(toolsBefore[i]));
        expect(snapshot(features)).toEqual(featuresBefore);
        expect(features.memory).toBe(memory);
        expect(snapshot(extra)).toEqual(mwBefore);
        expect(extra.stateSchema).toBe(mwSchema);
        expect(schemaSnapshot(mwSchema)).toEqual(mwSchemaBefore);
        expect(extra.tools).toHaveLength(2);
        extra.tools!.forEach((t, i) => expect(t).toBe(mwToolsBefore[i]));
        expect(snapshot(memory)).toEqual(memoryBefore);
        expect(schemaSnapshot(memory.stateSchema as StateSchema<any>)).toEqual(memorySchemaBefore);
        expect(schemaSnapshot(callerSchema)).toEqual(callerSchemaBefore);
        expect(callerSchema.fields).not.toHaveProperty("messages");
      };
      verify();

      // what the agent got are copies
      expect(agent.options.tools).not.toBe(tools);
      const given = agent.options.middleware as AgentMiddleware[];
      const extraCopy = given.find((m) => m.name === "Extra")!;
      expect(extraCopy).not.toBe(extra);
      // feature tools merge by name, the user's win: the middleware copy lost its "extra_tool"
      expect(extraCopy.tools!.map((t) => (t as { name: string }).name)).toEqual(["other_tool"]);
      const extraCopySchema = extraCopy.stateSchema as StateSchema<any>;
      if (mode === "delta") {
        // the middleware's own messages field is dropped (the agent-level schema owns the delta channel)
        expect(Object.keys(extraCopySchema.fields)).toEqual(["note"]);
        expect(extraCopySchema.fields.note).toBe(mwSchema.fields.note);
      } else {
        expect(Object.keys(extraCopySchema.fields).sort()).toEqual(["messages", "note"]);
      }

      const config = { configurable: { thread_id: `nm-${mode}`, deerflow_home: home } };
      const out = (await say(agent, { messages: [new HumanMessage("go")] }, config)) as any;
      expect(text(out.messages.at(-1))).toBe("done");
      expect(out.note).toBe("saw 3");
      expect(out.custom).toBe("x");
      verify();
    });
  }

  it("a frozen features object and frozen tool list are accepted", () => {
    const features = Object.freeze({ sandbox: false, loopDetection: true });
    const tools = Object.freeze([echo]);
    expect(() => createDeerflowAgent(fakeModel(), tools, { features, extraMiddleware: Object.freeze([mw("F")]) })).not.toThrow();
  });
});

describe("feature tools merge by name, user tools win", () => {
  let server: TestModelServer;
  beforeAll(async () => {
    server = await startTestModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.setScript([]);
    server.requests.length = 0;
  });
  const model = () => new ChatOpenAI({ model: "test-model", apiKey: "test", configuration: { baseURL: server.url }, useResponsesApi: false, maxRetries: 0 });
  const toolsSent = (i = 0) => (server.requests[i]!.body.tools ?? []) as { type: string; function: { name: string; description: string; parameters: any } }[];

  it("without a user tool, the model is offered Clarification's ask_clarification", async () => {
    server.push({ content: "hello" });
    const agent = createDeerflowAgent(model(), [echo], { features: { sandbox: false } });
    await say(agent, { messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "tm-0" } });
    const sent = toolsSent();
    expect(sent.map((t) => t.function.name).sort()).toEqual([ASK_CLARIFICATION, "echo"]);
    expect(sent.find((t) => t.function.name === ASK_CLARIFICATION)!.function.parameters.properties).toHaveProperty("clarification_type");
  });

  it("a user tool named ask_clarification replaces Clarification's: the model sees exactly one, the user's", async () => {
    server.push({ content: "hello" });
    const mine = tool(async ({ q }: { q: string }) => `user asked ${q}`, {
      name: ASK_CLARIFICATION,
      description: "The user's own clarification tool.",
      schema: z.object({ q: z.string() }),
    });
    const home = tmp();
    const agent = createDeerflowAgent(model(), [echo, mine]);
    await say(agent, { messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "tm-1", deerflow_home: home } });
    expect(server.requests).toHaveLength(1);
    const sent = toolsSent();
    const asks = sent.filter((t) => t.function.name === ASK_CLARIFICATION);
    expect(asks).toHaveLength(1);
    expect(asks[0]!.function.description).toBe("The user's own clarification tool.");
    expect(Object.keys(asks[0]!.function.parameters.properties)).toEqual(["q"]);
    expect(sent.map((t) => t.function.name).sort()).toEqual([ASK_CLARIFICATION, "echo"]);
    // the Clarification middleware itself is still in the stack, and the shared built-in instance is untouched
    const clar = (agent.options.middleware as AgentMiddleware[]).filter((m) => !isHookCarrier(m)).at(-1)!;
    expect(clar.name).toBe("Clarification");
    expect(clar.tools ?? []).toHaveLength(0);
    expect(clarificationMiddleware().tools!.map((t) => (t as { name: string }).name)).toEqual([ASK_CLARIFICATION]);
  });
});

describe("delta checkpoint mode end to end", () => {
  /** Three turns (one with two parallel tool calls) on a file, then the state read back by a NEW saver and agent. */
  async function conversation(mode: "full" | "delta", home: string) {
    const file = join(home, `${mode}.sqlite`);
    const threadId = `conv-${mode}`;
    const config = { configurable: { thread_id: threadId, deerflow_home: home } };
    const modeOptions = (): DeerflowAgentOptions => (mode === "delta" ? { checkpointChannelMode: "delta", checkpointSnapshotFrequency: 3 } : { checkpointChannelMode: "full" });

    const model = fakeModel()
      .respond(
        new AIMessage({
          id: "ai-1",
          content: "",
          tool_calls: [
            { id: "call-a", name: "echo", args: { text: "a" }, type: "tool_call" },
            { id: "call-b", name: "echo", args: { text: "b" }, type: "tool_call" },
          ],
        }),
      )
      .respond(new AIMessage({ id: "ai-2", content: "echoed a and b" }))
      .respond(new AIMessage({ id: "ai-3", content: "second answer" }))
      .respond(new AIMessage({ id: "ai-4", content: "", tool_calls: [{ id: "call-c", name: "echo", args: { text: "c" }, type: "tool_call" }] }))
      .respond(new AIMessage({ id: "ai-5", content: "third answer" }));
    const saver = openSaver(file, mode);
    const agent = createDeerflowAgent(model, [echo], { ...modeOptions(), checkpointer: saver });
    for (const [i, prompt] of ["echo a and b", "and now?", "echo c"].entries()) {
      await say(agent, { messages: [new HumanMessage({ id: `h-${i + 1}`, content: prompt })] }, config);
    }
    const live = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages.map(shape);
    saver.close();

    // reopen the file: new saver instance, new agent
    const saver2 = openSaver(file, mode);
    const model2 = fakeModel().respond(new AIMessage({ id: "ai-6", content: "fourth answer" }));
    const agent2 = createDeerflowAgent(model2, [echo], { ...modeOptions(), checkpointer: saver2 });
    const restored = (await agent2.graph.getState(config)).values as any;
    // and the conversation goes on with the whole history
    await say(agent2, { messages: [new HumanMessage({ id: "h-4", content: "one more" })] }, config);
    const seenByModel = model2.calls[0]!.messages.map(shape);
    saver2.close();
    return { file, threadId, live, restored, restoredMessages: (restored.messages as BaseMessage[]).map(shape), seenByModel };
  }

  it("a multi-turn delta conversation restores the same messages as full mode after reopening the database file", async () => {
    const home = tmp();
    const full = await conversation("full", home);
    const delta = await conversation("delta", home);

    expect(full.live.map((m) => m.content)).toEqual(["echo a and b", "", "echo: a", "echo: b", "echoed a and b", "and now?", "second answer", "echo c", "", "echo: c", "third answer"]);
    expect(full.restoredMessages).toEqual(full.live);
    expect(delta.restoredMessages).toEqual(delta.live);
    // Across modes everything matches except the ids of messages written without one (the ToolMessages): full mode
    // gets deterministic ids from our reducer, delta mode random ones that LangGraph assigns before storing the write.
    expect(delta.live.map(withoutToolIds)).toEqual(full.live.map(withoutToolIds));
    expect(delta.restoredMessages.map(withoutToolIds)).toEqual(full.restoredMessages.map(withoutToolIds));
    // tool results stay in call order
    expect(delta.restoredMessages.filter((m) => m.type === "tool").map((m) => m.tool_call_id)).toEqual(["call-a", "call-b", "call-c"]);
    // the next turn's model call sees the whole history in both modes
    expect(delta.seenByModel).toEqual([...delta.live, delta.seenByModel.at(-1)]);
    expect(full.seenByModel).toEqual([...full.live, full.seenByModel.at(-1)]);
    expect(delta.seenByModel.at(-1)).toMatchObject({ type: "human", id: "h-4", content: "one more" });

    // the sandbox state survives the reopen too
    for (const run of [full, delta]) {
      const root = join(home, "threads", run.threadId);
      expect(run.restored.sandbox).toEqual({ sandbox_id: `local:${run.threadId}` });
      expect(run.restored.thread_data.workspace_path).toBe(join(root, "workspace"));
      for (const d of ["workspace", "uploads", "outputs"]) expect(existsSync(join(root, d))).toBe(true);
    }

    // delta really stored increments: fewer whole-list message blobs than full mode
    const blobs = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare("SELECT count(*) AS n FROM checkpoint_blobs WHERE channel = 'messages'").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(blobs(delta.file)).toBeLessThan(blobs(full.file));

    // and the delta thread is refused in full mode (fail closed)
    const fullSaver = openSaver(delta.file, "full");
    const fullAgent = createDeerflowAgent(fakeModel(), [echo], { checkpointer: fullSaver });
    await expect(fullAgent.graph.getState({ configurable: { thread_id: delta.threadId } })).rejects.toBeInstanceOf(CheckpointModeMismatchError);
  });

  it("a middleware whose own StateSchema declares messages is adapted in delta mode (caller's object untouched)", async () => {
    const home = tmp();
    const schema = new StateSchema({ messages: MessagesValue, seen: z.number().default(0) });
    const fieldsBefore = { ...schema.fields };
    const counting = createMiddleware({
      name: "Counting",
      stateSchema: schema,
      beforeModel: (state) => ({ seen: state.messages.length }) as never,
    });
    const keysBefore = Reflect.ownKeys(counting);
    const file = join(home, "mw.sqlite");
    const model = fakeModel()
      .respond(new AIMessage({ id: "a1", content: "one" }))
      .respond(new AIMessage({ id: "a2", content: "two" }));
    const agent = createDeerflowAgent(model, [], {
      features: { sandbox: false },
      extraMiddleware: [nextTo("LoopDetection", counting)],
      checkpointChannelMode: "delta",
      checkpointSnapshotFrequency: 50,
      checkpointer: openSaver(file, "delta"),
    });
    const copy = (agent.options.middleware as AgentMiddleware[]).find((m) => m.name === "Counting")!;
    expect(copy).not.toBe(counting);
    expect(Object.keys((copy.stateSchema as StateSchema<any>).fields)).toEqual(["seen"]);
    expect(counting.stateSchema).toBe(schema);
    expect(schema.fields).toEqual(fieldsBefore);
    expect(schema.fields.messages).toBe(MessagesValue);
    expect(Reflect.ownKeys(counting)).toEqual(keysBefore);

    const config = { configurable: { thread_id: "mw-delta" } };
    await say(agent, { messages: [new HumanMessage({ id: "h1", content: "hi" })] }, config);
    const out = (await say(agent, { messages: [new HumanMessage({ id: "h2", content: "again" })] }, config)) as any;
    expect(out.messages.map(text)).toEqual(["hi", "one", "again", "two"]);
    expect(out.seen).toBe(3);
    // the messages channel is the delta one: with snapshots every 50 steps, no whole-list blob was written
    const db = new Database(file, { readonly: true });
    const n = (db.prepare("SELECT count(*) AS n FROM checkpoint_blobs WHERE channel = 'messages'").get() as { n: number }).n;
    db.close();
    expect(n).toBe(0);
  });
});

describe("full takeover and the remaining options", () => {
  it("middleware: [a, b] gives exactly [a, b]: no Clarification, no ask_clarification tool", async () => {
    const seenTools: string[][] = [];
    const a = createMiddleware({ name: "A", beforeModel: () => undefined });
    const b = createMiddleware({
      name: "B",
      wrapModelCall: (req, handler) => {
        seenTools.push(req.tools.map((t) => String((t as { name?: unknown }).name)));
        return handler(req);
      },
    });
    const list = [a, b];
    const stack = assembleMiddleware({ middleware: list });
    expect(stack).toEqual([a, b]);
    expect(stack[0]).toBe(a);
    expect(stack[1]).toBe(b);
    expect(stack).not.toBe(list);

    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "taken over" }));
    const agent = createDeerflowAgent(model, [echo], { middleware: list });
    expect(names(agent.options.middleware as AgentMiddleware[])).toEqual(["A", "B"]);
    const out = await say(agent, { messages: [new HumanMessage("hi")] });
    expect(text(out.messages.at(-1)!)).toBe("taken over");
    expect(seenTools).toEqual([["echo"]]);
    expect(list).toEqual([a, b]);

    // an empty takeover is a stack with nothing in it
    expect(assembleMiddleware({ middleware: [] })).toEqual([]);
  });

  it('systemPrompt reaches the model; name defaults to "default"', async () => {
    const model = fakeModel().respond(new AIMessage({ id: "r1", content: "ok" }));
    const agent = createDeerflowAgent(model, [], { features: { sandbox: false }, systemPrompt: "You are a test." });
    expect(agent.options.name).toBe("default");
    await say(agent, { messages: [new HumanMessage("hi")] });
    const first = model.calls[0]!.messages[0]!;
    expect(SystemMessage.isInstance(first)).toBe(true);
    expect(text(first)).toBe("You are a test.");
    expect(createDeerflowAgent(fakeModel(), [], { name: "lead" }).options.name).toBe("lead");
  });
});
