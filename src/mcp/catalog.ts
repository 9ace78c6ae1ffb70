// What the agent gets of the MCP servers: their tools (untrusted ones ask before running), and — when the catalogue
// passes the threshold (more than `deferAbove` tools, or schemas over `deferTokens` tokens) — the deferred
// catalogue: every MCP tool then waits behind tool_search (listed by name and one line).
import { type DeferredToolCatalog, deferredToolCatalog } from "../tools/tool-search.js";
import type { McpHub, McpToolInfo } from "./hub.js";
import { createMcpTools } from "./mcp-tool.js";
import { oneLine } from "./tool-names.js";

export interface AgentMcp {
  tools: unknown[];
  deferred?: DeferredToolCatalog;
}

/** Rough tokens of a tool's definition as the provider receives it (4 characters a token). */
function schemaTokens(t: McpToolInfo): number {
  return Math.ceil(JSON.stringify({ name: t.name, description: t.description, parameters: t.adapter.schema }).length / 4);
}

export function shouldDefer(infos: readonly McpToolInfo[], limits: { deferAbove: number; deferTokens: number }): boolean {
  if (infos.length === 0) return false;
  return infos.length > limits.deferAbove || infos.reduce((n, t) => n + schemaTokens(t), 0) > limits.deferTokens;
}

export function agentMcp(hub: McpHub, limits: { deferAbove: number; deferTokens: number }): AgentMcp | undefined {
  const infos = hub.tools();
  if (infos.length === 0) return undefined;
  const deferred = shouldDefer(infos, limits) ? deferredToolCatalog(infos.map((t) => ({ name: t.name, summary: oneLine(t.description), description: t.description }))) : undefined;
  return { tools: createMcpTools(hub, infos), deferred };
}
