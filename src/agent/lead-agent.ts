// The product's lead agent: the full ordered stack assembled in one place. LEAD_MIDDLEWARE_ORDER is the documented
// order (docs/architecture.md); a tracing test asserts the hooks run in exactly this order.
import { toolHooksMiddleware } from "../middleware/tool-hooks.js";
import { stopHooksMiddleware } from "../middleware/stop-hooks.js";
import { planModeMiddleware } from "../middleware/plan-mode.js";
import type { HookSetup } from "../hooks/run-hooks.js";
import { TOOL_HOOK_EVENTS } from "../vocabulary/hook-events.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { UsageSink } from "../middleware/util/usage.js";
import { delegationLedgerMiddleware } from "../middleware/delegation-ledger.js";
import { dynamicContextMiddleware } from "../middleware/dynamic-context.js";
import { subagentLimitMiddleware } from "../middleware/subagent-limit.js";
import { inputSanitizationMiddleware } from "../middleware/input-sanitization.js";
import { llmErrorHandlingMiddleware } from "../middleware/llm-error-handling.js";
import { loopDetectionMiddleware } from "../middleware/loop-detection.js";
import { modelLengthFinishReasonMiddleware } from "../middleware/model-length-finish-reason.js";
import { safetyFinishReasonMiddleware } from "../middleware/safety-finish-reason.js";
import { toolApprovalMiddleware } from "../middleware/tool-approval.js";
import { sandboxAuditMiddleware } from "../middleware/sandbox-audit.js";
import { type SummarizationOptions, summarizationMiddleware } from "../middleware/summarization.js";
import { createReadHistoryTool } from "../tools/read-history.js";
import { redactingInvoker } from "../middleware/util/pii-messages.js";
import { systemMessageCoalescingMiddleware } from "../middleware/system-message-coalescing.js";
import { terminalResponseMiddleware } from "../middleware/terminal-response.js";
import { titleMiddleware } from "../middleware/title.js";
import { tokenBudgetMiddleware } from "../middleware/token-budget.js";
import { tokenUsageMiddleware } from "../middleware/token-usage.js";
import { toolOutputBudgetMiddleware } from "../middleware/tool-output-budget.js";
import { turnLimitMiddleware } from "../middleware/turn-limit.js";
import type { ApprovalSettings } from "../sandbox/approvals.js";
import { createBashTool } from "../tools/bash.js";
import { createBashJobsTool } from "../tools/bash-jobs.js";
import { createFileTools } from "../tools/file-tools.js";
import { webTools, type WebToolsOptions } from "../tools/web-tools.js";
import { createSkillTool } from "../tools/skill.js";
import { skillActivationMiddleware } from "../middleware/skill-activation.js";
import type { SkillCatalog } from "../skills/catalog.js";
import { memoryMiddleware } from "../middleware/memory.js";
import { memoryStoreFor } from "../memory/store.js";
import { projectKeyOf } from "../memory/project.js";
import { type DeferredToolCatalog, createToolSearchTool, deferredListing } from "../tools/tool-search.js";
import { deferredToolFilterMiddleware } from "../middleware/deferred-tool-filter.js";
import { before, nextTo } from "./anchors.js";
import { artifactCaptureMiddleware } from "../middleware/artifact-capture.js";
import { taskNotesMiddleware } from "../middleware/task-notes.js";
import { LEAD_SYSTEM_PROMPT, NETWORK_OFF_NOTE } from "./lead-prompt.js";
import { type CheckpointChannelMode, type DeerflowAgentOptions, assembleMiddleware, createDeerflowAgent } from "./create-deerflow-agent.js";

/** Static on purpose: the provider's prefix cache keeps working across turns and days (dates go in reminders). */
export { LEAD_SYSTEM_PROMPT };

/**
 * The lead agent's order. before* hooks run top to bottom, after* hooks bottom to top, and each wrapper contains
 * the ones below it. Why the extras sit where they do:
 * - DynamicContext right after Sandbox: its beforeAgent needs thread_data, and it writes the dated reminder before
 *   any model call.
 * - InputSanitization right after it: outermost of the model wrappers that add request-only messages, so it only
 *   ever escapes what the user typed.
 * - SandboxAudit, ToolApproval and ToolOutputBudget inside ToolErrorHandling: a failing approval broker (or an edit
 *   whose preview fails) becomes an error result;
 *   the budget sees every result, also error results.
 * - ArtifactCapture between ToolErrorHandling and SandboxAudit: its beforeModel captures handles before Summarization
 *   can remove the results, and its wrapToolCall resolves handles outside the audit, so the audit and the approval
 *   prompt see the real path (an unknown handle's error result still passes ToolErrorHandling).
 * - TaskNotes next to Title: the write_notes tool, and the notes as a trailing reminder once their call is gone.
 * - DelegationLedger next to SubagentLimit: the "work already delegated" reminder before each model call.
 * - TurnLimit next to TokenBudget: like it, a guard whose stripped calls LoopDetection must never count.
 * - SafetyFinishReason / ModelLengthFinishReason below LoopDetection and TokenBudget: after* hooks run bottom to
 *   top, so truncated or filtered tool calls are stripped before the guards count them.
 * - TokenUsage below them: it counts every answer first, whatever the guards do with it.
 * - SystemMessageCoalescing, TerminalResponse, LLMErrorHandling innermost: one system message after every
 *   injection, an empty answer retried as one more model call, and a transient error retried as the bare HTTP call.
 * - DeferredToolFilter (MCP tools past the threshold) right before ToolApproval: a deferred tool that was not
 *   promoted is refused before anyone is asked. MCP tools ask through ToolApproval (their approval gate).
 * - Summarization at DeerFlow's place (after the history repairs, before Todo/Title and the guards): for every model
 *   (its window configured, stated by its server, or a default), and brings read_history.
 * - SkillActivation after Summarization (and Todo), before Title: it restores a compacted skill's text before the
 *   same model call. Present only when skills were found.
 * - Memory at DeerFlow's place (after Title): its afterAgent queues what the run taught, after the title is set.
 * - PiiRedaction innermost of the model wrappers (piiRedaction only): it masks the final request, reminders included.
 * - PlanMode right after ArtifactCapture, outside ToolHooks, SandboxAudit and ToolApproval: in plan mode a call that
 *   does not only read is refused before any hook runs or anyone is asked.
 * - ToolHooks (the user's PreToolUse / PostToolUse hooks) right after PlanMode, outside SandboxAudit and
 *   ToolApproval: a hook refuses a call before anyone is asked, and no hook answer gets a call past them.
 * - StopHooks (the user's Stop hooks) first: its afterModel runs last, after every guard has counted and stopped
 *   what it stops, and a block sends the run back to the model without a new beforeAgent (the guards keep counting).
 * - Clarification always last.
 */
export const LEAD_MIDDLEWARE_ORDER = [
  "StopHooks", // .deerflowrc Stop hooks only
  "ThreadData",
  "Uploads",
  "Sandbox",
  "DynamicContext",
  "InputSanitization",
  "DanglingToolCall",
  "ToolCallIds",
  "AnswerSecretMasking",
  "ToolResultSecretMasking", // outside every tool wrapper: what reaches the model, errors included, is masked
  "ToolErrorHandling",
  "ArtifactCapture",
  "PlanMode", // refuses all but reading tools while the approval mode is plan
  "ToolHooks", // .deerflowrc hooks (PreToolUse / PostToolUse) only
  "SandboxAudit",
  "DeferredToolFilter", // MCP tools past the deferral threshold
  "ToolApproval",
  "ToolOutputBudget",
  "InvalidToolCall",
  "Summarization", // unless compaction is off
  "Todo",
  "SkillActivation", // when skills are installed
  "Title",
  "TaskNotes",
  "Memory", // features.memory
  "ViewImage", // models with supportsVision only
  "SubagentLimit", // when a task tool is given
  "DelegationLedger", // when a task tool is given
  "LoopDetection",
  "TokenBudget",
  "TurnLimit", // --max-turns only
  "SafetyFinishReason",
  "ModelLengthFinishReason",
  "TokenUsage",
  "SystemMessageCoalescing",
  "TerminalResponse",
  "LLMErrorHandling",
  "PiiRedaction", // piiRedaction only
  "Clarification",
] as const;

export interface LeadAgentOptions {
  model: BaseChatModel;
  /** A non-streaming model for side calls (the title): a streaming model's invoke() may fetch a tokenizer. */
  sideModel?: BaseChatModel;
  checkpointer?: BaseCheckpointSaver;
  channelMode: CheckpointChannelMode;
  snapshotFrequency?: number;
  /** Read at every guarded call (the TUI changes `mode` while a run works). */
  approval: ApprovalSettings;
  bashTimeoutSeconds?: number;
  /** The model accepts images: enables ViewImage (and its view_image tool). */
  supportsVision?: boolean;
  /** Plan mode: write_todos asks for the plan before any other tool (the tool itself is always there). */
  planMode?: boolean;
  /** Model calls allowed per run (--max-turns); unlimited when absent. */
  maxTurns?: number;
  /** The `task` tool (built by the runtime from the subagents layer); enables SubagentLimit and the ledger. */
  taskTool?: unknown;
  /** Guard limits (defaults: loop 3/5, per tool 30/50, 200k tokens per run). */
  guards?: { loopWarn: number; loopStop: number; toolCallWarn: number; toolCallStop: number; tokenBudget: number };
  /** Compaction of long conversations (the runtime gives it unless compaction is off): Summarization and read_history. */
  compaction?: SummarizationOptions;
  onModelRetry?: (info: { attempt: number; maxRetries: number; delayMs: number; reason: string }) => void;
  /** The current run's usage ledger (the graph is shared by runs): side calls report to it, the budget reads it. */
  usageSink?: () => UsageSink | undefined;
  /** Installed skills: the `skill` tool (listing them) and SkillActivation, when there is at least one. */
  skills?: SkillCatalog;
  /** Memory (features.memory): the Memory middleware queues what a run taught, DynamicContext shows what was learned. */
  memory?: boolean;
  /** The model's endpoint (config's endpointIdentity): a queued run is extracted only by a drain with the same one. */
  memoryEndpoint?: string;
  /** Mask personal values in every request (PiiRedaction) and in the side calls (title, summary). */
  piiRedaction?: boolean;
  /** MCP tools (already built by the mcp layer; untrusted ones carry an approval gate) and the deferred catalogue. */
  mcp?: LeadAgentMcp;
  /** web_fetch's limits and web_search's provider (without one, web_search is not offered). */
  web?: WebToolsOptions;
  /** The user's hooks (.deerflowrc `hooks`): ToolHooks when any is a tool event's, StopHooks when any is Stop. */
  hooks?: HookSetup;
}

/** The remembered facts a thread's reminder shows: global ones and its project's, approved by the user. */
function learnedFacts(home: string, workspace: string | undefined) {
  return memoryStoreFor(home).inEffect(projectKeyOf(workspace, home) || undefined);
}

export interface LeadAgentMcp {
  tools: readonly unknown[];
  /** Set when the catalogue passes the threshold: these tools wait for tool_search. */
  deferred?: DeferredToolCatalog;
}

/**
 * The lead system prompt: static, plus the deferred tools' listing (static while the catalogue stands), plus why no
 * web tool is offered when the network is off.
 */
export function leadSystemPrompt(mcp?: LeadAgentMcp, web?: WebToolsOptions): string {
  const parts = [LEAD_SYSTEM_PROMPT, ...(mcp?.deferred ? [deferredListing(mcp.deferred)] : []), ...(web?.networkOff ? [NETWORK_OFF_NOTE] : [])];
  return parts.join("\n\n");
}

function leadAgentOptions(opts: LeadAgentOptions): DeerflowAgentOptions {
  const sideModel = opts.piiRedaction && opts.sideModel ? redactingInvoker(opts.sideModel) : opts.sideModel;
  return {
    piiRedaction: opts.piiRedaction ?? false,
    systemPrompt: leadSystemPrompt(opts.mcp, opts.web),
    planMode: opts.planMode ?? false,
    todos: true,
    features: {
      sandbox: true,
      loopDetection: loopDetectionMiddleware(
        opts.guards ? { warnThreshold: opts.guards.loopWarn, hardLimit: opts.guards.loopStop, toolWarn: opts.guards.toolCallWarn, toolHardLimit: opts.guards.toolCallStop } : {},
      ),
      vision: opts.supportsVision ?? false,
      autoTitle: titleMiddleware({ model: sideModel, sink: opts.usageSink }),
      tokenBudget: tokenBudgetMiddleware({ maxTokens: opts.guards?.tokenBudget, sideTokens: () => opts.usageSink?.()?.sideTokens() ?? 0 }),
      subagent: opts.taskTool ? subagentLimitMiddleware() : false,
      summarization: opts.compaction ? summarizationMiddleware({ model: sideModel, ...opts.compaction, piiRedaction: false }) : false,
      memory: opts.memory ? memoryMiddleware({ piiRedaction: opts.piiRedaction, endpoint: opts.memoryEndpoint }) : false,
    },
    extraMiddleware: [
      nextTo("Sandbox", dynamicContextMiddleware(opts.memory ? { learned: learnedFacts } : {})),
      nextTo("DynamicContext", inputSanitizationMiddleware()),
      nextTo("ToolErrorHandling", sandboxAuditMiddleware(opts.approval)),
      nextTo("SandboxAudit", toolApprovalMiddleware(opts.approval)),
      nextTo("ToolApproval", toolOutputBudgetMiddleware()),
      before("SandboxAudit", artifactCaptureMiddleware()),
      nextTo("ArtifactCapture", planModeMiddleware({ approval: opts.approval })),
      nextTo("Title", taskNotesMiddleware()),
      ...(opts.maxTurns ? [nextTo("TokenBudget", turnLimitMiddleware({ maxTurns: opts.maxTurns }))] : []),
      ...(opts.taskTool ? [nextTo("SubagentLimit", delegationLedgerMiddleware())] : []),
      ...(opts.skills?.skills.length ? [before("Title", skillActivationMiddleware({ catalog: opts.skills }))] : []),
      ...(opts.mcp?.deferred ? [before("ToolApproval", deferredToolFilterMiddleware(opts.mcp.deferred))] : []),
      ...(opts.hooks?.hooks.some((h) => TOOL_HOOK_EVENTS.includes(h.event)) ? [nextTo("PlanMode", toolHooksMiddleware(opts.hooks))] : []),
      ...(opts.hooks?.hooks.some((h) => h.event === "Stop") ? [before("ThreadData", stopHooksMiddleware(opts.hooks, "Stop"))] : []),
      // Unanchored extras keep this order just before Clarification.
      safetyFinishReasonMiddleware(),
      modelLengthFinishReasonMiddleware(),
      tokenUsageMiddleware({ sink: opts.usageSink }),
      systemMessageCoalescingMiddleware(),
      terminalResponseMiddleware(),
      llmErrorHandlingMiddleware({ onRetry: opts.onModelRetry }),
    ],
    checkpointChannelMode: opts.channelMode,
    checkpointSnapshotFrequency: opts.channelMode === "delta" ? opts.snapshotFrequency : undefined,
    checkpointer: opts.checkpointer,
  };
}

/** The lead agent's middleware list, in order (for tests and tracing). */
export function leadAgentMiddleware(opts: LeadAgentOptions) {
  return assembleMiddleware(leadAgentOptions(opts));
}

export function leadAgentTools(opts: Pick<LeadAgentOptions, "bashTimeoutSeconds" | "taskTool" | "compaction" | "skills" | "mcp" | "web">) {
  // view_image comes with the ViewImage feature, and only for models that can see images.
  const tools: unknown[] = [createBashTool({ timeoutSeconds: opts.bashTimeoutSeconds }), createBashJobsTool(), ...createFileTools().filter((t) => t.name !== "view_image")];
  tools.push(...webTools(opts.web));
  if (opts.taskTool) tools.push(opts.taskTool);
  if (opts.compaction?.archive) tools.push(createReadHistoryTool(opts.compaction.archive));
  if (opts.skills?.skills.length) tools.push(createSkillTool(opts.skills));
  if (opts.mcp) tools.push(...opts.mcp.tools);
  if (opts.mcp?.deferred) tools.push(createToolSearchTool(opts.mcp.deferred));
  return tools as ReturnType<typeof createBashTool>[];
}

export function createLeadAgent(opts: LeadAgentOptions) {
  return createDeerflowAgent(opts.model, leadAgentTools(opts), leadAgentOptions(opts));
}
