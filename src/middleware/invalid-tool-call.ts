// InvalidToolCall — WHY wrapToolCall: the model layer (src/model/tool-call-check.ts) keeps a call whose arguments
// were truncated or not JSON, or that had no id, in `tool_calls` with empty arguments and records why in the AI
// message's `invalid_tool_calls`; here, before any tool or approval sees it, such a call is answered with an error
// ToolMessage that says exactly what was wrong, and nothing runs. WHY its position (inside ToolErrorHandling, as
// early as the feature stack allows): no tool should see a call that cannot run. The wrappers anchored before it
// (SandboxAudit, ToolOutputBudget) pass such a call through: its arguments are empty, there is no command to audit.
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { invalidCallReason } from "../model/tool-call-check.js";

export function invalidToolCallMiddleware() {
  return createMiddleware({
    name: "InvalidToolCall",
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const messages = ((request.state as { messages?: unknown[] } | undefined)?.messages ?? []) as unknown[];
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i];
        if (!AIMessage.isInstance(m) || !m.tool_calls?.some((tc) => tc.id === toolCall.id)) continue;
        const reason = invalidCallReason(m, toolCall.id);
        if (!reason) break;
        return new ToolMessage({
          tool_call_id: toolCall.id ?? "",
          name: toolCall.name,
          status: "error",
          content: `Error: the ${toolCall.name ? `${toolCall.name} ` : ""}call was not run: ${reason}.`,
        });
      }
      return handler(request);
    },
  });
}
