// One run on one thread: open (or create) the thread, stream the lead agent, turn graph output into RunEvents,
// and return the run's result. Everything a consumer needs arrives as events; the return value repeats the end.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { type ResolvedConfig, type ResolvedModel, resolveNamedModel } from "../config/load.js";
import { createChatModel } from "../config/model-factory.js";
import { nextTo } from "../agent/anchors.js";
import { createLeadAgent, leadAgentTools } from "../agent/lead-agent.js";
import { sandboxAuditMiddleware } from "../middleware/sandbox-audit.js";
import { loadSubagentRegistry } from "../subagents/registry.js";
import { SubagentRuntime } from "../subagents/runtime.js";
import { createTaskTool } from "../subagents/task-tool.js";
import { DeerflowError, ExitCode, formatErrorLine } from "../errors.js";
import { type Store, openStore } from "../persistence/store.js";
import { runConfigurable } from "../vocabulary/configurable.js";
import { findPendingClarification } from "../vocabulary/message-markers.js";
import { messageText } from "../vocabulary/message-text.js";
import { type ApprovalSettings, headlessBroker } from "../sandbox/approvals.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import { setShellWarningSink } from "../sandbox/run-shell.js";
import { type OpenedThread, newId, openThread } from "./open-thread.js";
import {
  type ClarificationRequest,
  type RunEvent,
  type RunEventListener,
  type RunStatus,
  type StopReason,
  type TokenUsage,
  emptyUsage,
} from "./events.js";

/** One subagent capacity for every run of this process. */
const processSubagents = new SubagentRuntime({ maxConcurrent: 3 });

export interface RunRequest {
  config: ResolvedConfig;
  model: ResolvedModel;
  /** The user's input; goal continuations pass a hidden HumanMessage. */
  prompt: string | HumanMessage;
  /**
   * The user input's id (an idempotency key for scripts: `--input-id`). It becomes the message id, so a retried
   * input replaces itself (add-messages semantics) instead of appearing twice. Default: one per run.
   */
  inputId?: string;
  /** No user is there (goal mode): a clarification is answered "proceed with your best judgment". */
  unattended?: boolean;
  /** State written (one update) before the run starts, e.g. the goal. */
  initialState?: Record<string, unknown>;
  /** Continue this thread; it must exist. */
  threadId?: string;
  /** Continue the most recently updated thread. */
  continueLatest?: boolean;
  /** Bind a new thread's workspace to this existing directory. */
  workspace?: string;
  /** Host files to attach (copied to the thread's uploads/). */
  uploads?: string[];
  /** --yes: approve guarded shell commands that would otherwise be denied headless. */
  approveGuarded?: boolean;
  /**
   * Who answers guarded commands (the TUI: a person, through an event broker). Read at every guarded call, so a
   * mode changed while the run works applies to its next command. Default: config.approval with --yes/deny.
   */
  approval?: ApprovalSettings;
  /** Plan mode: the Todo middleware and write_todos. */
  planMode?: boolean;
  /** Model calls allowed in this run (--max-turns). */
  maxTurns?: number;
  signal?: AbortSignal;
  onEvent?: RunEventListener;
}

/** What the run.completed event says, plus what only in-process callers need. */
export type RunResult = Omit<Extract<RunEvent, { type: "run.completed" }>, "type"> & {
  clarification?: ClarificationRequest;
  /** The thread's messages after the run (for the goal evaluator; not printed). */
  messages: BaseMessage[];
};


/** Messages inside a stream "updates" chunk, whatever shape the node returned. */
function messagesIn(update: unknown): BaseMessage[] {
  const out: BaseMessage[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object" && "messages" in v) {
      const ms = (v as { messages: unknown }).messages;
      for (const m of Array.isArray(ms) ? ms : [ms]) if (m && typeof m === "object" && "content" in m) out.push(m as BaseMessage);
    }
  };
  visit(update);
  return out;
}

/** A list written to `field` inside a stream "updates" chunk (tools write through Commands, so it may be an array). */
function fieldIn(update: unknown, field: "todos" | "delegations"): unknown[] | undefined {
  const items = Array.isArray(update) ? update : [update];
  for (const u of items) {
    const t = u && typeof u === "object" ? (u as Record<string, unknown>)[field] : undefined;
    if (Array.isArray(t) && (field === "todos" || t.length > 0)) return t;
  }
  return undefined;
}

function addUsage(total: TokenUsage, m: AIMessage): void {
  const u = m.usage_metadata;
  if (!u) return;
  total.input_tokens += u.input_tokens ?? 0;
  total.output_tokens += u.output_tokens ?? 0;
  total.total_tokens += u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
  if (m.response_metadata?.usage_estimated === true) total.estimated = true;
}

export async function runThread(req: RunRequest): Promise<RunResult> {
  const emit = req.onEvent ?? (() => {});
  const mode = req.config.checkpoint.channelMode;
  const store = openStore(req.config.home, mode);
  try {
    const opened = openThread(store, {
      home: req.config.home,
      mode,
      threadId: req.threadId,
      continueLatest: req.continueLatest,
      workspace: req.workspace,
      uploads: req.uploads,
    });
    const { threadId } = opened;
    const runId = newId("run-");
    // One active run per thread, across processes; a lock left by a killed process is taken over.
    const lock = store.runs.acquire(threadId, runId);
    if (!lock.ok) {
      const h = lock.holder;
      throw new DeerflowError(`Thread ${threadId} is busy: run ${h.run_id} (pid ${h.pid}) has been working on it since ${h.started_at}.`, {
        exitCode: ExitCode.runtime,
        hint: "Wait for it to finish, or start another thread.",
      });
    }
    try {
      return await execute(req, store, opened, runId, emit);
    } finally {
      store.runs.release(threadId, runId);
    }
  } finally {
    store.close();
  }
}

async function execute(req: RunRequest, store: Store, opened: OpenedThread, runId: string, emit: RunEventListener): Promise<RunResult> {
  const { threadId } = opened;
  const mode = req.config.checkpoint.channelMode;
  store.runs.start(runId, threadId);
  // Everything this run stores comes after this mark; a failed run is rolled back to it.
  const mark = store.saver.mark();
  emit({ type: "run.started", thread_id: threadId, run_id: runId, new_thread: opened.isNew });
  store.threads.update(threadId, { status: "running" });

  const model = createChatModel(req.model);
  const approval: ApprovalSettings = req.approval ?? { mode: req.config.approval, broker: headlessBroker({ yes: req.approveGuarded ?? false }) };
  // Subagents share one capacity per process; they work in this thread's sandbox under the same approval rules.
  const taskTool = createTaskTool({
    runtime: processSubagents,
    registry: await loadSubagentRegistry({ config: req.config.subagents, home: req.config.home, cwd: process.cwd() }),
    // A type may name another configured model; otherwise children use the parent's.
    model: (type) => (type.model && req.config.models[type.model] ? createChatModel(resolveNamedModel(req.config, type.model)) : model),
    tools: () => leadAgentTools({ bashTimeoutSeconds: req.config.sandbox.bashTimeoutSeconds }) as never,
    childMiddleware: () => [nextTo("ToolErrorHandling", sandboxAuditMiddleware(approval))],
  });
  const agent = createLeadAgent({
    model,
    taskTool,
    sideModel: createChatModel(req.model, { streaming: false }),
    planMode: req.planMode ?? false,
    maxTurns: req.maxTurns,
    guards: req.config.guards,
    approval,
    bashTimeoutSeconds: req.config.sandbox.bashTimeoutSeconds,
    supportsVision: req.model.supportsVision,
    checkpointer: store.saver,
    channelMode: mode,
    snapshotFrequency: req.config.checkpoint.snapshotFrequency,
    onModelRetry: (info) => emit({ type: "model.retry", run_id: runId, attempt: info.attempt, delay_ms: info.delayMs, reason: info.reason }),
  });
  const config = {
    configurable: runConfigurable({ threadId, home: req.config.home, runId, uploads: opened.uploaded, threadData: opened.paths, unattended: req.unattended ?? false, shell: shellSettingsFromConfig(req.config) }),
  };
  const usage = emptyUsage();
  let status: RunStatus = "success";
  setShellWarningSink((message) => emit({ type: "sandbox.warning", message }));
  try {
    if (req.initialState) await agent.graph.updateState(config as never, req.initialState as never);
    const input = typeof req.prompt === "string" ? new HumanMessage({ content: req.prompt, id: `input-${req.inputId ?? runId}` }) : req.prompt;
    const stream = await agent.stream({ messages: [input] } as never, {
      ...config,
      streamMode: ["messages", "updates"],
      signal: req.signal,
      recursionLimit: 1000,
    } as never);
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === "messages") {
        const [msg, meta] = chunk as [BaseMessage, { langgraph_node?: string }];
        if (meta?.langgraph_node === "model_request") {
          const reasoning = msg.additional_kwargs?.reasoning_content;
          if (typeof reasoning === "string" && reasoning) emit({ type: "message.reasoning", run_id: runId, text: reasoning });
          const text = messageText(msg);
          if (text) emit({ type: "message.delta", run_id: runId, text });
        }
        continue;
      }
      for (const [node, update] of Object.entries(chunk as Record<string, unknown>)) {
        const todos = fieldIn(update, "todos");
        if (todos) emit({ type: "todos.updated", run_id: runId, todos: todos as never });
        const delegations = fieldIn(update, "delegations");
        if (delegations) emit({ type: "delegation.updated", run_id: runId, delegations: delegations as never });
        for (const m of messagesIn(update)) {
          if (node === "model_request" && AIMessage.isInstance(m)) {
            addUsage(usage, m);
            const calls = m.tool_calls ?? [];
            emit({ type: "message.completed", run_id: runId, message_id: m.id, text: messageText(m), tool_calls: calls.map((c) => ({ id: c.id, name: c.name })) });
            for (const c of calls) emit({ type: "tool.started", run_id: runId, tool_call_id: c.id, name: c.name, args: c.args });
          } else if (node === "tools" && ToolMessage.isInstance(m)) {
            emit({ type: "tool.completed", run_id: runId, tool_call_id: m.tool_call_id, name: m.name ?? "", status: m.status === "error" ? "error" : "ok", output: messageText(m) });
          }
        }
      }
    }
  } catch (err) {
    if (req.signal?.aborted) {
      // Interrupted work is kept (the user may want it); DanglingToolCall mends a cut tool call next run.
      store.runs.finish(runId, { status: "interrupted", stop_reason: "interrupted", input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
      store.threads.update(threadId, { status: "interrupted" });
      throw new DeerflowError(`Run ${runId} on thread ${threadId} was interrupted.`, {
        exitCode: ExitCode.interrupted,
        hint: `Continue with \`deerflow run --thread ${threadId} "…"\`.`,
      });
    }
    // A failed run leaves the thread exactly as after the last good run.
    store.saver.rollbackTo(threadId, mark);
    store.runs.finish(runId, { status: "error", stop_reason: "error", error: formatErrorLine(err), input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
    store.threads.update(threadId, { status: "error" });
    throw err;
  }

  const snapshot = await agent.graph.getState(config as never);
  const values = snapshot.values as { messages?: BaseMessage[]; stop_reason?: string | null };
  const messages = values.messages ?? [];
  const clarification = findPendingClarification(messages) ?? undefined;
  const last = messages[messages.length - 1];
  const guardStop = values.stop_reason as StopReason | null | undefined;
  const stop_reason: StopReason = clarification ? "clarification" : guardStop ?? "end_turn";
  const final_text = clarification ? clarification.question : AIMessage.isInstance(last) ? messageText(last) : "";
  if (clarification) emit({ type: "clarification.requested", run_id: runId, clarification });
  const title = (snapshot.values as { title?: string | null }).title ?? undefined;
  store.threads.update(threadId, { status: clarification ? "input_required" : "success", title });
  store.runs.finish(runId, { status, stop_reason, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
  const thread_usage = (snapshot.values as { thread_usage?: TokenUsage }).thread_usage ?? usage;
  emit({ type: "run.completed", thread_id: threadId, run_id: runId, status, stop_reason, final_text, usage, thread_usage });
  return { thread_id: threadId, run_id: runId, status, stop_reason, final_text, usage, thread_usage, clarification, messages };
}

/** One state write on an existing thread (under its run lock), e.g. the goal decision after a run. */
export async function updateThreadState(req: Pick<RunRequest, "config" | "model">, threadId: string, update: Record<string, unknown>): Promise<void> {
  const mode = req.config.checkpoint.channelMode;
  const store = openStore(req.config.home, mode);
  const lockId = newId("state-");
  try {
    const lock = store.runs.acquire(threadId, lockId);
    if (!lock.ok) throw new DeerflowError(`Thread ${threadId} is busy: run ${lock.holder.run_id} is working on it.`, { exitCode: ExitCode.runtime });
    try {
      const agent = createLeadAgent({
        model: createChatModel(req.model),
        approval: { mode: "ask", broker: headlessBroker({ yes: false }) },
        checkpointer: store.saver,
        channelMode: mode,
        snapshotFrequency: req.config.checkpoint.snapshotFrequency,
      });
      await agent.graph.updateState({ configurable: { thread_id: threadId } } as never, update as never);
    } finally {
      store.runs.release(threadId, lockId);
    }
  } finally {
    store.close();
  }
}
