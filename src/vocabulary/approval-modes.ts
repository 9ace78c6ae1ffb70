// How guarded actions are approved (ARCHITECTURE.md "Approval modes"). The config schema, the CLI flags, the
// sandbox's approval middleware and the TUI's mode cycle all read this one list.
export const APPROVAL_MODES = ["ask", "auto-edit", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
