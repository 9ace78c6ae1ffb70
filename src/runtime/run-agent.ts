// The lead agent a run streams: the configured model, the `task` tool over this home's subagent registry, and the
// approval rules. Compiled once per (model, turn cap, approval) and reused by every later run of the
// process (a chat's turns, a goal's continuations); per-run facts travel in `configurable`, and the retry notice
// finds its run through AsyncLocalStorage.
import { type HookReport, runHooks } from "../hooks/run-hooks.js";
import { hookSetupOf } from "./hook-setup.js";
import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { type ResolvedConfig, type ResolvedModel, resolveNamedModel } from "../config/load.js";
import { endpointIdentity } from "../config/model-endpoint.js";
import { createChatModel } from "../config/model-factory.js";
import { before, nextTo } from "../agent/anchors.js";
import { createLeadAgent, leadAgentTools } from "../agent/lead-agent.js";
import { toolApprovalMiddleware } from "../middleware/tool-approval.js";
import { sandboxAuditMiddleware } from "../middleware/sandbox-audit.js";
import { planModeMiddleware } from "../middleware/plan-mode.js";
import { piiRedactionMiddleware } from "../middleware/pii-redaction.js";
import { stopHooksMiddleware } from "../middleware/stop-hooks.js";
import { type ApprovalSettings, headlessBroker } from "../sandbox/approvals.js";
import { loadSubagentRegistry } from "../subagents/registry.js";
import { SubagentRuntime } from "../subagents/runtime.js";
import { createTaskTool } from "../subagents/task-tool.js";
import type { ArchiveStore } from "../persistence/store.js";
import type { SummarizationOptions } from "../middleware/summarization.js";
import { type ModelWindow, UNKNOWN_MODEL_WINDOW, modelWindow, noteWindowFromError } from "../model/context-window.js";
import type { RunEventListener } from "./events.js";
import type { RunUsage } from "./run-usage.js";
import { usageReportMiddleware } from "../middleware/usage-report.js";
import { skillCatalogFor } from "../skills/catalog.js";
import { McpHub } from "../mcp/hub.js";
import { agentMcp } from "../mcp/catalog.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { shellSettingsFromConfig } from "../sandbox/shell-settings.js";
import { webSearchSetup } from "../config/web-search.js";

export type LeadAgent = ReturnType<typeof createLeadAgent>;

/** One subagent capacity for every run of this process. */
const processSubagents = new SubagentRuntime({ maxConcurrent: 3 });

/** The run a model retry belongs to (the compiled graph is shared, the listener is not). */
const currentRun = new AsyncLocalStorage<{ runId: string; emit: RunEventListener; usage?: RunUsage }>();

/** Runs `fn` as run `runId`: its retry and compaction notices go to `emit`, its side calls' tokens into `usage`. */
export function withRunContext<T>(runId: string, emit: RunEventListener, fn: () => Promise<T>, usage?: RunUsage): Promise<T> {
  return currentRun.run({ runId, emit, usage }, fn);
}

/** The ledger of the run this call belongs to (undefined outside a run). */
const runLedger = () => currentRun.getStore()?.usage;

export interface RunAgentSpec {
  config: ResolvedConfig;
  model: ResolvedModel;
  approval?: ApprovalSettings;
  approveGuarded?: boolean;
  maxTurns?: number;
  /** The model's window (configured, learned from its server, or the default); see modelWindowOf. */
  window?: ModelWindow;
}

/**
 * The MCP servers' tools for this run's agent: the servers start now if the chat has not started them yet (in
 * parallel, each within its start-up timeout); one that failed is reported on this run's event stream, once.
 */
async function mcpOf(config: ResolvedConfig, paths: ThreadPaths | undefined) {
  const hub = McpHub.for(config);
  if (!hub.configured) return undefined;
  await hub.start({ paths, shell: shellSettingsFromConfig(config) });
  const run = currentRun.getStore();
  for (const f of hub.takeFailures()) run?.emit({ type: "mcp.failed", server: f.server, message: f.message });
  return agentMcp(hub, config.mcp);
}

/**
 * web_search's provider when one is configured and usable (`deerflow doctor` says why one is not); no web tool with
 * the network off (web-tools.ts).
 */
function webToolsOf(config: ResolvedConfig) {
  if (!config.sandbox.network) return { networkOff: true };
  return { search: webSearchSetup(config.web).setup };
}

export function approvalOf(spec: RunAgentSpec): ApprovalSettings {
  return spec.approval ?? { mode: spec.config.approval, broker: headlessBroker({ yes: spec.approveGuarded ?? false }) };
}

/** The key under which a compiled run graph is reused. */
export function runAgentKey(spec: RunAgentSpec, approval: ApprovalSettings): string {
  // The whole resolved model, not only its name: one process may run the same model through another endpoint or
  // with another context window (`deerflow eval`: a recording proxy per attempt, a task's small window).
  // And its MCP servers (the hub it takes tools from): `deerflow acp` serves sessions whose editors pass other servers.
  return JSON.stringify([
    spec.model,
    spec.window ?? null,
    spec.maxTurns ?? null,
    // A shared one (a chat's, an editor session's) is told apart by its owner's cache (ThreadRuntime.agentFor).
    spec.approval ? "shared" : `${approval.mode}/${spec.approveGuarded ?? false}`,
    spec.config.mcp,
    // The network off takes tools away (the web tools, MCP servers that reach the network from the host).
    spec.config.sandbox.network,
  ]);
}

/** The model's window: configured, else asked of its server (once per process, bounded), else UNKNOWN_MODEL_WINDOW. */
export function modelWindowOf(model: ResolvedModel): Promise<ModelWindow> {
  return modelWindow({ baseUrl: model.baseUrl, model: model.model, apiKey: model.apiKey, contextWindow: model.contextWindow });
}

/** The window a run compacts by: `spec.window` when resolved (modelWindowOf), else the configured one, else the default. */
function windowOf(spec: Pick<RunAgentSpec, "model" | "window">): ModelWindow {
  if (spec.window) return spec.window;
  return spec.model.contextWindow ? { tokens: spec.model.contextWindow, source: "configured" } : { tokens: UNKNOWN_MODEL_WINDOW, source: "default" };
}

/**
 * Compaction for this model, unless `compaction.enabled` is false: by its configured window, else the one its server
 * states, else a conservative default (a guess: it compacts, but never refuses a message for it). A provider that
 * still refuses a call as too long gets it compacted and sent once more. Originals go to the store's archive.
 */
export function compactionOf(spec: Pick<RunAgentSpec, "config" | "model" | "window">, archive: ArchiveStore | undefined, explicit = false): SummarizationOptions | undefined {
  const { compaction } = spec.config;
  // `/compact` asks for it explicitly: it compacts even when compaction is off.
  if (!archive || (!explicit && !compaction.enabled)) return undefined;
  const known = windowOf(spec);
  const window = known.tokens;
  return {
    contextWindow: window,
    guessedWindow: known.source === "default",
    threshold: compaction.threshold,
    maxMessages: compaction.maxMessages,
    // Asked for, it keeps less (a tenth of the window) unless configured: the user wants room now.
    keepRecentTokens: compaction.keepRecentTokens ?? (explicit ? Math.floor(window * 0.1) : undefined),
    reserveTokens: Math.min(Math.floor(window * 0.15), (spec.model.maxTokens ?? 2048) + 2048),
    archive,
    piiRedaction: spec.config.piiRedaction,
    onOverflow: (message) => noteWindowFromError(spec.model, message),
    beforeCompact: preCompactHooks(spec.config),
    onCompacted: (info) => {
      const run = currentRun.getStore();
      if (info.summary_usage) run?.usage?.add("summary", info.summary_usage);
      run?.emit({ type: "context.compacted", run_id: run.runId, ...info });
    },
  };
}

export async function buildRunAgent(spec: RunAgentSpec, approval: ApprovalSettings, store: { saver: BaseCheckpointSaver; archive?: ArchiveStore }, paths?: ThreadPaths): Promise<LeadAgent> {
  const { config } = spec;
  const hooks = hookSetupOf(config, reportToCurrentRun);
  const checkpointer = store.saver;
  const mcp = await mcpOf(config, paths);
  const compaction = compactionOf(spec, store.archive);
  const model = createChatModel(spec.model);
  // Subagents share one capacity per process; they work in this thread's sandbox under the same approval rules.
  const taskTool = createTaskTool({
    runtime: processSubagents,
    registry: await loadSubagentRegistry({ config: config.subagents, home: config.home, cwd: process.cwd() }),
    // A type may name another configured model; otherwise children use the parent's.
    model: (type) => (type.model && config.models[type.model] ? createChatModel(resolveNamedModel(config, type.model)) : model),
    tools: () => leadAgentTools({ bashTimeoutSeconds: config.sandbox.bashTimeoutSeconds, web: webToolsOf(config) }) as never,
    acceptanceTimeoutSeconds: config.sandbox.bashTimeoutSeconds,
    childMiddleware: () => [
      usageReportMiddleware("subagents", runLedger),
      nextTo("ToolErrorHandling", sandboxAuditMiddleware(approval)),
      nextTo("SandboxAudit", toolApprovalMiddleware(approval)),
      // Plan mode holds for subagents too: a child's writes are refused as the lead's are.
      before("SandboxAudit", planModeMiddleware({ approval, offerExit: false })),
      ...(config.piiRedaction ? [piiRedactionMiddleware()] : []),
      // First in the child's stack (its afterModel runs last), as StopHooks is in the lead's.
      ...(hooks?.hooks.some((h) => h.event === "SubagentStop") ? [before("SubagentThreadData", stopHooksMiddleware(hooks, "SubagentStop"))] : []),
    ],
  });
  return createLeadAgent({
    model,
    taskTool,
    skills: skillCatalogFor({ home: config.home, cwd: process.cwd() }),
    memory: config.memory.enabled,
    memoryEndpoint: endpointIdentity(spec.model),
    compaction,
    sideModel: createChatModel(spec.model, { streaming: false }),
    piiRedaction: config.piiRedaction,
    maxTurns: spec.maxTurns,
    guards: config.guards,
    approval,
    mcp,
    web: webToolsOf(config),
    bashTimeoutSeconds: config.sandbox.bashTimeoutSeconds,
    supportsVision: spec.model.supportsVision,
    checkpointer: checkpointer as never,
    channelMode: config.checkpoint.channelMode,
    snapshotFrequency: config.checkpoint.snapshotFrequency,
    usageSink: runLedger,
    hooks,
    onModelRetry: (info) => {
      const run = currentRun.getStore();
      // `attempt` is the attempt about to be made (2 for the first retry): the number text mode and the TUI show.
      run?.emit({ type: "model.retry", run_id: run.runId, attempt: info.attempt + 1, max_attempts: info.maxRetries + 1, delay_ms: info.delayMs, reason: info.reason });
    },
  });
}

/**
 * The PreCompact hooks (Claude Code's input: `trigger`, `custom_instructions`; the matcher reads the trigger). They
 * run before anything is archived and cannot stop the compaction (as in Claude Code): their runs are only reported.
 */
function preCompactHooks(config: ResolvedConfig): SummarizationOptions["beforeCompact"] {
  const setup = hookSetupOf(config, reportToCurrentRun);
  if (!setup?.hooks.some((h) => h.event === "PreCompact")) return undefined;
  return ({ trigger, instructions, threadId }) => runHooks(setup, "PreCompact", { session_id: threadId, thread_id: threadId, trigger, custom_instructions: instructions }, { match: trigger });
}

/** A hook run, reported as the current run's `hook.run` event. */
function reportToCurrentRun(report: HookReport): void {
  const run = currentRun.getStore();
  run?.emit({ type: "hook.run", run_id: run.runId, ...report });
}

/**
 * The model of a state-only graph when none is configured: reading or updating a thread's state never runs the model
 * node, so a machine with no model (one that inspects a team database) still reads every thread.
 */
const UNCALLED_MODEL: ResolvedModel = { name: "none", model: "none", baseUrl: "http://127.0.0.1:9/v1", supportsVision: false, timeoutMs: 1, idleTimeoutMs: 1, passBackReasoning: false, stream: false };

/** A graph for reading and writing thread state (no run): the lead agent's state schema, never streamed. */
export function buildStateAgent(config: ResolvedConfig, model: ResolvedModel | null, checkpointer: BaseCheckpointSaver): LeadAgent {
  return createLeadAgent({
    model: createChatModel(model ?? UNCALLED_MODEL),
    approval: { mode: "ask", broker: headlessBroker({ yes: false }) },
    checkpointer: checkpointer as never,
    channelMode: config.checkpoint.channelMode,
    snapshotFrequency: config.checkpoint.snapshotFrequency,
  });
}
