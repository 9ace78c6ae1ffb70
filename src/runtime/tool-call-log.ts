// The debug log's tool calls: name, duration, status (and a shell command's exit code), one line per call when it
// ends. Seen where LangChain runs each tool (the agent's, a subagent's, an MCP server's), so the time is the tool's
// own, not the step's; the arguments and the output are left out (they are the conversation's body).
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { debugLog, debugLogFile } from "../model/debug-log.js";

/** "exit code 3" is the bash tool's last line for a command that failed (tools/bash.ts). */
const EXIT_CODE = /(?:^|\n)exit code (\d+)$/;

function outcomeOf(name: string, output: unknown): Record<string, unknown> {
  const message = output as { status?: unknown; content?: unknown } | null | undefined;
  const status = message && typeof message === "object" && message.status === "error" ? "error" : "ok";
  const text = typeof output === "string" ? output : typeof message?.content === "string" ? message.content : undefined;
  if (name !== "bash" || text === undefined) return { status };
  const code = EXIT_CODE.exec(text);
  return { status, exit_code: code ? Number(code[1]) : status === "ok" ? 0 : null };
}

class ToolCallLog extends BaseCallbackHandler {
  name = "deerflow_tool_call_log";
  private readonly started = new Map<string, { tool: string; at: number }>();

  override handleToolStart(tool: { id?: string[] }, _input: string, runId: string, _parent?: string, _tags?: string[], _meta?: Record<string, unknown>, runName?: string): void {
    this.started.set(runId, { tool: runName ?? tool.id?.at(-1) ?? "tool", at: performance.now() });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.end(runId, (tool) => outcomeOf(tool, output));
  }

  override handleToolError(err: unknown, runId: string): void {
    this.end(runId, () => ({ status: "error", error: String((err as Error)?.message ?? err) }));
  }

  private end(runId: string, outcome: (tool: string) => Record<string, unknown>): void {
    const s = this.started.get(runId);
    if (!s) return;
    this.started.delete(runId);
    debugLog("tool.call", { tool: s.tool, duration_ms: Math.round(performance.now() - s.at), ...outcome(s.tool) });
  }
}

/** The run's extra callbacks: a tool-call logger while a debug log is open, else none. */
export function toolCallLog(): BaseCallbackHandler[] {
  return debugLogFile() ? [new ToolCallLog()] : [];
}
