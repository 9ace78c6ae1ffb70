// Builds the record of a denied tool call that a run's result reports (`permission_denials`, docs/events.md; its
// shape is vocabulary/permission-denials.ts): which tool, a short summary of its arguments (secret shapes masked), why
// it was guarded, and who said no — `policy` (a command deerflow never runs), `headless` (a guarded action in a run
// nobody can answer: denied unless --yes) or `user` (a person answered no). The middleware that refuses the call puts
// it on the refusal's ToolMessage as `artifact.denial`: the record is structured data that travels with the tool
// result (its event, the thread's state), never a parse of the text the model reads.
import { DENIERS, type DeniedBy, type PermissionDenial } from "../vocabulary/permission-denials.js";
import { maskCredentials } from "./env-scrub.js";
import { unseenEscaped } from "../vocabulary/terminal-text.js";

const SUMMARY_CHARS = 120;

/** One line, secret shapes masked first (so a cut never leaves half a key showing), then cut to `max`. */
function shortLine(text: string, max: number): string {
  // The exact credential values too (the thirtieth pass's A30c-4 printed the API key whole), before the cut.
  const flat = maskCredentials(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function permissionDenial(d: { tool: string; toolCallId?: string; summary: string; reason: string; deniedBy: DeniedBy; said?: string }): PermissionDenial {
  const reason = d.said ? `${d.reason}; the user said: ${d.said}` : d.reason;
  return {
    tool: d.tool,
    ...(d.toolCallId ? { tool_call_id: d.toolCallId } : {}),
    arguments: shortLine(unseenEscaped(d.summary), SUMMARY_CHARS),
    reason: shortLine(reason, 2 * SUMMARY_CHARS),
    denied_by: d.deniedBy,
  };
}

/** The denial a tool result carries (`artifact.denial`), when it is one. */
export function denialOf(artifact: unknown): PermissionDenial | undefined {
  const d = (artifact as { denial?: Partial<PermissionDenial> } | null | undefined)?.denial;
  return d && typeof d.tool === "string" && typeof d.arguments === "string" && typeof d.reason === "string" && DENIERS.includes(d.denied_by as DeniedBy) ? (d as PermissionDenial) : undefined;
}
