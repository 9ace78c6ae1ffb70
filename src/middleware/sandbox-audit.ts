// SandboxAudit — WHY wrapToolCall: the decision must be taken per tool call, before the tool runs, and a refusal
// must be a normal tool result the model can react to (docs/security.md, The shell sandbox: "a denial is an error ToolMessage, never a
// crash"). wrapToolCall sees the call's arguments and can answer with a ToolMessage without calling the handler.
// WHY its position (after ToolErrorHandling, i.e. inside it; before anything that runs or replaces the bash
// tool): refusals are ToolMessages it returns itself, so for them the order relative to ToolErrorHandling does
// not matter; sitting inside it means a failing approval broker also becomes an error ToolMessage instead of
// ending the run. It must wrap the tool call before the tool runs — that is all wrapToolCall needs.
//
// Policy: `bash` calls are audited by shell-audit.ts. block → error ToolMessage, never run (in every mode);
// ask → the mode decides whether to ask (vocabulary/approval-modes.ts), then the approval broker decides (allow_always remembered per thread);
// edit (the command writes files) → asked as an edit, so only `ask` mode asks, as for write_file, and "allow edits
// for this thread" covers both; allow → run.
// The audit's bash grammar starts loading when the middleware is built (the agent is built before the first model
// call), so it is ready by the first tool call and never on the start-up path.
// Cancellation while waiting for an answer propagates (the run is being cancelled, not the tool failing).
import { debugLog } from "../model/debug-log.js";
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { THREAD_DATA_STATE } from "../state/thread-state.js";
import { type ApprovalMode, modeAsks } from "../vocabulary/approval-modes.js";
import { type ApprovalBroker, type ApprovalMemory, deniedMessage, resolveApproval } from "../sandbox/approvals.js";
import { auditCommand, preloadShellAudit } from "../sandbox/shell-audit.js";
import { auditContextOfState } from "../sandbox/audit-context.js";
import { EDITS_SCOPE } from "../tools/edit-gate.js";
import { permissionDenial } from "../sandbox/permission-denial.js";

export interface SandboxAuditOptions {
  mode: ApprovalMode;
  broker: ApprovalBroker;
  /** Where "allow always" answers are kept (default: the process-wide memory). */
  memory?: ApprovalMemory;
  /** Tools whose `command` argument is a shell command (default: ["bash"]). */
  shellTools?: string[];
}

/** Why a headless run did not run a command only a person may approve (shell-unconfined.ts `needsPerson`). */
const PERSON_NOTE = "Without a sandbox (bubblewrap) this needs a person's approval: --yes and yolo do not give it. Choose another way, or the user runs it.";

export function blockedMessage(reason: string): string {
  return `Blocked: ${reason}. This command is never run by deerflow; choose a safer alternative.`;
}

export function sandboxAuditMiddleware(options: SandboxAuditOptions) {
  const shellTools = new Set(options.shellTools ?? ["bash"]);
  preloadShellAudit();
  return createMiddleware({
    name: "SandboxAudit",
    // Declared so wrapToolCall sees thread_data: without a sandbox, read-only commands are judged against the workspace.
    stateSchema: THREAD_DATA_STATE,
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const command = (toolCall.args as { command?: unknown } | undefined)?.command;
      if (!shellTools.has(toolCall.name) || typeof command !== "string") return handler(request);

      // The refusal carries its structured record (artifact.denial): the run's result lists it (permission_denials).
      const refuse = (content: string, denial: Omit<Parameters<typeof permissionDenial>[0], "tool" | "toolCallId" | "summary">) =>
        new ToolMessage({
          tool_call_id: toolCall.id ?? "",
          name: toolCall.name,
          status: "error",
          content,
          artifact: { denial: permissionDenial({ tool: toolCall.name, toolCallId: toolCall.id, summary: command, ...denial }) },
        });

      // Without bubblewrap only commands known to only read run unasked (sandbox/shell-unconfined.ts).
      const audit = await auditCommand(command, auditContextOfState(request.state));
      if (audit.verdict !== "allow") debugLog("audit", { tool: toolCall.name, verdict: audit.verdict, reason: audit.reason, command });
      if (audit.verdict === "block") return refuse(blockedMessage(audit.reason ?? "destructive command"), { reason: audit.reason ?? "destructive command", deniedBy: "policy" });
      if (audit.verdict === "ask" || audit.verdict === "edit") {
        const edit = audit.verdict === "edit";
        const configurable = request.runtime.configurable as Record<string, unknown> | undefined;
        const threadId = typeof configurable?.thread_id === "string" ? configurable.thread_id : "default";
        const reason = audit.reason ?? "guarded command";
        const answer = await resolveApproval(
          {
            threadId,
            toolCallId: toolCall.id ?? "",
            tool: toolCall.name,
            kind: edit ? "edit" : "command",
            command,
            reason,
            signal: request.runtime.signal,
            ...(edit ? { scope: EDITS_SCOPE } : {}),
            ...(audit.needsPerson ? { needsPerson: true } : {}),
          },
          { mode: options.mode, broker: options.broker, memory: options.memory },
        );
        debugLog("approval", { tool: toolCall.name, verdict: answer.verdict, mode: options.mode });
        // Said only where an automatic yes would have approved it before (--yes, yolo): elsewhere the usual words hold.
        const automatic = options.broker.approvesGuarded === true || !modeAsks(options.mode, edit ? "edit" : "command");
        if (answer.verdict === "deny" && audit.needsPerson && answer.by === "headless" && automatic) return refuse(`Denied: ${reason}. ${PERSON_NOTE}`, { reason, deniedBy: answer.by });
        if (answer.verdict === "deny")
          return refuse(deniedMessage(edit ? "this command (it writes files; ask mode asks before edits)" : reason, options.broker, answer.reason), {
            reason,
            deniedBy: answer.by,
            said: answer.reason,
          });
      }
      return handler(request);
    },
  });
}
