// What a hook's run means, in Claude Code's protocol:
// - exit 0: success; stdout may be JSON: `decision` ("block" | "approve"), `reason`, `continue` (false stops),
//   `stopReason`, `hookSpecificOutput.permissionDecision` ("deny" blocks) and `.permissionDecisionReason`,
//   `additionalContext` (also under `hookSpecificOutput`). Plain stdout is kept for the record only.
// - exit 2: block; stderr is the reason (to the model for tool events, to the user otherwise).
// - any other exit, a timeout, or a start failure: an error the user is told of; the action goes on.
// Every text is masked for secrets (key shapes and this process's credential values) before anyone sees it.
import { maskCredentials } from "../sandbox/env-scrub.js";
import type { HookRunResult } from "./run-hook.js";

export interface HookOutcome {
  status: "ok" | "blocked" | "error";
  /** Why it blocked, or what went wrong (masked, trimmed). */
  reason?: string;
  /** Text the hook adds for the model (masked). */
  additionalContext?: string;
  /** false: the hook asks to stop the run. */
  continue: boolean;
}

/** Characters of a reason or context kept (a hook's stderr goes into the conversation). */
const TEXT_MAX = 4000;

export function maskHookText(text: string): string {
  const t = maskCredentials(text).trim();
  return t.length > TEXT_MAX ? `${t.slice(0, TEXT_MAX)}…` : t;
}

function jsonOf(stdout: string): Record<string, unknown> | undefined {
  const t = stdout.trim();
  if (!t.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(t) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);

export function hookOutcome(r: HookRunResult, timeoutSeconds: number): HookOutcome {
  if (r.timedOut) return { status: "error", reason: `timed out after ${timeoutSeconds} s (killed)`, continue: true };
  if (r.exitCode === 2) return { status: "blocked", reason: maskHookText(r.stderr) || "blocked by a hook (exit code 2, no message)", continue: true };
  if (r.exitCode !== 0) return { status: "error", reason: maskHookText(r.stderr) || `exit code ${r.exitCode ?? "none"}`, continue: true };
  const json = jsonOf(r.stdout);
  if (!json) return { status: "ok", continue: true };
  const specific = (json.hookSpecificOutput && typeof json.hookSpecificOutput === "object" ? json.hookSpecificOutput : {}) as Record<string, unknown>;
  const context = str(specific.additionalContext) ?? str(json.additionalContext);
  const blocked = json.decision === "block" || specific.permissionDecision === "deny";
  const reason = str(specific.permissionDecisionReason) ?? str(json.reason) ?? str(json.stopReason);
  return {
    status: blocked ? "blocked" : "ok",
    ...(reason ? { reason: maskHookText(reason) } : blocked ? { reason: "blocked by a hook" } : {}),
    ...(context ? { additionalContext: maskHookText(context) } : {}),
    continue: json.continue !== false,
  };
}
