// Acceptance checks — what the lead asks the runtime to verify after a subagent says it is done, instead of taking
// the subagent's word: `file_exists` (a path in the thread's directories is a regular file), `json_parses` (that
// file parses as JSON) and `command_exits_zero` (a shell command exits 0).
//
// Decisions:
// - Paths resolve like the file tools' (resolveSandboxPath + safeReadFile): virtual /mnt/user-data paths or
//   relative to the workspace; "..", host paths and symlinks out of the thread's directories fail the check. The
//   lead's arguments are a model's output, so a check can never read or probe anything a tool could not.
// - A command runs where the lead's bash runs (runShell: the thread's bubblewrap session, cwd = workspace), after
//   the same audit. Only a command the audit lets run unasked is run: a blocked one, or one that would need the
//   user's approval (anything writing, or any non-read-only command without bubblewrap), fails the check as "not
//   run" — an unverified claim is not a passed check, and a check must not open an approval prompt of its own.
// - Checks run one after another, in the order given; each is bounded (command: the bash timeout, output tail).
import { runShell } from "../sandbox/run-shell.js";
import { resolveSandboxPath } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { safeReadFile } from "../sandbox/safe-fs.js";
import { auditContextFor } from "../sandbox/audit-context.js";
import { auditCommand } from "../sandbox/shell-audit.js";
import type { ShellSettings } from "../sandbox/shell-settings.js";
import type { AcceptanceCheckKind, AcceptanceCheckResult } from "../state/types.js";
import { maskCredentials } from "../sandbox/env-scrub.js";

export interface AcceptanceCheck {
  check: AcceptanceCheckKind;
  target: string;
}

export interface AcceptanceContext {
  mounts: ThreadPaths | undefined;
  settings: ShellSettings;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** Longest JSON file a json_parses check reads. */
export const ACCEPTANCE_JSON_MAX_BYTES = 5 * 1024 * 1024;
const OUTPUT_TAIL_CHARS = 300;

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The end of a check's output, masked as tool results are: a check's detail reaches the lead model, the terminal
 *  and the ledger (`command_exits_zero "cat .env"` carried a live key past the masking: the thirteenth pass's C1). */
function tail(output: string): string {
  const t = maskCredentials(output.trim());
  return t.length > OUTPUT_TAIL_CHARS ? `…${t.slice(-OUTPUT_TAIL_CHARS)}` : t;
}

async function fileCheck(c: AcceptanceCheck, mounts: ThreadPaths): Promise<AcceptanceCheckResult> {
  const result = (passed: boolean, detail: string): AcceptanceCheckResult => ({ ...c, passed, detail });
  let hostPath: string;
  try {
    hostPath = (await resolveSandboxPath(c.target, mounts, { mustExist: true, kind: "file" })).hostPath;
  } catch (e) {
    return result(false, errorText(e));
  }
  if (c.check === "file_exists") return result(true, "the file exists");
  try {
    const { data, truncated } = await safeReadFile(hostPath, mounts, { maxBytes: ACCEPTANCE_JSON_MAX_BYTES });
    if (truncated) return result(false, `the file is larger than ${ACCEPTANCE_JSON_MAX_BYTES} bytes`);
    JSON.parse(data.toString("utf8"));
    return result(true, "the file parses as JSON");
  } catch (e) {
    // By position only: V8's message quotes the file's first bytes.
    const at = /position (\d+)/.exec(errorText(e))?.[1];
    return result(false, `not valid JSON${at ? ` (at byte ${at})` : ""}`);
  }
}

async function commandCheck(c: AcceptanceCheck, mounts: ThreadPaths, ctx: AcceptanceContext): Promise<AcceptanceCheckResult> {
  const result = (passed: boolean, detail: string): AcceptanceCheckResult => ({ ...c, passed, detail });
  const audit = await auditCommand(c.target, auditContextFor(mounts));
  if (audit.verdict === "block") return result(false, `not run: blocked (${audit.reason ?? "destructive command"})`);
  if (audit.verdict !== "allow") return result(false, `not run: the command would need your approval (${audit.reason ?? "guarded command"}); acceptance checks run only commands that need none`);
  const r = await runShell(c.target, { cwd: mounts.workspace_path, paths: mounts, settings: ctx.settings, timeoutSeconds: ctx.timeoutSeconds, signal: ctx.signal });
  const out = tail(r.output);
  if (r.stoppedBy === "timeout") return result(false, `timed out after ${ctx.timeoutSeconds} s`);
  if (r.stoppedBy === "abort") return result(false, "cancelled");
  if (r.exitCode === 0) return result(true, `exit 0${out ? `: ${out}` : ""}`);
  const how = typeof r.exitCode === "number" ? `exit ${r.exitCode}` : `terminated by ${r.signal ?? "a signal"}`;
  return result(false, `${how}${out ? `: ${out}` : ""}`);
}

/** Run every check in order; a check that cannot run is a failed check saying why. */
export async function runAcceptanceChecks(checks: readonly AcceptanceCheck[], ctx: AcceptanceContext): Promise<AcceptanceCheckResult[]> {
  const out: AcceptanceCheckResult[] = [];
  for (const c of checks) {
    if (!ctx.mounts) {
      out.push({ ...c, passed: false, detail: "not run: the thread has no directories" });
      continue;
    }
    if (ctx.signal?.aborted) {
      out.push({ ...c, passed: false, detail: "cancelled" });
      continue;
    }
    try {
      out.push(c.check === "command_exits_zero" ? await commandCheck(c, ctx.mounts, ctx) : await fileCheck(c, ctx.mounts));
    } catch (e) {
      out.push({ ...c, passed: false, detail: `not run: ${errorText(e)}` });
    }
  }
  return out;
}
