// deerflow's stop reasons as ACP's (end_turn, max_tokens, max_turn_requests, refusal, cancelled).
import type { StopReason as AcpStopReason } from "@agentclientprotocol/sdk";
import type { StopReason } from "../vocabulary/stop-reasons.js";

/**
 * A clarification ends the turn (its question is the answer; the next prompt answers it); the guards map to the
 * limit they are; an interrupted run is a cancelled turn. A timeout or a loop guard has no ACP word of its own: the
 * turn ended, and the answer says why.
 */
export function acpStopReason(reason: StopReason): AcpStopReason {
  switch (reason) {
    case "turn_capped":
      return "max_turn_requests";
    case "model_length_capped":
    case "token_capped":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "interrupted":
      return "cancelled";
    default:
      return "end_turn";
  }
}
