// `/mcp`'s listing: one line per server with its state (or why it is not available), its tools indented under it,
// at most 12 shown. The status values come from the MCP hub (test/cli/mcp.test.ts starts real servers).
import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../../src/runtime/chat-session.js";
import { mcpListing } from "../../../src/tui/commands/mcp-command.js";

type Servers = ReturnType<ChatSession["mcpServers"]>;
const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}`, trusted: i === 0 }));

describe("/mcp listing", () => {
  it("without servers says how to add one", () => {
    expect(mcpListing([])).toBe('No MCP servers configured. Add "mcpServers" to .deerflowrc (see docs/mcp.md).');
  });

  it("names each server's state and tools; a long tool list is cut with the command that shows all", () => {
    const servers = [
      { name: "files", kind: "stdio", status: "ready", tools: tools(14) },
      { name: "web", kind: "http", status: "failed", error: "connection refused", tools: [] },
      { name: "late", kind: "stdio", status: "waiting", tools: [] },
    ] as unknown as Servers;
    const lines = mcpListing(servers).split("\n");
    expect(lines[0]).toBe("MCP servers:");
    expect(lines[1]).toBe("  files (stdio): ready, 14 tools");
    expect(lines[2]).toBe("    t0 (trusted)");
    expect(lines.filter((l) => /^ {4}t\d+/.test(l))).toHaveLength(12);
    expect(lines).toContain("    … 2 more (deerflow mcp list shows all)");
    expect(lines).toContain("  web (http): failed — connection refused");
    expect(lines).toContain("  late (stdio): starts with the first message");
  });
});
