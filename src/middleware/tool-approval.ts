// ToolApproval — WHY wrapToolCall: a tool that declared an approval gate (sandbox/approvals.ts: the file edits with
// their diff; MCP tools may declare one too) must be asked about per call, before it runs, with what it would do;
// a denial must be a normal tool result the model reads (with the user's reason when given). wrapToolCall sees the
// call and the tool instance, and can answer without calling the handler.
// WHY its position (next to SandboxAudit, inside ToolErrorHandling): a gate whose preview fails (a path outside the
// workspace, a file not read first) throws the tool's own error, which ToolErrorHandling turns into the same error
// result the tool would have given; a failing broker too. Cancellation while waiting propagates (the run is being
// cancelled, not the tool failing).
// The mode is read at every call (the TUI's Shift+Tab changes it while a run works): `ask` asks for edits and gated
// tools, `auto-edit` and `yolo` do not (vocabulary/approval-modes.ts).
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import { modeAsks } from "../vocabulary/approval-modes.js";
import { type ApprovalMemory, type ApprovalSettings, approvalGateOf, deniedMessage, resolveApproval } from "../sandbox/approvals.js";
import { permissionDenial } from "../sandbox/permission-denial.js";

export interface ToolApprovalOptions extends ApprovalSettings {
  /** Where "allow always" answers are kept (default: the process-wide memory). */
  memory?: ApprovalMemory;
}

export function toolApprovalMiddleware(options: ToolApprovalOptions) {
  return createMiddleware({
    name: "ToolApproval",
    stateSchema: THREAD_DATA_STATE,
    wrapToolCall: async (request, handler) => {
      const gate = approvalGateOf(request.tool);
      if (!gate || !modeAsks(options.mode, gate.kind)) return handler(request);
      const { toolCall } = request;
      // The tool itself gets the graph state as `runtime.state` (its mounts: a bound workspace); so does its gate.
      const configurable = request.runtime.configurable as Record<string, unknown> | undefined;
      const preview = await gate.preview(toolCall.args, { ...request.runtime, state: request.state, configurable, toolCallId: toolCall.id, toolCall });
      if (!preview) return handler(request);
      const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : "default";
      const answer = await resolveApproval(
        {
          threadId,
          toolCallId: toolCall.id ?? "",
          tool: toolCall.name,
          kind: gate.kind,
          command: preview.summary,
          reason: preview.reason,
          diff: preview.diff,
          scope: preview.scope,
          signal: request.runtime.signal,
        },
        { mode: options.mode, broker: options.broker, memory: options.memory },
      );
      if (answer.verdict === "allow") return handler(request);
      const what = preview.diff ? `the ${preview.diff.created ? "creation of" : "edit to"} ${preview.diff.path}` : `${toolCall.name} (${preview.summary})`;
      const denial = permissionDenial({ tool: toolCall.name, toolCallId: toolCall.id, summary: preview.summary, reason: preview.reason, deniedBy: answer.by, said: answer.reason });
      return new ToolMessage({
        tool_call_id: toolCall.id ?? "",
        name: toolCall.name,
        status: "error",
        content: deniedMessage(`${what}`, options.broker, answer.reason),
        // The structured record the run's result lists (permission_denials).
        artifact: { denial },
      });
    },
  });
}
