// What the chat shows once an approval is answered: one notice saying what was decided (and the user's words); for a
// plan (docs/plan-mode.md) the plan itself first (the card leaves the screen; the plan stays in the scrollback), and
// the approval mode the approval switched to (PlanMode switched the session's own).
import type { ChatAction, NewItem } from "./state/reducer.js";
import type { ApprovalDecision, ApprovalRequestedEvent } from "./state/types.js";
import { modeAfterPlan } from "../vocabulary/plan-mode.js";

export function answeredActions(req: ApprovalRequestedEvent, decision: ApprovalDecision, reason?: string): ChatAction[] {
  const why = decision === "deny" ? reason?.trim() : undefined;
  if (req.kind === "plan") {
    const plan: ChatAction = { type: "ui.item", item: { kind: "assistant", text: req.command } };
    if (decision === "deny") return [plan, { type: "ui.notice", level: "info", text: why ? `Keep planning: ${why}` : "Keep planning." }];
    const mode = modeAfterPlan(decision);
    return [plan, { type: "ui.status", status: { approvalMode: mode } }, { type: "ui.notice", level: "info", text: `Plan approved: approval mode ${mode}.` }];
  }
  const edit = req.kind === "edit";
  const said = decision === "deny" ? "Denied" : decision === "allow_always" ? (edit ? "Allowed edits for this thread" : "Allowed for this thread") : "Allowed once";
  return [{ type: "ui.notice", level: decision === "deny" ? "warning" : "info", text: `${said}: ${req.command}${why ? ` (${why})` : ""}` }];
}

/** Ctrl+O on an approval: the whole plan, or an edit's whole diff, to print above the prompt. */
export function pendingPreview(req: ApprovalRequestedEvent): NewItem | undefined {
  if (req.kind === "plan") return { kind: "assistant", text: req.command };
  return req.diff ? { kind: "diff", title: `Proposed: ${req.command}`, diff: req.diff } : undefined;
}
