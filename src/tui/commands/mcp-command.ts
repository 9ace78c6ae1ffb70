// `/mcp`: one line per MCP server (status, or why it is not available), its tools indented under it.
import type { ChatSession } from "../../runtime/chat-session.js";
import type { SlashCommand } from "./types.js";

const MAX_TOOLS = 12;

export function mcpListing(servers: ReturnType<ChatSession["mcpServers"]>): string {
  if (servers.length === 0) return 'No MCP servers configured. Add "mcpServers" to .deerflowrc (see docs/mcp.md).';
  const lines = ["MCP servers:"];
  for (const sv of servers) {
    const state = sv.status === "ready" ? `ready, ${sv.tools.length} tool${sv.tools.length === 1 ? "" : "s"}` : sv.status === "waiting" ? "starts with the first message" : sv.status;
    lines.push(`  ${sv.name} (${sv.kind}): ${state}${sv.error ? ` — ${sv.error}` : ""}`);
    for (const t of sv.tools.slice(0, MAX_TOOLS)) lines.push(`    ${t.name}${t.trusted ? " (trusted)" : ""}`);
    if (sv.tools.length > MAX_TOOLS) lines.push(`    … ${sv.tools.length - MAX_TOOLS} more (deerflow mcp list shows all)`);
  }
  return lines.join("\n");
}

export const mcpCommand: SlashCommand = {
  name: "mcp",
  description: "MCP servers: status and tools",
  run: (ctx) => ctx.notice("info", mcpListing(ctx.session.mcpServers())),
};
