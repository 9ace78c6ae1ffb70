// How guarded actions are approved (docs/security.md). The config schema, the CLI flags, the
// sandbox's approval middleware and the TUI's mode cycle all read this one list.
export const APPROVAL_MODES = ["ask", "auto-edit", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * What asks: `command` an ask-first shell command (shell-audit.ts), `edit` a file edit (shown as a diff; or a shell
 * command that writes files, shown as the command), `tool` any
 * other tool that declares it must ask (e.g. an MCP tool).
 */
export const APPROVAL_KINDS = ["command", "edit", "tool"] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** The modes as their names say (as in Gemini CLI): `ask` asks for all; `auto-edit` only for commands; `yolo` never. */
export function modeAsks(mode: ApprovalMode, kind: ApprovalKind): boolean {
  if (mode === "yolo") return false;
  if (mode === "auto-edit") return kind === "command";
  return true;
}
