// How guarded actions are approved (docs/security.md). The config schema, the CLI flags, the
// sandbox's approval middleware and the TUI's mode cycle all read this one list. `plan` (docs/plan-mode.md): only
// tools that read run (middleware/plan-mode.ts) until the user approves the plan; what still runs asks as in `ask`.
export const APPROVAL_MODES = ["ask", "auto-edit", "plan", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * What asks: `command` an ask-first shell command (shell-audit.ts), `edit` a file edit (shown as a diff; or a shell
 * command that writes files, shown as the command), `tool` any
 * other tool that declares it must ask (e.g. an MCP tool), `plan` the plan that ends plan mode (exit_plan_mode).
 */
export const APPROVAL_KINDS = ["command", "edit", "tool", "plan"] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/**
 * The modes as their names say (as in Gemini CLI): `ask` (and `plan`) asks for all; `auto-edit` only for commands;
 * `yolo` never. A plan is always a person's to approve.
 */
export function modeAsks(mode: ApprovalMode, kind: ApprovalKind): boolean {
  if (kind === "plan") return true;
  if (mode === "yolo") return false;
  if (mode === "auto-edit") return kind === "command";
  return true;
}

/** `--permission-mode` takes Claude Code's names for the modes (and deerflow's own). */
export const PERMISSION_MODE_NAMES: Readonly<Record<string, ApprovalMode>> = {
  default: "ask",
  acceptEdits: "auto-edit",
  bypassPermissions: "yolo",
  plan: "plan",
  ask: "ask",
  "auto-edit": "auto-edit",
  yolo: "yolo",
};
