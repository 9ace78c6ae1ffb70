// ModelLengthFinishReason — WHY afterModel: the model's turn is judged right after it is produced and BEFORE the
// tools step, so a reply cut off at the output limit (finish_reason "length") never runs its tool calls: their
// arguments may be truncated (a half-written `write_file` content, a cut `bash` command that still parses). The
// AI message is replaced by id with the same text, NO tool calls (`tool_calls`, `invalid_tool_calls` and the raw
// `additional_kwargs.tool_calls` all dropped) and an explanation line; `stop_reason` becomes
// "model_length_capped". An AI message without tool calls already routes createAgent to its normal exit, so no
// `jumpTo: "end"` (verified on langchain 1.5.14: a jump from a non-first afterModel skips every afterAgent hook).
// WHY beforeAgent: `stop_reason` is per run; it is reset at each run start (LoopDetection does the same — the
// field is shared, declared identically, last write wins).
// WHY wrapModelCall: with a streaming model driven by a streaming callback (agent.stream with "messages", the
// TUI), @langchain/core 1.4 aggregates the chunks WITHOUT copying `generationInfo.finish_reason` into the
// message's `response_metadata` (only the non-streaming path does). So around the model call a callback
// records the finish reason LangChain reports in `handleLLMEnd` and, when the message lacks it, puts it back into
// `response_metadata.finish_reason` — the afterModel check then sees the same thing in both modes.
// WHY its position (listed AFTER LoopDetection, with SafetyFinishReason, before/after TokenBudget does not
// matter): after* hooks run in reverse list order, so being listed after LoopDetection means our afterModel runs
// BEFORE LoopDetection's; LoopDetection then hashes a message whose (truncated) calls are already gone, and never
// counts them toward a loop.
import { MODEL_LENGTH_CAPPED } from "../vocabulary/stop-reasons.js";
import { LENGTH_FINISH_REASONS, finishReasonGuard } from "./util/finish-reason-guard.js";

export { LENGTH_FINISH_REASONS };

export const LENGTH_NOTE_WITH_CALLS = "[The model's answer was cut off at its output limit; the tool calls in it were not run.]";
export const LENGTH_NOTE = "[The model's answer was cut off at its output limit.]";

export interface ModelLengthFinishReasonOptions {
  /** Finish reasons (case-insensitive) that mean "cut off at the output limit". Default LENGTH_FINISH_REASONS. */
  reasons?: readonly string[];
}

export function modelLengthFinishReasonMiddleware(options: ModelLengthFinishReasonOptions = {}) {
  return finishReasonGuard({
    name: "ModelLengthFinishReason",
    reasons: options.reasons ?? LENGTH_FINISH_REASONS,
    stopReason: MODEL_LENGTH_CAPPED,
    noteWithCalls: LENGTH_NOTE_WITH_CALLS,
    note: LENGTH_NOTE,
  });
}
