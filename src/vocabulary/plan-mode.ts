// Plan mode's words (docs/plan-mode.md): the tool that ends it, the marker of a plan a run ended with, what
// approving a plan switches the mode to, and the refusal the model reads. The middleware (middleware/plan-mode.ts),
// the runtime's result, the TUI's approval card and the docs read them from here.
import type { ApprovalMode } from "./approval-modes.js";

export const EXIT_PLAN_MODE = "exit_plan_mode";

/** On the exit_plan_mode result of a run nobody could approve in: `{ plan }`, the run's final text. */
export const PLAN_MARKER = "deerflow_plan";

/** The approval card's three answers, in the broker's order: allow_once, allow_always, deny (with feedback). */
export const PLAN_APPROVAL_OPTIONS = ["Yes, and ask before edits", "Yes, and auto-edit", "No, keep planning (say what to change)"] as const;

/** The mode an approved plan switches to: the first answer keeps asking before edits, the second edits unasked. */
export function modeAfterPlan(decision: "allow_once" | "allow_always"): ApprovalMode {
  return decision === "allow_always" ? "auto-edit" : "ask";
}

/** What the model reads when plan mode refuses a call. */
export function planRefusal(what: string): string {
  return `plan mode: ${what} is not run (while planning only tools that read run). Finish the plan and present it with ${EXIT_PLAN_MODE}; the user approves it before anything changes.`;
}

/** The plan a run ended with (the exit_plan_mode result carrying PLAN_MARKER), if `m` is that result. */
export function planOf(m: unknown): string | undefined {
  const kwargs = (m as { additional_kwargs?: Record<string, unknown> } | undefined)?.additional_kwargs;
  const payload = kwargs?.[PLAN_MARKER] as { plan?: unknown } | undefined;
  return typeof payload?.plan === "string" ? payload.plan : undefined;
}
