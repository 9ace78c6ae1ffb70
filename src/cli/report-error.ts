// Maps any error to one clear stderr line and the contract's exit code. Stack traces on stderr only with
// DEERFLOW_DEBUG=1; the debug log (--debug, DEERFLOW_LOG) always gets the line and the stack.
import { ExitCode, findDeerflowError, formatErrorLine } from "../errors.js";
import { debugLog } from "../model/debug-log.js";
import { forTerminal } from "../vocabulary/terminal-text.js";

export function reportFatal(err: unknown): number {
  debugLog("cli.error", { error: formatErrorLine(err), exit_code: exitCodeOf(err), stack: err instanceof Error ? err.stack : undefined });
  process.stderr.write(`deerflow: ${forTerminal(formatErrorLine(err))}\n`);
  if (process.env.DEERFLOW_DEBUG === "1" && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return exitCodeOf(err);
}

export function exitCodeOf(err: unknown): number {
  return findDeerflowError(err)?.exitCode ?? ExitCode.runtime;
}
