// createDeerflowAgent(model, tools?, options): validates the options (every error typed and raised before anything
// is built), assembles the middleware stack from RuntimeFeatures (or takes a full takeover list), adapts state
// schemas to the checkpoint channel mode and compiles langchain's createAgent graph.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { type BaseChannel, StateSchema } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent } from "langchain";
import { isGuardedSaver } from "../persistence/mode-gate.js";
import { adaptMiddlewareStateSchemaToMode, adaptStateSchemaToMode, createThreadStateSchema } from "../state/thread-state.js";
import { placeExtras } from "./anchors.js";
import { AgentOptionsError, MiddlewareTypeError } from "./errors.js";
import { isMiddleware } from "./is-middleware.js";
import { STATE_HOOKS, exitNodeOf, fuseHooks } from "./fuse-hooks.js";
import { piiRedactionMiddleware } from "../middleware/pii-redaction.js";

import { TERMINAL_MIDDLEWARE, buildFeatureStack, resolveFeatures, terminalMiddleware, type RuntimeFeatures } from "./features.js";

export type CheckpointChannelMode = "full" | "delta";

/** What createDeerflowAgent needs to know of a SubagentRuntime (the executor lands with subagents). */
export interface SubagentRuntimeLike {
  /** Present when the runtime is configured with a batch worker; it must be started before agents use it. */
  readonly batchWorker?: { readonly started: boolean };
  /** The `task` tool for `features.subagent: true`: children on `model` with `tools`, in this runtime's capacity. */
  createTaskTool?(ctx: { model: BaseChatModel; tools: readonly unknown[] }): unknown;
}

// Tools are whatever createAgent accepts.
type AgentTool = NonNullable<Parameters<typeof createAgent>[0]["tools"]>[number];

export interface DeerflowAgentOptions {
  systemPrompt?: string;
  /** Full takeover: exactly this middleware list, no features, no extras. */
  middleware?: readonly AgentMiddleware[];
  features?: Partial<RuntimeFeatures>;
  /** Extra middleware placed by anchors (`nextTo` / `before`), unanchored ones just before Clarification. */
  extraMiddleware?: readonly AgentMiddleware[];
  /** Plan first, then act: the todo tool, described as "write the plan before any other tool". */
  planMode?: boolean;
  /** The todo tool without plan mode (the model keeps a list when the work has several steps). */
  todos?: boolean;
  stateSchema?: StateSchema<any>;
  checkpointChannelMode?: CheckpointChannelMode;
  checkpointSnapshotFrequency?: number;
  checkpointer?: BaseCheckpointSaver;
  name?: string;
  subagentRuntime?: SubagentRuntimeLike;
  /**
   * Mask e-mails, phone numbers, card numbers, national IDs and API keys in what is sent to the provider (stable
   * placeholders per thread; the thread keeps the real text). Adds PiiRedaction innermost, and masks the built-in
   * summarization's side call. Default false.
   */
  piiRedaction?: boolean;
  /**
   * Internal (tests): false builds langchain's graph with one node per hook, the reference the fused graph is
   * compared with. Default true: consecutive hooks of a kind run as one node (see fuse-hooks.ts).
   */
  hookFusion?: boolean;
}

function describeType(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "an array";
  if (typeof x === "function") return `a function${x.name ? ` (${x.name})` : ""}`;
  if (typeof x === "object") {
    const ctor = (x as object).constructor?.name;
    return ctor && ctor !== "Object" ? `an object of class ${ctor} without hooks` : "a plain object without hooks";
  }
  return typeof x;
}

function validate(options: DeerflowAgentOptions): void {
  const extras = options.extraMiddleware ?? [];
  if (options.middleware && options.features) {
    throw new AgentOptionsError("middleware_with_features", "Pass either `middleware` (a full takeover of the stack) or `features` (the built-in stack), not both: use one or the other.");
  }
  if (options.middleware && options.piiRedaction) {
    throw new AgentOptionsError(
      "middleware_with_extras",
      "`middleware` is a full takeover of the stack, so `piiRedaction` cannot add its middleware: put piiRedactionMiddleware() last in your `middleware` list.",
    );
  }
  if (options.piiRedaction !== undefined && typeof options.piiRedaction !== "boolean") {
    throw new AgentOptionsError("invalid_feature_value", `piiRedaction must be true or false (got ${typeof options.piiRedaction}).`);
  }
  if (options.middleware && extras.length > 0) {
    throw new AgentOptionsError(
      "middleware_with_extras",
      "`middleware` is a full takeover of the stack, so `extraMiddleware` cannot be added to it: put the extras into the `middleware` list yourself.",
    );
  }
  extras.forEach((m, i) => {
    if (!isMiddleware(m)) throw new MiddlewareTypeError(i, describeType(m));
  });
  if (options.features?.subagent === true && !options.subagentRuntime) {
    throw new AgentOptionsError(
      "subagent_runtime_missing",
      "features.subagent: true runs subagents through a SubagentRuntime: pass `subagentRuntime: new SubagentRuntime()` (several agents may share one), or pass your own SubagentLimit middleware instance.",
    );
  }
  if (options.subagentRuntime) {
    if (options.middleware) {
      throw new AgentOptionsError(
        "subagent_runtime_without_feature",
        "`subagentRuntime` needs the built-in subagent feature, which a full `middleware` takeover does not have: use `features: { subagent: ... }` instead.",
      );
    }
    if (!options.features?.subagent) {
      throw new AgentOptionsError("subagent_runtime_without_feature", "`subagentRuntime` was given but `features.subagent` is not enabled: enable it or drop the runtime.");
    }
    if (options.features.subagent === true && typeof options.subagentRuntime.createTaskTool !== "function") {
      throw new AgentOptionsError("subagent_runtime_not_started", "features.subagent: true needs a subagentRuntime that can create the task tool (new SubagentRuntime() from deerflow's subagents).");
    }
    if (options.subagentRuntime.batchWorker && !options.subagentRuntime.batchWorker.started) {
      throw new AgentOptionsError("subagent_runtime_not_started", "The subagentRuntime has a batch worker that is not started: start it before creating agents that use it.");
    }
  }
  const mode = options.checkpointChannelMode ?? "full";
  if (mode !== "full" && mode !== "delta") {
    throw new AgentOptionsError("invalid_channel_mode", `checkpointChannelMode must be "full" or "delta" (got ${JSON.stringify(mode)}).`);
  }
  const freq = options.checkpointSnapshotFrequency;
  if (freq !== undefined) {
    if (mode !== "delta") {
      throw new AgentOptionsError("invalid_snapshot_frequency", 'checkpointSnapshotFrequency only applies to checkpointChannelMode "delta": set the mode or drop the frequency.');
    }
    if (!Number.isInteger(freq) || freq < 1) {
      throw new AgentOptionsError("invalid_snapshot_frequency", `checkpointSnapshotFrequency must be a positive integer (got ${freq}); 20 to 100 works well.`);
    }
  }
  if (isGuardedSaver(options.checkpointer) && options.checkpointer.channelMode !== mode) {
    throw new AgentOptionsError(
      "checkpointer_mode_mismatch",
      `The checkpointer was opened in "${options.checkpointer.channelMode}" mode but checkpointChannelMode is "${mode}": open the saver with the same channelMode.`,
    );
  }
  if (mode === "delta" && options.checkpointer && !isGuardedSaver(options.checkpointer)) {
    throw new AgentOptionsError(
      "delta_with_raw_checkpointer",
      'checkpointChannelMode "delta" needs deerflow\'s guarded SQLite saver (DeerflowSqliteSaver), which marks each checkpoint with its mode so a delta thread is never opened in full mode. Pass that saver, or no checkpointer.',
    );
  }
}

type Hook = ((...args: unknown[]) => unknown) | { hook: (...args: unknown[]) => unknown; canJumpTo?: unknown };

/**
 * langchain's middleware node returns `{ ...state, ...hookResult }`, so every hook that updates any field also
 * re-writes the whole message list: in delta mode that stored the full history once per hook per run (measured by
 * `npm run bench`: per-turn bytes grew linearly). So a hook result that does not touch `messages` is sent with
 * `messages: undefined` (a no-op for the reducer), and a result that changes nothing (e.g. a per-run reset of
 * state that is already reset) becomes no update at all: no write, no new channel version.
 */
function withoutMessageEcho(hook: Hook): Hook {
  const wrap =
    (fn: (...args: unknown[]) => unknown) =>
    async (...args: unknown[]) => {
      const result = await fn(...args);
      if (!result || typeof result !== "object" || Array.isArray(result) || "messages" in result || "type" in result) return result;
      const state = (args[0] ?? {}) as Record<string, unknown>;
      const entries = Object.entries(result as Record<string, unknown>);
      const unchanged = entries.every(([k, v]) => k !== "jumpTo" && (v === state[k] || JSON.stringify(v) === JSON.stringify(state[k])));
      if (unchanged) return undefined;
      return { ...result, messages: undefined };
    };
  return typeof hook === "function" ? wrap(hook) : { ...hook, hook: wrap(hook.hook) };
}

/** A copy of the middleware whose own state schema uses the mode's messages channel (never the caller's object). */
function adaptMiddleware(mw: AgentMiddleware, mode: CheckpointChannelMode, snapshotFrequency: number | undefined, dropTools: Set<string>): AgentMiddleware {
  const copy = { ...mw } as Record<string, unknown> & { stateSchema?: unknown; tools?: readonly unknown[] };
  for (const name of STATE_HOOKS) if (copy[name]) copy[name] = withoutMessageEcho(copy[name] as Hook);
  if (copy.stateSchema instanceof StateSchema) copy.stateSchema = adaptMiddlewareStateSchemaToMode(copy.stateSchema, mode, { snapshotFrequency });
  // Feature tools merge by name with the user's tools, and the user's win.
  if (copy.tools && dropTools.size > 0) copy.tools = copy.tools.filter((t) => !dropTools.has(String((t as { name?: unknown }).name)));
  return copy as unknown as AgentMiddleware;
}

/** The assembled middleware list (exposed for tests and for docs/architecture.md's order). */
export function assembleMiddleware(options: DeerflowAgentOptions = {}): AgentMiddleware[] {
  validate(options);
  let stack: AgentMiddleware[];
  if (options.middleware) {
    stack = [...options.middleware];
  } else {
    const features = resolveFeatures(options.features as Partial<Record<string, unknown>> | undefined);
    const pii = options.piiRedaction === true;
    const base = buildFeatureStack(features, options.planMode ? "plan" : options.todos ? "on" : "off");
    // PiiRedaction innermost of the model wrappers (it masks the final request), Clarification still last.
    stack = [...placeExtras(base, [...(options.extraMiddleware ?? [])], TERMINAL_MIDDLEWARE), ...(pii ? [piiRedactionMiddleware()] : []), terminalMiddleware()];
  }
  // Names are anchors and createAgent's node ids: a duplicate is ambiguous, so say so before createAgent does.
  const seen = new Set<string>();
  for (const m of stack) {
    if (seen.has(m.name)) {
      throw new AgentOptionsError("duplicate_middleware_name", `Two middlewares are named "${m.name}": give the extra one a different name.`);
    }
    seen.add(m.name);
  }
  return stack;
}

export function createDeerflowAgent(model: BaseChatModel | string, tools: readonly AgentTool[] = [], options: DeerflowAgentOptions = {}) {
  const stack = assembleMiddleware(options);
  const mode = options.checkpointChannelMode ?? "full";
  const snapshotFrequency = options.checkpointSnapshotFrequency;
  const userTools = [...tools];
  const userToolNames = new Set(userTools.map((t) => (t as { name?: string }).name).filter((n): n is string => !!n));
  // The built-in subagent feature brings the task tool from the SubagentRuntime (a user tool named "task" wins):
  // children run on this model with the caller's tools and share the runtime's capacity.
  if (!options.middleware && options.features?.subagent === true && !userToolNames.has("task") && typeof model !== "string") {
    userTools.push(options.subagentRuntime!.createTaskTool!({ model, tools: [...tools] }) as AgentTool);
  }
  const middleware = stack.map((m) => adaptMiddleware(m, mode, snapshotFrequency, userToolNames));
  // A caller's schema extends ThreadState (its fields win): the built-in middleware still need theirs.
  const threadState = createThreadStateSchema(mode, { snapshotFrequency });
  const stateSchema = options.stateSchema
    ? adaptStateSchemaToMode(new StateSchema({ ...threadState.fields, ...options.stateSchema.fields }), mode, { snapshotFrequency, ensureMessages: true })
    : threadState;
  // The fused nodes apply writes through the compiled graph's own channels, known once createAgent has built it.
  let channels: Record<string, BaseChannel> | undefined;
  const nodes = options.hookFusion === false ? middleware : fuseHooks(middleware, () => channels!);
  const agent = createAgent({
    model: model as never,
    tools: userTools,
    systemPrompt: options.systemPrompt,
    middleware: nodes as never,
    stateSchema: stateSchema as never,
    checkpointer: options.checkpointer,
    name: options.name ?? "default",
  });
  channels = (agent.graph as unknown as { channels: Record<string, BaseChannel> }).channels;
  attributeOrphanUpdates(agent.graph as unknown as Updatable, exitNodeOf(nodes));
  return agent;
}

type Updatable = { updateState(config: unknown, values: unknown, asNode?: string): Promise<unknown> };

/**
 * updateState without `asNode` attributes the update to the node that wrote the thread's last checkpoint. A thread
 * written by an older build (one node per hook: "Sandbox.after_agent") names a node this graph no longer has, and
 * LangGraph refuses ("Node … does not exist"): such an update is attributed to the node that ends a run instead.
 */
function attributeOrphanUpdates(graph: Updatable, exitNode: string): void {
  const update = graph.updateState.bind(graph);
  graph.updateState = async (config, values, asNode) => {
    try {
      return await update(config, values, asNode);
    } catch (e) {
      if (asNode !== undefined || (e as Error)?.name !== "InvalidUpdateError" || !/does not exist/.test((e as Error).message)) throw e;
      return update(config, values, exitNode);
    }
  };
}

export type DeerflowAgent = ReturnType<typeof createDeerflowAgent>;
