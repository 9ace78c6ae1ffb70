// Maps any error to one clear stderr line and the contract's exit code. Stack traces only with DEERFLOW_DEBUG=1.
import { ExitCode, findDeerflowError, formatErrorLine } from "../errors.js";
import { forTerminal } from "../vocabulary/terminal-text.js";

export function reportFatal(err: unknown): number {
  process.stderr.write(`deerflow: ${forTerminal(formatErrorLine(err))}\n`);
  if (process.env.DEERFLOW_DEBUG === "1" && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return exitCodeOf(err);
}

export function exitCodeOf(err: unknown): number {
  return findDeerflowError(err)?.exitCode ?? ExitCode.runtime;
}
