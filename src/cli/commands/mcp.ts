// `deerflow mcp list [--json]`: starts the configured MCP servers (as a chat would, in parallel, each within its
// start-up timeout), prints each one's status and tools, and stops them. Servers with `sandbox: true` start in a
// throw-away workspace.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import type { McpServerState } from "../../mcp/hub.js";
import { noteUntrusted } from "../untrusted-note.js";
import { forTerminal, jsonText } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";

/** Starts every enabled server and returns their states (the servers are stopped again). */
export async function probeMcpServers(config: ReturnType<typeof loadConfig>): Promise<McpServerState[]> {
  const { McpHub, closeMcpServers } = await import("../../mcp/hub.js");
  const { shellSettingsFromConfig } = await import("../../sandbox/shell-settings.js");
  const scratch = mkdtempSync(join(tmpdir(), "deerflow-mcp-"));
  const paths = { workspace_path: scratch, uploads_path: join(scratch, ".uploads"), outputs_path: join(scratch, ".outputs") };
  try {
    const hub = McpHub.for(config);
    await hub.start({ paths, shell: shellSettingsFromConfig(config) });
    return hub.servers();
  } finally {
    await closeMcpServers();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function statusLine(s: McpServerState): string {
  const what = s.status === "ready" ? `ready, ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}${s.hidden ? ` (${s.hidden} left out by includeTools/excludeTools)` : ""}` : s.status;
  return `${s.name}  ${s.kind}  ${what}${s.error ? `: ${s.error}` : ""}`;
}

export async function mcpListCommand(opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  noteUntrusted(config);
  const names = Object.keys(config.mcp.servers);
  if (names.length === 0) {
    if (opts.json) process.stdout.write("[]\n");
    else process.stdout.write('No MCP servers configured. Add "mcpServers" to .deerflowrc (see docs/mcp.md).\n');
    return 0;
  }
  const states = await probeMcpServers(config);
  if (opts.json) {
    const out = states.map((s) => ({
      name: s.name,
      transport: s.kind,
      status: s.status,
      error: s.error ?? null,
      tools: s.tools.map((t) => ({ name: t.name, tool: t.tool, description: t.description, trusted: t.trusted })),
    }));
    process.stdout.write(`${jsonText(out, 2)}\n`);
  } else {
    for (const s of states) {
      process.stdout.write(forTerminal(statusLine(s)).replace(/\n/g, " ") + "\n");
      for (const t of s.tools) process.stdout.write(forTerminal(`  ${t.name}${t.trusted ? " (trusted)" : ""}  ${t.description.slice(0, 100)}`).replace(/\n/g, " ") + "\n");
    }
  }
  return 0;
}
