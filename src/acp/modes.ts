// The approval modes as ACP session modes, switchable by the client (session/set_mode), as Shift+Tab in the TUI.
import type { SessionModeState } from "@agentclientprotocol/sdk";
import { APPROVAL_MODES, type ApprovalMode } from "../vocabulary/approval-modes.js";

const DESCRIPTIONS: Record<ApprovalMode, string> = {
  ask: "Ask before every file edit and every guarded command",
  "auto-edit": "Edit files without asking; ask before guarded commands",
  yolo: "Ask for nothing (destructive commands stay blocked)",
  plan: "Read only: the agent researches and presents a plan; nothing changes until you approve it",
};

export function isApprovalMode(id: string): id is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(id);
}

export function modeStateOf(current: ApprovalMode): SessionModeState {
  return { currentModeId: current, availableModes: APPROVAL_MODES.map((id) => ({ id, name: id, description: DESCRIPTIONS[id] })) };
}
