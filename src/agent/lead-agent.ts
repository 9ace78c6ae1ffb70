// The product's lead agent: the full ordered stack assembled in one place. The order below is documented in
// the README ("How it works"); tests assert it.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { llmErrorHandlingMiddleware } from "../middleware/llm-error-handling.js";
import { sandboxAuditMiddleware } from "../middleware/sandbox-audit.js";
import type { ApprovalBroker, ApprovalMode } from "../sandbox/approvals.js";
import { createBashTool } from "../tools/bash.js";
import { createFileTools } from "../tools/file-tools.js";
import { nextTo } from "./anchors.js";
import { type CheckpointChannelMode, createDeerflowAgent } from "./create-deerflow-agent.js";

/** Static on purpose: the provider's prefix cache keeps working across turns and days (dates go in reminders). */
export const LEAD_SYSTEM_PROMPT = `You are deerflow, a coding agent working in the user's terminal.
Your files live under /mnt/user-data: workspace/ (the project; relative paths resolve here), uploads/ (files the
user attached) and outputs/ (deliverables; declare them with present_files). Nothing outside these is reachable.
Read a file before you change it. Prefer str_replace for edits and write_file for new files.
Be direct and concise: do the task, then say what you did. Never claim work you did not do.
When a request is ambiguous or risky in a way you cannot resolve yourself, ask with ask_clarification.`;

export interface LeadAgentOptions {
  model: BaseChatModel;
  checkpointer?: BaseCheckpointSaver;
  channelMode: CheckpointChannelMode;
  snapshotFrequency?: number;
  approval: { mode: ApprovalMode; broker: ApprovalBroker };
  bashTimeoutSeconds?: number;
  /** The model accepts images: enables ViewImage (and its view_image tool). */
  supportsVision?: boolean;
  onModelRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export function createLeadAgent(opts: LeadAgentOptions) {
  // view_image comes with the ViewImage feature, and only for models that can see images.
  const fileTools = createFileTools().filter((t) => t.name !== "view_image");
  return createDeerflowAgent(opts.model, [createBashTool({ timeoutSeconds: opts.bashTimeoutSeconds }), ...fileTools], {
    systemPrompt: LEAD_SYSTEM_PROMPT,
    features: { sandbox: true, loopDetection: true, vision: opts.supportsVision ?? false },
    extraMiddleware: [
      // Inside ToolErrorHandling: a failing approval broker becomes an error result instead of ending the run.
      nextTo("ToolErrorHandling", sandboxAuditMiddleware({ mode: opts.approval.mode, broker: opts.approval.broker })),
      // Unanchored: lands just before Clarification, i.e. the innermost model-call wrapper, so a retry repeats only
      // the HTTP request and none of the outer middleware's work.
      llmErrorHandlingMiddleware({ onRetry: opts.onModelRetry }),
    ],
    checkpointChannelMode: opts.channelMode,
    checkpointSnapshotFrequency: opts.channelMode === "delta" ? opts.snapshotFrequency : undefined,
    checkpointer: opts.checkpointer,
  });
}
