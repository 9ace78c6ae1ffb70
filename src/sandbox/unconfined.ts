// Nothing asks AND nothing confines: without bubblewrap, `yolo` (flag, .deerflowrc, shift+tab) and `run --yes` would
// let the model run any command on the host unasked, as the user. That combination needs the user to say so, per
// invocation, with a flag whose name says what it does: `--dangerously-run-unconfined`.
// WHY that name (not Codex's `--dangerously-bypass-approvals-and-sandbox`): it does not bypass anything by itself; it
// only allows auto-approval when no sandbox exists. "dangerously" makes it stand out in scripts and reviews, as
// Claude Code's `--dangerously-skip-permissions`. WHY a flag only (no .deerflowrc key, no environment variable): a
// repository's settings or an inherited variable could then turn it on for the user without their knowing.
import { DeerflowError, ExitCode } from "../errors.js";
import type { ApprovalMode } from "../vocabulary/approval-modes.js";
import { findBwrap } from "./run-shell.js";

export const UNCONFINED_FLAG = "--dangerously-run-unconfined";

/** What asks for auto-approval: `--yes` of `run`, or the yolo approval mode (any source). */
export interface AutoApproval {
  approval: ApprovalMode | string;
  yes?: boolean;
  /** The user passed --dangerously-run-unconfined. */
  allowUnconfined?: boolean;
}

/** Why auto-approval is refused here (no bubblewrap, no flag), or undefined when it is fine. */
export function unconfinedAutoApprovalProblem(opts: AutoApproval): string | undefined {
  const what = opts.yes ? "--yes" : opts.approval === "yolo" ? "approval mode yolo" : undefined;
  if (!what || opts.allowUnconfined || findBwrap()) return undefined;
  return `bubblewrap (bwrap) is not available, so with ${what} the agent's shell commands would run on this host unasked: refusing.`;
}

/** The one-line notice the TUI shows when shift+tab would switch to yolo here. */
export function yoloRefusedNotice(): string {
  return `yolo needs bubblewrap here: without it commands would run on this host unasked. Install the \`bubblewrap\` package, or start deerflow with ${UNCONFINED_FLAG}.`;
}

/** Throws (exit 2) when auto-approval is asked for without a sandbox and without the flag. */
export function assertAutoApprovalConfined(opts: AutoApproval): void {
  const problem = unconfinedAutoApprovalProblem(opts);
  if (!problem) return;
  throw new DeerflowError(problem, { exitCode: ExitCode.usage, hint: `Install the \`bubblewrap\` package, or pass ${UNCONFINED_FLAG} if you accept that.` });
}
