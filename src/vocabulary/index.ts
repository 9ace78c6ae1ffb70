// The words every layer shares (below everything else; imports nothing from src/).
export * from "./approval-modes.js";
export * from "./checkpoint-modes.js";
export * from "./configurable.js";
export * from "./error-chain.js";
export * from "./message-markers.js";
export * from "./message-text.js";
export * from "./statuses.js";
export * from "./stop-reasons.js";
export * from "./terminal-text.js";
export * from "./secret-shapes.js";
export * from "./retry-status.js";
export * from "./secret-paths.js";
