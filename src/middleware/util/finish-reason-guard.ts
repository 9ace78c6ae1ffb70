// The shared machinery of the finish-reason guards (ModelLengthFinishReason, SafetyFinishReason): read the
// provider's finish reason (restoring it where streaming aggregation drops it) and, when it matches, strip the
// AI message's tool calls, explain, and set `stop_reason`. Each guard is its own middleware file.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { LLMResult } from "@langchain/core/outputs";
import { StateSchema, getConfig } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { STOP_REASON_VALUE } from "./stop-reason.js";
import { stripToolCalls } from "./strip-tool-calls.js";

/** Finish reasons (lower-cased) meaning "hit the output-token limit": OpenAI/Ollama, Anthropic/Bedrock, Gemini. */
export const LENGTH_FINISH_REASONS = ["length", "max_tokens", "model_length"] as const;
/** Finish reasons (lower-cased) meaning "stopped for safety": OpenAI, Anthropic, Gemini. */
export const SAFETY_FINISH_REASONS = ["content_filter", "refusal", "safety", "prohibited_content", "blocklist", "spii", "recitation"] as const;

/**
 * The same `stop_reason` channel as LoopDetection's (identical definition, so createAgent merges the fields into
 * one channel): why a guard stopped the run; null while nothing did. Reset at each run start.
 */
export const finishReasonState = new StateSchema({ stop_reason: STOP_REASON_VALUE });

/** The provider's finish reason of an AI message, lower-cased, wherever the integration puts it. */
export function finishReasonOf(msg: BaseMessage | undefined): string | undefined {
  if (!msg) return undefined;
  const meta = (msg.response_metadata ?? {}) as Record<string, unknown>;
  const kwargs = (msg.additional_kwargs ?? {}) as Record<string, unknown>;
  for (const v of [meta.finish_reason, meta.stop_reason, meta.finishReason, meta.done_reason, kwargs.finish_reason]) {
    if (typeof v === "string" && v !== "") return v.toLowerCase();
  }
  return undefined;
}

/** Whether the message carries any tool call: parsed, unparsable, or only in the raw provider payload. */
export function hasAnyToolCall(msg: AIMessage): boolean {
  const raw = (msg.additional_kwargs as { tool_calls?: unknown[] } | undefined)?.tool_calls;
  return (msg.tool_calls?.length ?? 0) > 0 || (msg.invalid_tool_calls?.length ?? 0) > 0 || (Array.isArray(raw) && raw.length > 0);
}

/** Records the finish reason of the LLM runs it sees (the last one wins). */
class FinishReasonRecorder extends BaseCallbackHandler {
  name = "deerflow_finish_reason_recorder";
  override awaitHandlers = true;
  reason: string | undefined;
  override handleLLMEnd(output: LLMResult): void {
    const gen = output.generations?.[0]?.[0] as { generationInfo?: Record<string, unknown>; message?: BaseMessage } | undefined;
    const fromInfo = gen?.generationInfo?.finish_reason;
    const reason = typeof fromInfo === "string" && fromInfo ? fromInfo : finishReasonOf(gen?.message);
    if (reason) this.reason = reason;
  }
}

type CallbackManagerLike = { addHandler(h: BaseCallbackHandler, inherit?: boolean): void; removeHandler(h: BaseCallbackHandler): void };

function currentCallbackManager(): CallbackManagerLike | undefined {
  let callbacks: unknown;
  try {
    callbacks = getConfig()?.callbacks;
  } catch {
    return undefined; // outside a graph run
  }
  const m = callbacks as Partial<CallbackManagerLike> | undefined;
  return m && typeof m.addHandler === "function" && typeof m.removeHandler === "function" ? (m as CallbackManagerLike) : undefined;
}

/**
 * Runs a model call and makes sure its AI message states its finish reason in `response_metadata.finish_reason`
 * (see the header: streaming aggregation drops it). Non-AI results (a Command) pass through.
 */
export async function callWithFinishReason<R>(run: () => Promise<R> | R): Promise<R> {
  const manager = currentCallbackManager();
  if (!manager) return run();
  const recorder = new FinishReasonRecorder();
  manager.addHandler(recorder, true);
  let result: R;
  try {
    result = await run();
  } finally {
    manager.removeHandler(recorder);
  }
  if (recorder.reason && AIMessage.isInstance(result) && finishReasonOf(result) === undefined) {
    // Same message (same id, same class), one metadata key added.
    (result as AIMessage).response_metadata = { ...(result as AIMessage).response_metadata, finish_reason: recorder.reason };
  }
  return result;
}

export interface FinishReasonGuardConfig {
  name: string;
  reasons: readonly string[];
  stopReason: string;
  /** Appended when tool calls were stripped. */
  noteWithCalls: string;
  /** Appended when the message had no tool calls. */
  note: string;
}

/** The shared machinery of ModelLengthFinishReason and SafetyFinishReason (one middleware each). */
export function finishReasonGuard(cfg: FinishReasonGuardConfig) {
  const reasons = new Set(cfg.reasons.map((r) => r.toLowerCase()));
  return createMiddleware({
    name: cfg.name,
    stateSchema: finishReasonState,
    beforeAgent: (state) => (state.stop_reason != null ? { stop_reason: null } : undefined),
    wrapModelCall: (request, handler) => callWithFinishReason(() => handler(request)),
    afterModel: (state) => {
      const last: BaseMessage | undefined = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const reason = finishReasonOf(last);
      if (reason === undefined || !reasons.has(reason)) return undefined;
      const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
      // Already handled (e.g. the guard runs twice in a stack): nothing to strip, note present.
      if (!hasAnyToolCall(last) && (text.includes(cfg.note) || text.includes(cfg.noteWithCalls))) return undefined;
      const note = hasAnyToolCall(last) ? cfg.noteWithCalls : cfg.note;
      return { stop_reason: cfg.stopReason, messages: [stripToolCalls(last, note)] };
    },
  });
}
