// Approvals through the editor: an `approval.requested` of the session's broker (the same broker and modes the TUI
// answers) becomes a `session/request_permission` with allow once / allow always / reject and the diff or command;
// the client's choice is the broker's answer. A destructive command never gets here: the audit blocks it first.
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallContent } from "@agentclientprotocol/sdk";
import type { ApprovalDecision, ApprovalRequestedEvent } from "../sandbox/approvals.js";
import { diffContentOf } from "./diff-content.js";
import { textContent } from "./session-updates.js";
import { toolKindOf } from "./tool-calls.js";
import { EDITS_SCOPE } from "../tools/edit-gate.js";
import { stripControl } from "../vocabulary/terminal-text.js";
import { PLAN_APPROVAL_OPTIONS } from "../vocabulary/plan-mode.js";

const OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always", kind: "allow_always" },
  { optionId: "deny", name: "Reject", kind: "reject_once" },
];

/** The request the client is sent for one approval (the call's id, so the editor ties it to the tool call shown). */
export function permissionRequestOf(sessionId: string, e: ApprovalRequestedEvent, workspace: string | undefined): RequestPermissionRequest {
  if (e.kind === "plan") return planRequestOf(sessionId, e);
  const content: ToolCallContent[] = e.diff ? diffContentOf(e.diff, workspace) : [textContent(e.command)];
  // The broker names a scope "scope:<name>" (or "command:<normalised command>").
  const always = e.scope === `scope:${EDITS_SCOPE}` ? "Allow all edits in this session" : "Allow always";
  return {
    sessionId,
    toolCall: {
      toolCallId: e.tool_call_id,
      title: stripControl(e.kind === "command" ? `Run ${e.command}` : e.command)
        .replace(/\s+/g, " ")
        .slice(0, 200),
      kind: toolKindOf(e.tool),
      status: "pending",
      content: [...content, textContent(`Needs approval: ${e.reason}`)],
    },
    options: OPTIONS.map((o) => (o.optionId === "allow_always" ? { ...o, name: always } : o)),
  };
}

/** A plan (exit_plan_mode): its Markdown, and the three answers the TUI offers (feedback: the next prompt says it). */
function planRequestOf(sessionId: string, e: ApprovalRequestedEvent): RequestPermissionRequest {
  const [once, always, no] = PLAN_APPROVAL_OPTIONS;
  return {
    sessionId,
    toolCall: { toolCallId: e.tool_call_id, title: "Approve this plan?", kind: "think", status: "pending", content: [textContent(e.command)] },
    options: [
      { optionId: "allow_once", name: once, kind: "allow_once" },
      { optionId: "allow_always", name: always, kind: "allow_always" },
      { optionId: "deny", name: no, kind: "reject_once" },
    ],
  };
}

/**
 * The broker's answer to the client's response. "cancelled" (the client closed the question, or the turn was
 * cancelled) is a denial: nothing runs that the user did not allow. An unknown option id is a denial too.
 */
export function decisionOf(response: RequestPermissionResponse): ApprovalDecision {
  if (response.outcome.outcome !== "selected") return "deny";
  const id = response.outcome.optionId;
  return id === "allow_once" || id === "allow_always" ? id : "deny";
}
