// McpApproval — MCP tools run code and reach services deerflow cannot see into, so in `ask` mode the user approves
// each call (allow once / allow always for this tool in this thread / deny) unless the server, or the tool, is
// marked `trust` in .deerflowrc. `auto-edit` and `yolo` run them without asking. Headless runs deny what would ask
// unless --yes, as for guarded shell commands (the same broker and denial message).
// WHY wrapToolCall, inside ToolErrorHandling (after DeferredToolFilter): the decision is per call, before the tool
// runs; a denial is an error ToolMessage; a failing broker becomes an error result; a refused deferred call never
// reaches the user.
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { type ApprovalMemory, type ApprovalSettings, answerOf, deniedMessage, processApprovalMemory } from "../sandbox/approvals.js";
import { stripControl } from "../vocabulary/terminal-text.js";

export interface McpApprovalTool {
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  trusted: boolean;
}

/** Arguments as the approval prompt shows them: one line, control characters removed, capped. */
function preview(name: string, args: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(args ?? {});
  } catch {
    json = "{…}";
  }
  const text = stripControl(`${name} ${json}`).replace(/\s+/g, " ");
  return text.length > 600 ? `${text.slice(0, 599)}…` : text;
}

export function mcpApprovalMiddleware(options: { tools: ReadonlyMap<string, McpApprovalTool>; approval: ApprovalSettings; memory?: ApprovalMemory }) {
  const memory = options.memory ?? processApprovalMemory;
  return createMiddleware({
    name: "McpApproval",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const t = options.tools.get(toolCall.name);
      if (!t || t.trusted || options.approval.mode !== "ask") return handler(request);
      const configurable = request.runtime.configurable as Record<string, unknown> | undefined;
      const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : "default";
      // "Allow always" covers the tool, whatever its arguments, for this thread.
      const key = `mcp-tool ${toolCall.name}`;
      if (memory.has(threadId, key)) return handler(request);
      const reason = `MCP tool "${t.tool}" of server "${t.server}"`;
      // A broker answers with a decision, or a decision and (for a denial) the user's reason.
      const { decision, reason: said } = answerOf(
        await options.approval.broker.request({
          threadId,
          toolCallId: toolCall.id ?? "",
          tool: toolCall.name,
          kind: "tool",
          command: preview(toolCall.name, toolCall.args),
          reason,
          signal: request.runtime.signal,
        }),
      );
      if (decision === "allow_always") memory.remember(threadId, key);
      if (decision === "deny") {
        return new ToolMessage({ tool_call_id: toolCall.id ?? "", name: toolCall.name, status: "error", content: deniedMessage(reason, options.approval.broker, said) });
      }
      return handler(request);
    },
  });
}
