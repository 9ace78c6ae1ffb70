// SafetyFinishReason — WHY afterModel: a reply the provider stopped for safety (finish_reason "content_filter",
// "refusal"; Gemini "safety"/"prohibited_content"…) is judged right after it is produced and BEFORE the tools
// step: whatever tool calls it carries were cut mid-way or are exactly what the filter objected to, so none of
// them may run. The AI message is replaced by id with the same text, NO tool calls (`tool_calls`,
// `invalid_tool_calls`, raw `additional_kwargs.tool_calls`) and an explanation line; `stop_reason` becomes
// "content_filter". An AI message without tool calls ends createAgent's loop normally (no `jumpTo: "end"`, which
// would skip every afterAgent hook). WHY beforeAgent: `stop_reason` is per run, reset at each run start. WHY
// wrapModelCall: streaming aggregation in @langchain/core 1.4 drops the finish reason from the message; it is
// recorded around the call and put back (see util/finish-reason-guard.ts, the shared machinery).
// WHY its position (listed AFTER LoopDetection, next to ModelLengthFinishReason): after* hooks run in reverse
// list order, so our afterModel runs BEFORE LoopDetection's, which then never counts the stripped calls.
import { CONTENT_FILTER } from "../vocabulary/stop-reasons.js";
import { SAFETY_FINISH_REASONS, finishReasonGuard } from "./util/finish-reason-guard.js";

export { SAFETY_FINISH_REASONS };

export const SAFETY_NOTE_WITH_CALLS = "[The model's answer was stopped by the provider's content filter; the tool calls in it were not run.]";
export const SAFETY_NOTE = "[The model's answer was stopped by the provider's content filter.]";

export interface SafetyFinishReasonOptions {
  /** Finish reasons (case-insensitive) that mean "stopped for safety". Default SAFETY_FINISH_REASONS. */
  reasons?: readonly string[];
}

export function safetyFinishReasonMiddleware(options: SafetyFinishReasonOptions = {}) {
  return finishReasonGuard({
    name: "SafetyFinishReason",
    reasons: options.reasons ?? SAFETY_FINISH_REASONS,
    stopReason: CONTENT_FILTER,
    noteWithCalls: SAFETY_NOTE_WITH_CALLS,
    note: SAFETY_NOTE,
  });
}
