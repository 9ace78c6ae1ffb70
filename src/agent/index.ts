// The library's public entry (package.json "exports" → "deerflow"): the agent factory and what a caller needs to use
// it: its option and result types, the feature switches, the anchors that place extra middleware, and the typed
// errors it raises. Everything else under src/ is internal and may change without notice.
export { createDeerflowAgent, type CheckpointChannelMode, type DeerflowAgent, type DeerflowAgentOptions, type SubagentRuntimeLike } from "./create-deerflow-agent.js";
export { DEFAULT_FEATURES, FEATURE_NAMES, type FeatureValue, type RuntimeFeatures } from "./features.js";
export { before, nextTo, type Anchor } from "./anchors.js";
export { AgentOptionsError, AnchorError, MiddlewareTypeError, type AgentOptionsErrorCode, type AnchorErrorCode } from "./errors.js";
