// Why a run ended. The guards write their reason into the `stop_reason` state channel; the runtime adds the ones
// it decides itself (clarification, error, interrupted, timeout). The CLI maps GUARD_STOP_REASONS to exit 5.
export const LOOP_CAPPED = "loop_capped";
export const TOKEN_CAPPED = "token_capped";
export const TURN_CAPPED = "turn_capped";
export const MODEL_LENGTH_CAPPED = "model_length_capped";
export const CONTENT_FILTER = "content_filter";

/** The reasons a guard middleware stops a run (exit 5). */
export const GUARD_STOP_REASONS = [LOOP_CAPPED, TOKEN_CAPPED, TURN_CAPPED, MODEL_LENGTH_CAPPED, CONTENT_FILTER] as const;
export type GuardStopReason = (typeof GUARD_STOP_REASONS)[number];

export const STOP_REASONS = ["end_turn", "clarification", ...GUARD_STOP_REASONS, "error", "interrupted", "timeout"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export function isGuardStopReason(x: unknown): x is GuardStopReason {
  return (GUARD_STOP_REASONS as readonly unknown[]).includes(x);
}
