// The MCP hub and tools in process, against real servers (server-everything and the SDK fixture server over stdio).
import { Command } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../src/config/load.js";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpHub, NETWORK_OFF_REFUSAL, closeMcpServers } from "../../src/mcp/hub.js";
import { findBwrap } from "../../src/sandbox/run-shell.js";
import { LONG_MCP_CALL_MS, createMcpTools } from "../../src/mcp/mcp-tool.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { deferredToolCatalog, searchDeferred } from "../../src/tools/tool-search.js";
import { everythingStdio, fixture } from "../support/mcp.js";

afterEach(async () => {
  await closeMcpServers();
});

function mcpConfig(servers: Record<string, Record<string, unknown>>): Pick<ResolvedConfig, "mcp"> {
  return {
    mcp: {
      servers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, { ...v, file: "/tmp/.deerflowrc" }])) as never,
      startupTimeoutMs: 20_000,
      deferAbove: 20,
      deferTokens: 8000,
    },
  };
}

describe("McpHub", () => {
  it("filters tools (includeTools / excludeTools), marks trusted ones, reports each failure once", async () => {
    const hub = McpHub.for(
      mcpConfig({
        ev: { ...everythingStdio(), includeTools: ["echo", "get-sum", "get-env"], excludeTools: ["get-env"], trust: ["echo"] },
        gone: fixture("--exit-at-start"),
        off: { ...everythingStdio(), enabled: false },
      }),
    );
    await hub.start({ shell: defaultShellSettings() });
    const ev = hub.servers().find((s) => s.name === "ev")!;
    expect(ev.status).toBe("ready");
    expect(ev.tools.map((t) => [t.name, t.trusted])).toEqual([
      ["mcp__ev__echo", true],
      ["mcp__ev__get-sum", false],
    ]);
    expect(ev.hidden).toBe(11);
    expect(hub.servers().find((s) => s.name === "off")!.status).toBe("disabled");
    expect(hub.takeFailures()).toEqual([{ server: "gone", message: expect.stringMatching(/^the server exited while starting/) }]);
    expect(hub.takeFailures()).toEqual([]);
  });

  it("with the network off, a server that reaches the network from the host (remote, or unconfined stdio) is not started, one already up is stopped; a confined one runs without network", async () => {
    // The confined server runs from this checkout: bubblewrap mounts an empty /tmp, so a checkout there (a CI clone)
    // cannot start it, and that part is left out.
    const confined = findBwrap() !== null && !/^\/tmp(?:\/|$)/.test(realpathSync(process.cwd()));
    const hub = McpHub.for(
      mcpConfig({
        local: fixture("--tools", "1", "--prefix", "local"),
        remote: { url: "http://127.0.0.1:9/mcp" },
        ...(confined ? { boxed: { ...fixture("--tools", "1", "--prefix", "boxed"), sandbox: true } } : {}),
      }),
    );
    // An earlier start with the network on (same process, same servers): the unconfined one is up.
    await hub.start({ shell: defaultShellSettings() });
    expect(hub.tools().map((t) => t.name)).toEqual(["mcp__local__local_0"]);
    hub.takeFailures();
    const scratch = mkdtempSync(join(tmpdir(), "deerflow-hub-offline-"));
    try {
      const paths = { workspace_path: join(scratch, "ws"), uploads_path: join(scratch, "up"), outputs_path: join(scratch, "out") };
      await hub.start({ paths, shell: { ...defaultShellSettings(), network: false } });
      const status = Object.fromEntries(hub.servers().map((s) => [s.name, [s.status, s.error]]));
      expect(status.local).toEqual(["failed", NETWORK_OFF_REFUSAL]);
      expect(status.remote).toEqual(["failed", NETWORK_OFF_REFUSAL]);
      expect(hub.serverError("local")).toBe(NETWORK_OFF_REFUSAL);
      // The model gets only the confined server's tools (bubblewrap without network: the shell's cut holds for it).
      expect(hub.tools().map((t) => t.name)).toEqual(confined ? ["mcp__boxed__boxed_0"] : []);
      expect(hub.takeFailures().map((f) => [f.server, f.message])).toEqual([
        ["local", NETWORK_OFF_REFUSAL],
        ["remote", NETWORK_OFF_REFUSAL],
      ]);
      await hub.start({ paths, shell: { ...defaultShellSettings(), network: false } });
      expect(hub.takeFailures()).toEqual([]);
    } finally {
      await closeMcpServers();
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(findBwrap() !== null)(
    "a confined server of the user's own file starts in the home, not the workspace: a repository's copy of its program never runs (A40a-5)",
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), "deerflow-hub-confined-cwd-"));
      try {
        const home = join(scratch, "home");
        const paths = { workspace_path: join(scratch, "ws"), uploads_path: join(scratch, "up"), outputs_path: join(scratch, "out") };
        mkdirSync(home, { recursive: true });
        mkdirSync(paths.workspace_path, { recursive: true });
        // What a cloned repository ships under the name the user's server runs relative to its folder.
        writeFileSync(join(paths.workspace_path, "srv.mjs"), `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(paths.workspace_path, "ran"))}, "");\n`);
        const hub = McpHub.for({
          mcp: {
            servers: { mine: { command: process.execPath, args: ["srv.mjs"], sandbox: true, file: join(home, ".deerflowrc") } } as never,
            startupTimeoutMs: 20_000,
            deferAbove: 20,
            deferTokens: 8000,
          },
        });
        await hub.start({ paths, shell: defaultShellSettings({ userHome: home, dataDir: join(scratch, "data") }) });
        expect(hub.servers().map((s) => s.status)).toEqual(["failed"]);
        expect(existsSync(join(paths.workspace_path, "ran"))).toBe(false);
      } finally {
        await closeMcpServers();
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it("a call longer than the threshold (10 s; 500 ms here) is recorded in background_tasks (kind mcp, completed)", async () => {
    expect(LONG_MCP_CALL_MS).toBe(10_000);
    const longCallMs = 500;
    const hub = McpHub.for(mcpConfig({ slowpoke: fixture("--slow") }));
    await hub.start({ shell: defaultShellSettings() });
    const [slow] = createMcpTools(hub, hub.tools(), { longCallMs });
    const earlier = { kind: "bash", id: "bg-1" };
    const out = await slow!.invoke({ id: "call-long", name: slow!.name, args: { ms: longCallMs + 300 }, type: "tool_call" }, {
      configurable: {},
      state: { background_tasks: [earlier] },
    } as never);
    // The runtime's state is what the ToolNode passes; invoked directly, the tool still returns the update.
    expect(out).toBeInstanceOf(Command);
    const update = (out as unknown as Command).update as { background_tasks: Record<string, unknown>[]; messages: { content: string }[] };
    expect(update.messages[0]!.content).toBe(`slept ${longCallMs + 300} ms`);
    expect(update.background_tasks[0]).toEqual(earlier);
    const task = update.background_tasks.find((t) => t.kind === "mcp")!;
    expect(task).toMatchObject({ kind: "mcp", task_id: "call-long", task_name: "mcp__slowpoke__slow", status: "completed" });
    expect(task.duration_ms as number).toBeGreaterThanOrEqual(longCallMs);
    // Without the option the threshold is the 10 s default: the same call is a plain result, nothing recorded.
    const [plain] = createMcpTools(hub);
    const quick = await plain!.invoke({ id: "call-short", name: plain!.name, args: { ms: longCallMs + 300 }, type: "tool_call" }, {
      configurable: {},
      state: { background_tasks: [earlier] },
    } as never);
    expect(quick).not.toBeInstanceOf(Command);
    expect((quick as { content: string }).content).toBe(`slept ${longCallMs + 300} ms`);
  }, 60_000);
});

describe("tool_search", () => {
  const entries = ["mcp__gh__search_issues", "mcp__gh__get_issue", "mcp__jira__get_issue", "mcp__wx__forecast"].map((name) => ({
    name,
    summary: `${name} tool`,
    description: `${name} tool for ${name.includes("wx") ? "weather" : "tickets"}`,
  }));
  const catalog = deferredToolCatalog(entries);
  const names = (q: string) => searchDeferred(catalog, q).matches.map((m) => m.name);

  it("select: exact names, unambiguous short names; ambiguous or unknown ones are reported", () => {
    expect(names("select:mcp__gh__get_issue,forecast")).toEqual(["mcp__gh__get_issue", "mcp__wx__forecast"]);
    expect(searchDeferred(catalog, "select:get_issue,nope").unknown).toEqual(["get_issue", "nope"]);
  });

  it("a regular expression, keywords, and at most 5 results", () => {
    expect(names("^mcp__gh__")).toEqual(["mcp__gh__search_issues", "mcp__gh__get_issue"]);
    expect(names("weather")).toEqual(["mcp__wx__forecast"]);
    const many = deferredToolCatalog(Array.from({ length: 12 }, (_, i) => ({ name: `mcp__s__t${i}`, summary: "x", description: "tickets" })));
    expect(searchDeferred(many, "tickets").matches).toHaveLength(5);
  });

  it("a regex that could backtrack for ever is searched as keywords (and the hash changes with the catalogue)", () => {
    const evil = deferredToolCatalog([{ name: "mcp__s__a", summary: "a".repeat(60), description: "a".repeat(1000) }]);
    expect(searchDeferred(evil, "(a+)+$").matches).toEqual([]);
    expect(searchDeferred(evil, "(a|aa)*b").matches.map((m) => m.name)).toEqual(["mcp__s__a"]); // the keyword "aa"
    expect(deferredToolCatalog(entries.slice(1)).hash).not.toBe(catalog.hash);
  });
});
