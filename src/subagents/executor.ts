// runSubagent — one child agent run for a `task` call (docs/architecture.md, Subagents): its own loop, no checkpointer, the parent's
// thread directories, the type's tools (never `task`), TurnLimit(type.maxTurns) + TokenBudget + LoopDetection.
//
// Decisions:
// - The child runs OUTSIDE the parent's async-local run context. Invoked from inside a tool, LangChain would merge
//   the parent's config (callbacks, `__pregel_*` keys, checkpointer, checkpoint_ns) into the child's, so the child
//   would become a subgraph of the parent: checkpointed with the parent's saver and streaming its tokens into the
//   parent's stream. Clearing the context gives it a fresh config: only what we pass below.
// - `streamMode: ["values", "messages"]`, keeping the last values chunk: a streaming ChatOpenAI called outside a
//   "messages"-streaming run falls back to a path that fetches a tokenizer; with "messages" it streams.
// - Mounts: no Sandbox feature in the child (the parent owns the sandbox). The parent's paths go in as
//   `configurable.deerflow_thread_data` and `configurable.thread_data` (the file tools' fallback), and a tiny
//   SubagentThreadData middleware seeds `thread_data` in state in beforeAgent (bash reads only the state;
//   createAgent drops unknown input keys, so it cannot be passed as input).
// - Cancellation: the parent's signal and the timeout abort one controller whose signal is the child run's signal
//   (the ToolNode hands it to tools: bash kills its process group). The result does not wait for a tool that
//   ignores its signal: the run is raced against the abort.
// - Clarification is offered to nobody (`deerflow_unattended: true`): a child cannot ask the user.
// - A guard's stop (turn/loop/token/length, the provider's content filter) is still "completed", with `stop_reason`
//   set (docs/events.md); the task tool decides what the lead reads.
// - Uploads: the files attached to the parent's run (`configurable.deerflow_uploads`) reach the child through the
//   same Uploads middleware the lead has, right after SubagentThreadData (it needs uploads_path in state).
// - The result carries the ids of the tool calls the child made (receipts.ts checks the report's citations) and the
//   calls its approval rules refused (their results' structured denial), whatever way the child ended: the run's
//   `permission_denials` lists them beside the lead's.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { type AgentMiddleware, createMiddleware } from "langchain";
import { before, nextTo } from "../agent/anchors.js";
import { createDeerflowAgent } from "../agent/create-deerflow-agent.js";
import { llmErrorHandlingMiddleware } from "../middleware/llm-error-handling.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { uploadsMiddleware } from "../middleware/uploads.js";
import { modelLengthFinishReasonMiddleware } from "../middleware/model-length-finish-reason.js";
import { safetyFinishReasonMiddleware } from "../middleware/safety-finish-reason.js";
import { tokenBudgetMiddleware } from "../middleware/token-budget.js";
import { turnLimitMiddleware } from "../middleware/turn-limit.js";
import { denialOf } from "../sandbox/permission-denial.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import { DELEGATION_STOP_REASONS, type DelegationStopReason } from "../state/types.js";
import { readRunConfigurable, runConfigurable } from "../vocabulary/configurable.js";
import { messageText } from "../vocabulary/message-text.js";
import type { PermissionDenial } from "../vocabulary/permission-denials.js";
import { madeToolCalls } from "./receipts.js";
import { type SubagentType, toolsForType } from "./registry.js";

export const DEFAULT_SUBAGENT_TIMEOUT_MS = 1_800_000;

type AgentTool = Parameters<typeof createDeerflowAgent>[1] extends readonly (infer T)[] | undefined ? T : never;

export type SubagentStatus = "completed" | "failed" | "timed_out" | "cancelled";

export interface SubagentResult {
  status: SubagentStatus;
  /** The child's final text ("" when it failed before answering). */
  result: string;
  stop_reason?: DelegationStopReason;
  error?: string;
  /** Ids of the tool calls the child made that produced a result (completed runs). */
  toolCallIds?: string[];
  /** The child's tool calls its approval rules refused, in order (absent: none). */
  denials?: PermissionDenial[];
  /** Wall-clock duration of the child run. */
  durationMs: number;
}

export interface RunSubagentOptions {
  type: SubagentType;
  prompt: string;
  description?: string;
  model: BaseChatModel;
  /** The parent's tool list; filtered by the type (never `task`). */
  tools: readonly AgentTool[];
  /** The parent's thread directories. */
  mounts?: ThreadPaths;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Token budget of the child run (default: TokenBudget's 200k). */
  tokenBudget?: number;
  /** More middleware for the child (e.g. the parent's SandboxAudit, anchored next to "ToolErrorHandling"). */
  extraMiddleware?: readonly AgentMiddleware[];
  /** Extra `configurable` keys for the child (e.g. deerflow_home); the ones set here win. */
  configurable?: Record<string, unknown>;
  /** Child thread id (ReadBeforeWrite scope); default: a fresh one per run. */
  threadId?: string;
  /** File names attached to the parent's run (in uploads/): the child is told about them as the lead is. */
  uploads?: string[];
}

/** Seeds `thread_data` from `configurable.deerflow_thread_data` (the child has no ThreadData/Sandbox). */
export function subagentThreadDataMiddleware() {
  return createMiddleware({
    name: "SubagentThreadData",
    stateSchema: THREAD_DATA_STATE,
    beforeAgent: (state, runtime) => {
      const current = (state as { thread_data?: { workspace_path?: string } | null }).thread_data;
      if (current?.workspace_path) return;
      const given = readRunConfigurable(runtime.configurable).threadData;
      if (given?.workspace_path) return { thread_data: given } as never;
      return;
    },
  });
}

/** The child agent for `type` (no checkpointer). */
export function buildSubagent(options: Pick<RunSubagentOptions, "type" | "model" | "tools" | "tokenBudget" | "extraMiddleware">) {
  const { type } = options;
  return createDeerflowAgent(options.model, toolsForType(type, options.tools), {
    systemPrompt: type.systemPrompt,
    name: `subagent-${type.name}`,
    features: {
      sandbox: false,
      loopDetection: loopDetectionMiddleware(),
      tokenBudget: tokenBudgetMiddleware({ maxTokens: options.tokenBudget }),
    },
    extraMiddleware: [
      before("DanglingToolCall", subagentThreadDataMiddleware()),
      nextTo("SubagentThreadData", uploadsMiddleware()),
      nextTo("TokenBudget", turnLimitMiddleware({ maxTurns: type.maxTurns })),
      ...(options.extraMiddleware ?? []),
      safetyFinishReasonMiddleware(),
      modelLengthFinishReasonMiddleware(),
      llmErrorHandlingMiddleware(),
    ],
  });
}

/** The final answer: the last AI message with text. */
export function finalText(messages: readonly BaseMessage[] | undefined): string {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) {
    const m = messages![i]!;
    if (AIMessage.isInstance(m)) {
      const t = messageText(m).trim();
      if (t) return t;
    }
  }
  return "";
}

/** The calls refused in `messages`: each refusal's structured record on its tool result (sandbox/permission-denial.ts). */
function deniedCalls(messages: unknown): PermissionDenial[] {
  const out: PermissionDenial[] = [];
  for (const m of Array.isArray(messages) ? messages : []) {
    const denial = ToolMessage.isInstance(m) ? denialOf(m.artifact) : undefined;
    if (denial) out.push(denial);
  }
  return out;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name && e.name !== "Error" ? `${e.name}: ` : ""}${e.message}`;
  return String(e);
}

/** Run `fn` with no ambient LangChain run config (the child must not become the parent's subgraph). */
function outsideParentRun<T>(fn: () => Promise<T>): Promise<T> {
  const storage = AsyncLocalStorageProviderSingleton.getInstance();
  return storage.run(undefined as never, fn);
}

let seq = 0;

/** The child run's `configurable`: its own thread id, unattended, the parent's directories and uploads. */
function childConfigurable(options: RunSubagentOptions): Record<string, unknown> {
  return {
    thread_id: options.threadId ?? `subagent-${process.pid}-${Date.now().toString(36)}-${++seq}`,
    ...runConfigurable({ unattended: true, subagent: options.type.name, threadData: options.mounts, uploads: options.uploads }),
    ...(options.mounts ? { thread_data: options.mounts } : {}),
    ...options.configurable,
  };
}

export async function runSubagent(options: RunSubagentOptions): Promise<SubagentResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_SUBAGENT_TIMEOUT_MS;
  /** The child's latest state: what it did so far, also when it timed out, was cancelled or failed. */
  let last: Record<string, unknown> | undefined;
  const done = (r: Omit<SubagentResult, "durationMs">): SubagentResult => {
    const denials = deniedCalls(last?.messages);
    return { ...r, ...(denials.length ? { denials } : {}), durationMs: Date.now() - started };
  };
  if (options.signal?.aborted) return done({ status: "cancelled", result: "", error: "cancelled before start" });

  let child;
  try {
    child = buildSubagent(options);
  } catch (e) {
    return done({ status: "failed", result: "", error: errorText(e) });
  }

  const controller = new AbortController();
  let timedOut = false;
  let abortedBy: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => (abortedBy = () => resolve("aborted")));
  const onParentAbort = () => {
    controller.abort(options.signal?.reason);
    abortedBy?.();
  };
  options.signal?.addEventListener("abort", onParentAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(Object.assign(new Error(`The subagent timed out after ${Math.round(timeoutMs / 1000)} s`), { name: "AbortError" }));
    abortedBy?.();
  }, timeoutMs);
  timer.unref?.();

  const maxTurns = options.type.maxTurns;
  const configurable = childConfigurable(options);
  const work = outsideParentRun(async () => {
    const stream = await child.stream(
      { messages: [new HumanMessage(options.prompt)] } as never,
      {
        configurable,
        signal: controller.signal,
        streamMode: ["values", "messages"],
        // Each model turn passes through several middleware nodes; TurnLimit is the real cap.
        recursionLimit: maxTurns * 25 + 100,
        callbacks: [],
        tags: ["deerflow:subagent"],
        metadata: { deerflow_subagent: options.type.name, description: options.description },
      } as never,
    );
    for await (const chunk of stream as AsyncIterable<unknown>) {
      const [mode, payload] = chunk as [string, unknown];
      if (mode === "values") last = payload as Record<string, unknown>;
    }
    return last;
  });
  work.catch(() => undefined); // the race below may leave it running after an abort

  try {
    const outcome = await Promise.race([work, aborted]);
    if (outcome === "aborted" || controller.signal.aborted) {
      return timedOut ? done({ status: "timed_out", result: "", error: `timed out after ${Math.round(timeoutMs / 1000)} s` }) : done({ status: "cancelled", result: "", error: "cancelled" });
    }
    const values = outcome ?? {};
    const messages = values.messages as BaseMessage[] | undefined;
    const stop = values.stop_reason;
    const stop_reason = (DELEGATION_STOP_REASONS as readonly unknown[]).includes(stop) ? (stop as DelegationStopReason) : undefined;
    return done({ status: "completed", result: finalText(messages), toolCallIds: [...madeToolCalls(messages ?? [])], ...(stop_reason ? { stop_reason } : {}) });
  } catch (e) {
    if (timedOut) return done({ status: "timed_out", result: "", error: `timed out after ${Math.round(timeoutMs / 1000)} s` });
    if (options.signal?.aborted) return done({ status: "cancelled", result: "", error: "cancelled" });
    return done({ status: "failed", result: "", error: errorText(e) });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onParentAbort);
  }
}
