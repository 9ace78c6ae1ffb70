// Typed validation errors of createDeerflowAgent. Each message says what was wrong and what to do instead;
// all are raised before anything is built.

export type AgentOptionsErrorCode =
  | "middleware_with_features"
  | "middleware_with_extras"
  | "subagent_runtime_without_feature"
  | "subagent_runtime_not_started"
  | "subagent_runtime_missing"
  | "delta_with_raw_checkpointer"
  | "invalid_snapshot_frequency"
  | "feature_needs_instance"
  | "feature_not_available"
  | "invalid_feature_value"
  | "invalid_channel_mode"
  | "checkpointer_mode_mismatch"
  | "duplicate_middleware_name";

export class AgentOptionsError extends Error {
  readonly code: AgentOptionsErrorCode;
  constructor(code: AgentOptionsErrorCode, message: string) {
    super(message);
    this.name = "AgentOptionsError";
    this.code = code;
  }
}

/** An extraMiddleware item that is not a middleware (e.g. a function or a plain object). */
export class MiddlewareTypeError extends TypeError {
  readonly index: number;
  constructor(index: number, got: string) {
    super(`extraMiddleware[${index}] is not a middleware (got ${got}). Create middleware with createMiddleware({ name, ... }) from "langchain".`);
    this.name = "MiddlewareTypeError";
    this.index = index;
  }
}

export type AnchorErrorCode = "duplicate_anchor" | "both_anchors" | "unknown_anchor" | "anchor_cycle";

export class AnchorError extends Error {
  readonly code: AnchorErrorCode;
  constructor(code: AnchorErrorCode, message: string) {
    super(message);
    this.name = "AnchorError";
    this.code = code;
  }
}
