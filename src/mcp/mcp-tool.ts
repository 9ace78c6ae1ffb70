// The MCP tools the model calls: the adapter's tool (its JSON schema, its call through the SDK client) under
// deerflow's name and cleaned description, with the result converted (results.ts) and every failure turned into an
// error result the model can read: the server's own error, a call past its timeout, a server that stopped.
// Cancellation (Esc, Ctrl+C, the run's time limit) is never turned into a result: it reaches the run, and the SDK
// tells the server the request was cancelled. Calls that ran long are recorded in `background_tasks`.
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { tool } from "langchain";
import { declareApprovalGate } from "../sandbox/approvals.js";
import { stripControl } from "../vocabulary/terminal-text.js";
import type { McpHub, McpToolInfo } from "./hub.js";
import { convertMcpContent } from "./results.js";
import { abortErrorFrom } from "../vocabulary/abort-error.js";

/** A call longer than this is recorded in `background_tasks` (the seed's long-running MCP work). */
export const LONG_MCP_CALL_MS = 10_000;
/** Test-facing only: a shorter threshold than LONG_MCP_CALL_MS, so a test of the record does not wait 10 s. */
export interface McpToolOptions {
  longCallMs?: number;
}
/** MCP entries kept in `background_tasks`. */
const KEEP_TASKS = 20;

type Runtime = {
  signal?: AbortSignal;
  toolCallId?: string;
  toolCall?: { id?: string };
  metadata?: Record<string, unknown>;
  state?: { thread_data?: { outputs_path?: string | null } | null; background_tasks?: unknown };
};

/** The reason of a failed call in words the model (and the user reading the transcript) can act on. */
function failureText(info: McpToolInfo, err: unknown, hub: McpHub): string {
  const msg = err instanceof Error ? err.message : String(err);
  const reported = /returned an error: ([\s\S]*)$/.exec(msg);
  if (reported) return `Error: ${info.name} (MCP server "${info.server}") reported an error: ${reported[1]!.trim().slice(0, 4000) || "(no details)"}`;
  if (/Request timed out|-32001/.test(msg)) {
    return `Error: ${info.name} did not answer within ${info.timeoutMs} ms (mcpServers.${info.server}.timeout); the call was cancelled. Try again with less work, or another way.`;
  }
  const down = hub.serverError(info.server);
  if (down || /Connection closed|Not connected/i.test(msg)) {
    return `Error: MCP server "${info.server}" is not available (${down ?? "its connection closed"}); its tools cannot be used in this chat or run. Continue without it.`;
  }
  return `Error: ${info.name} failed: ${msg.replace(/\s+/g, " ").slice(0, 1000)}`;
}

function longCallTasks(runtime: Runtime, entry: Record<string, unknown>): Record<string, unknown>[] {
  const before = Array.isArray(runtime.state?.background_tasks) ? (runtime.state!.background_tasks as Record<string, unknown>[]) : [];
  const mcp = before.filter((t) => t.kind === "mcp");
  const others = before.filter((t) => t.kind !== "mcp");
  return [...others, ...[...mcp, entry].slice(-KEEP_TASKS)];
}

/** Arguments as the approval prompt shows them: one line, control characters removed, capped. */
function argsPreview(name: string, args: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(args ?? {});
  } catch {
    json = "{…}";
  }
  const text = stripControl(`${name} ${json}`).replace(/\s+/g, " ");
  return text.length > 600 ? `${text.slice(0, 599)}…` : text;
}

/**
 * MCP tools run code and reach services deerflow cannot see into: unless the server or the tool is trusted, each
 * call asks in `ask` mode (ToolApproval; auto-edit and yolo do not ask; headless runs deny unless --yes). "Allow
 * always" covers this tool, whatever its arguments, for the rest of the thread.
 */
function withApprovalGate<T extends object>(t: T, info: McpToolInfo): T {
  if (info.trusted) return t;
  return declareApprovalGate(t, {
    kind: "tool",
    preview: async (args) => ({ summary: argsPreview(info.name, args), reason: `MCP tool "${info.tool}" of server "${info.server}"`, scope: `mcp-tool ${info.name}` }),
  });
}

export function createMcpTool(info: McpToolInfo, hub: McpHub, options: McpToolOptions = {}) {
  return withApprovalGate(mcpTool(info, hub, options.longCallMs ?? LONG_MCP_CALL_MS), info);
}

function mcpTool(info: McpToolInfo, hub: McpHub, longCallMs: number) {
  return tool(
    async (args: Record<string, unknown>, runtime: unknown) => {
      const rt = (runtime ?? {}) as Runtime;
      const callId = rt.toolCallId ?? rt.toolCall?.id ?? "";
      if (rt.signal?.aborted) throw abortErrorFrom(rt.signal, "The MCP call was cancelled");
      const started = Date.now();
      let content: unknown;
      let failed: string | undefined;
      const down = hub.serverError(info.server);
      if (down) failed = failureText(info, new Error(down), hub);
      else {
        try {
          const config = { ...rt, timeout: info.timeoutMs, metadata: { ...rt.metadata, timeoutMs: info.timeoutMs } };
          const out = (await info.adapter.func(args as never, undefined, config as never)) as unknown;
          content = Array.isArray(out) && out.length === 2 ? out[0] : out;
        } catch (err) {
          if (rt.signal?.aborted) throw abortErrorFrom(rt.signal, "The MCP call was cancelled");
          failed = failureText(info, err, hub);
        }
      }
      const elapsed = Date.now() - started;
      const result = failed === undefined ? await convertMcpContent(content, { outputsPath: rt.state?.thread_data?.outputs_path ?? undefined, toolName: info.name, callId }) : undefined;
      const images = result ? Object.keys(result.images) : [];
      const message = new ToolMessage({
        tool_call_id: callId,
        name: info.name,
        content: failed ?? result!.text,
        ...(failed !== undefined ? { status: "error" as const } : {}),
        ...(images.length > 0 ? { artifact: { image_paths: images } } : {}),
      });
      const update: Record<string, unknown> = {};
      if (images.length > 0) update.viewed_images = result!.images;
      if (elapsed >= longCallMs) {
        const now = new Date().toISOString();
        update.background_tasks = longCallTasks(rt, {
          kind: "mcp",
          task_id: callId,
          task_name: info.name,
          status: failed ? "failed" : "completed",
          started_at: new Date(started).toISOString(),
          updated_at: now,
          duration_ms: elapsed,
        });
      }
      if (Object.keys(update).length === 0) return message;
      return new Command({ update: { ...update, messages: [message] } });
    },
    {
      name: info.name,
      description: info.description || `${info.tool} (MCP server ${info.server})`,
      schema: info.adapter.schema as never,
    },
  );
}

export function createMcpTools(hub: McpHub, infos: readonly McpToolInfo[] = hub.tools(), options: McpToolOptions = {}) {
  return infos.map((i) => createMcpTool(i, hub, options));
}
