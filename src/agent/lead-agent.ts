// The product's lead agent: the full ordered stack assembled in one place. The order below is documented in
// the README ("How it works"); tests assert it.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { llmErrorHandlingMiddleware } from "../middleware/llm-error-handling.js";
import { type CheckpointChannelMode, createDeerflowAgent } from "./create-deerflow-agent.js";

/** Static on purpose: the provider's prefix cache keeps working across turns and days (dates go in reminders). */
export const LEAD_SYSTEM_PROMPT = `You are deerflow, a coding agent working in the user's terminal.
Work in the thread's workspace. Be direct and concise: answer the question, do the task, say what you did.
When a request is ambiguous or risky in a way you cannot resolve yourself, ask with ask_clarification.
Never claim work you did not do; if you are blocked, say what blocks you.`;

export interface LeadAgentOptions {
  model: BaseChatModel;
  checkpointer?: BaseCheckpointSaver;
  channelMode: CheckpointChannelMode;
  snapshotFrequency?: number;
  onModelRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export function createLeadAgent(opts: LeadAgentOptions) {
  return createDeerflowAgent(opts.model, [], {
    systemPrompt: LEAD_SYSTEM_PROMPT,
    features: { sandbox: true, loopDetection: true },
    // Unanchored: lands just before Clarification, i.e. the innermost model-call wrapper, so a retry repeats only
    // the HTTP request and none of the outer middleware's work.
    extraMiddleware: [llmErrorHandlingMiddleware({ onRetry: opts.onModelRetry })],
    checkpointChannelMode: opts.channelMode,
    checkpointSnapshotFrequency: opts.channelMode === "delta" ? opts.snapshotFrequency : undefined,
    checkpointer: opts.checkpointer,
  });
}
