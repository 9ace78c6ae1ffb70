// The MCP servers an editor passes in session/new and session/load, started beside the ones .deerflowrc configures
// (the same hub, transports and approval rules: their tools are untrusted, so each call asks in `ask` mode). A stdio
// server runs in the user's home, never the session's folder: npx and `python3 -m` resolve from their cwd, so a cloned
// repository's node_modules would run with the editor's tokens (the fourteenth pass; .deerflowrc's servers follow the
// same rule in mcp/transport.ts). A name the configuration already uses keeps the configured server: the editor's is
// left out, with a line on stderr.
import { homedir } from "node:os";
import { join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { ResolvedMcpServer } from "../config/load.js";

/** The names .deerflowrc allows (the server's name is part of its tools' names: mcp__<name>__<tool>). */
const NAME = /^[A-Za-z0-9_.-]{1,40}$/;

const pairs = (list: readonly { name: string; value: string }[]) => Object.fromEntries(list.map((p) => [p.name, p.value]));

function serverOf(s: McpServer): ResolvedMcpServer {
  // `file` names the origin (the editor's session) and, with no cwd, where the server starts: its folder, the home.
  const file = join(homedir(), "(editor session)");
  if ("type" in s && (s.type === "http" || s.type === "sse")) return { type: s.type, url: s.url, headers: pairs(s.headers), file };
  const stdio = s as Extract<McpServer, { command: string }>;
  return { command: stdio.command, args: stdio.args, env: pairs(stdio.env), file };
}

export function clientMcpServers(servers: readonly McpServer[], configured: readonly string[], log: (line: string) => void): Record<string, ResolvedMcpServer> {
  const out: Record<string, ResolvedMcpServer> = {};
  for (const s of servers) {
    if (!NAME.test(s.name)) log(`the editor's MCP server "${s.name.slice(0, 60)}" is not started: a name is letters, digits, ".", "_" and "-" (at most 40).`);
    else if (configured.includes(s.name) || s.name in out) log(`the editor's MCP server "${s.name}" is not started: .deerflowrc already has a server of that name.`);
    else out[s.name] = serverOf(s);
  }
  return out;
}
