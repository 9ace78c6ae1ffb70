// The workspace's snapshot from before a run (workspace-snapshots.ts) is a handful of git processes: taken first, they
// sat between `deerflow run` and its first model request. Nothing the run does before its first tool changes a file,
// so the snapshot is taken while the first model call is under way, and every tool waits for it (ToolWatch, where
// LangChain starts each tool: the agent's, a subagent's, an MCP server's).
// Not when something else may run code in the workspace before a tool starts: a hook (PreToolUse runs before the
// tool's start is seen) or an MCP server (started with the agent, before the first model call). Nor on the team
// database, whose writes are round trips the run's own must not interleave with. Then it is taken first, as before.
import type { ResolvedConfig } from "../config/load.js";

export function snapshotMayOverlapModel(config: Pick<ResolvedConfig, "hooks" | "mcp">, storeKind: string): boolean {
  return storeKind !== "postgres" && config.hooks.length === 0 && Object.keys(config.mcp.servers).length === 0;
}
