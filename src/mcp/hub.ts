// The MCP servers of one chat or run. They start lazily (the chat starts them once its first frame is up, a run
// when its agent is built), all in parallel, each within its start-up timeout; a server that fails is recorded
// with a one-line reason, reported once, and the chat or run goes on without it. `closeMcpServers()` ends them
// all at the end of the chat or run, stdio servers with their whole process group.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { ResolvedConfig, ResolvedMcpServer } from "../config/load.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import type { ShellSettings } from "../sandbox/shell-settings.js";
import { killByToken } from "../sandbox/host-watchdog.js";
import { maskSecretShapes } from "../vocabulary/secret-shapes.js";
import { stripControl } from "../vocabulary/terminal-text.js";
import { type BuiltTransport, buildTransport, reachesNetworkFromHost, transportKind } from "./transport.js";
import { cleanDescription, mcpToolName } from "./tool-names.js";
import { loadMcpSdk } from "./sdk.js";

export type McpServerStatus = "disabled" | "waiting" | "starting" | "ready" | "failed" | "stopped";

/** Milliseconds one tool call may take unless the server says otherwise (Gemini CLI's default). */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 600_000;
/** A server listing more tools than this is cut (the rest are dropped with a note). */
export const MAX_TOOLS_PER_SERVER = 500;

export interface McpToolInfo {
  /** The name the model calls: mcp__<server>__<tool>. */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  trusted: boolean;
  timeoutMs: number;
  /** The adapter's tool (its JSON schema and its call). */
  adapter: DynamicStructuredTool;
}

export interface McpServerState {
  name: string;
  kind: "stdio" | "http" | "sse";
  status: McpServerStatus;
  /** Why it failed or stopped (one line). */
  error?: string;
  tools: McpToolInfo[];
  /** Tools the server listed that includeTools / excludeTools or the cap left out. */
  hidden: number;
}

export interface McpStartContext {
  /** The thread's directories (confined servers see its workspace); servers with `sandbox: true` wait for it. */
  paths?: ThreadPaths;
  shell: ShellSettings;
  env?: NodeJS.ProcessEnv;
}

interface Live {
  state: McpServerState;
  config: ResolvedMcpServer;
  started?: Promise<void>;
  client?: Client;
  built?: BuiltTransport;
  closing?: boolean;
}

/** One line for a person: no control characters, key-shaped strings masked (a server may echo its token). */
function oneLineError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return maskSecretShapes(stripControl(msg)).replace(/\s+/g, " ").trim().slice(0, 300) || "unknown error";
}

function deadline(ms: number, what: string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return { promise, clear: () => clearTimeout(timer) };
}

const hubs = new Map<string, McpHub>();

/** Why a server is not started with the network off (one line, as a failure is reported). */
export const NETWORK_OFF_REFUSAL =
  'not started: the network is off (--no-network or sandbox.network "off") and this server reaches the network from the host (a remote server, or a stdio one without "sandbox": true, which would run it in the sandbox without network)';

export class McpHub {
  private readonly live = new Map<string, Live>();
  private readonly reported = new Set<string>();
  private readonly startupTimeoutMs: number;

  /** The hub of this configuration in this process (one per chat or run). */
  static for(config: Pick<ResolvedConfig, "mcp">): McpHub {
    const key = JSON.stringify(config.mcp);
    let hub = hubs.get(key);
    if (!hub) hubs.set(key, (hub = new McpHub(config.mcp)));
    return hub;
  }

  constructor(mcp: ResolvedConfig["mcp"]) {
    this.startupTimeoutMs = mcp.startupTimeoutMs;
    for (const [name, config] of Object.entries(mcp.servers)) {
      const status: McpServerStatus = config.enabled === false ? "disabled" : "waiting";
      this.live.set(name, { config, state: { name, kind: transportKind(config), status, tools: [], hidden: 0 } });
    }
  }

  get configured(): boolean {
    return this.live.size > 0;
  }

  /**
   * Starts every enabled server not started yet (confined ones only once a thread is given); resolves when all of
   * those have started or failed. With the network off, a server that reaches the network from the host is not
   * started (one up from an earlier start with the network on is stopped) and fails with why, reported once.
   */
  async start(ctx: McpStartContext): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const [name, l] of this.live) {
      if (l.state.status === "disabled") continue;
      if (!ctx.shell.network && reachesNetworkFromHost(l.config)) {
        pending.push(this.refuseOffline(l));
        continue;
      }
      if (!l.started && (!l.config.sandbox || ctx.paths)) l.started = this.startOne(name, l, ctx);
      if (l.started) pending.push(l.started);
    }
    await Promise.all(pending);
  }

  private async startOne(name: string, l: Live, ctx: McpStartContext): Promise<void> {
    l.state.status = "starting";
    const timeoutMs = l.config.startupTimeout ?? this.startupTimeoutMs;
    const limit = deadline(timeoutMs, "starting the server and listing its tools");
    try {
      const sdk = await loadMcpSdk();
      l.built = buildTransport(sdk, name, l.config, { env: ctx.env ?? process.env, paths: ctx.paths, shell: ctx.shell });
      const client = new sdk.Client({ name: "deerflow", version: "0.1.0" }, { capabilities: {} });
      l.client = client;
      // The transport's last error says why a connection closed (e.g. a message over the SDK's 10 MB limit).
      let lastError = "";
      client.onerror = (err) => {
        // Sticky: the garbage that follows an oversized message must not hide why the connection closed.
        if (!/ReadBuffer exceeded/.test(lastError)) lastError = oneLineError(err);
      };
      client.onclose = () => {
        if (l.closing || l.state.status === "stopped") return;
        if (l.state.status === "ready") {
          l.state.status = "failed";
          const tooBig = /ReadBuffer exceeded maximum size of (\d+)/.exec(lastError);
          l.state.error = tooBig ? `the server sent a message larger than ${Math.round(Number(tooBig[1]) / 1048576)} MB and the connection was closed` : "the server stopped (its connection closed)";
        }
      };
      await Promise.race([client.connect(l.built.transport, { timeout: timeoutMs }), limit.promise]);
      const tools = await Promise.race([sdk.loadMcpTools(name, client, { throwOnLoadError: false, outputHandling: "content" }), limit.promise]);
      this.adopt(name, l, tools);
      l.state.status = "ready";
    } catch (err) {
      const stderr = l.built?.stderrTail().trim().split("\n").filter(Boolean).pop();
      l.state.status = "failed";
      const why = /Connection closed/i.test(String((err as Error)?.message)) ? "the server exited while starting" : oneLineError(err);
      l.state.error = why + (stderr ? ` (stderr: ${oneLineError(stderr).slice(0, 200)})` : "");
      await this.stopOne(l);
      l.state.status = "failed";
    } finally {
      limit.clear();
    }
  }

  /** The network is off and this server would reach it anyway (reachesNetworkFromHost): it gets no start, and no tools. */
  private async refuseOffline(l: Live): Promise<void> {
    if (l.started) {
      await l.started.catch(() => {});
      await this.stopOne(l);
      l.started = undefined;
      l.closing = false;
      l.state.tools = [];
    }
    if (l.state.status === "failed" && l.state.error === NETWORK_OFF_REFUSAL) return;
    l.state.status = "failed";
    l.state.error = NETWORK_OFF_REFUSAL;
    this.reported.delete(l.state.name);
  }

  /** The server's tools as the model will see them: filtered, named, described, marked trusted or not. */
  private adopt(server: string, l: Live, tools: DynamicStructuredTool[]): void {
    const { includeTools, excludeTools, trust, timeout } = l.config;
    const taken = new Set([...this.live.values()].flatMap((x) => x.state.tools.map((t) => t.name)));
    const kept = tools.filter((t) => (!includeTools || includeTools.includes(t.name)) && !excludeTools?.includes(t.name));
    const capped = kept.slice(0, MAX_TOOLS_PER_SERVER);
    l.state.hidden = tools.length - capped.length;
    l.state.tools = capped.map((t) => {
      let name = mcpToolName(server, t.name);
      for (let i = 2; taken.has(name); i++) name = `${mcpToolName(server, t.name).slice(0, 60)}_${i}`;
      taken.add(name);
      return {
        name,
        server,
        tool: t.name,
        description: cleanDescription(t.description),
        trusted: trust === true || (Array.isArray(trust) && trust.includes(t.name)),
        timeoutMs: timeout ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
        adapter: t,
      };
    });
  }

  servers(): McpServerState[] {
    return [...this.live.values()].map((l) => ({ ...l.state, tools: [...l.state.tools] }));
  }

  /** Tools of the servers that are up. */
  tools(): McpToolInfo[] {
    return [...this.live.values()].filter((l) => l.state.status === "ready").flatMap((l) => l.state.tools);
  }

  /** Servers that failed and were not reported yet (each is reported once). */
  takeFailures(): { server: string; message: string }[] {
    const out: { server: string; message: string }[] = [];
    for (const l of this.live.values()) {
      if (l.state.status === "failed" && !this.reported.has(l.state.name)) {
        this.reported.add(l.state.name);
        out.push({ server: l.state.name, message: l.state.error ?? "failed" });
      }
    }
    return out;
  }

  /** Whether the server behind a tool is still up (a crashed server's tools answer with why). */
  serverError(server: string): string | undefined {
    const l = this.live.get(server);
    return l && l.state.status !== "ready" ? (l.state.error ?? `the server is ${l.state.status}`) : undefined;
  }

  private async stopOne(l: Live): Promise<void> {
    l.closing = true;
    const group = l.built?.processGroup();
    // Closing ends the server's stdin (well-behaved servers exit); the group is then killed whatever it did.
    if (l.client) await Promise.race([l.client.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000).unref())]);
    else await l.built?.transport.close().catch(() => {});
    if (group) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    // What the server started out of its group (setsid, a double fork) goes too.
    const token = l.built?.runToken;
    if (token) killByToken(token);
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.live.values()].map(async (l) => {
        if (!l.started) return;
        await l.started.catch(() => {});
        await this.stopOne(l);
        if (l.state.status === "ready") l.state.status = "stopped";
      }),
    );
  }
}

/** Ends every MCP server of this process (the end of a chat or run). */
export async function closeMcpServers(): Promise<void> {
  const all = [...hubs.values()];
  hubs.clear();
  await Promise.all(all.map((h) => h.close()));
}
