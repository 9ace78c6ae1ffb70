// Opens the debug log for this invocation when asked: `DEERFLOW_LOG=<file>` names the file, `--debug` alone writes
// `<data home>/logs/debug.jsonl`. The first line says what ran (never its arguments: a prompt is the conversation's
// body), the last one how it ended and how long it took.
import { dirname, join, resolve } from "node:path";
import { debugLog, openDebugLog } from "../model/debug-log.js";
import { credentialValues } from "../sandbox/env-scrub.js";
import { peekDataHome } from "../config/trust-store.js";
import { UsageError } from "../errors.js";
import { plantedLinkProblem, writableFolders } from "../sandbox/planted-links.js";
import { notePastWorkspaces } from "../sandbox/sandbox-writable.js";

/** Where `--debug` writes without DEERFLOW_LOG. */
export function defaultDebugLogFile(home: string): string {
  return join(home, "logs", "debug.jsonl");
}

export function startDebugLog(opts: { debug?: boolean; home?: string }, command: string, version: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.DEERFLOW_LOG?.trim();
  if (!named && !opts.debug) return undefined;
  const dataHome = peekDataHome(opts.home, env);
  const file = named ? resolve(named) : defaultDebugLogFile(dataHome);
  // A folder on the log's way that an earlier run's commands could have swapped for a link (`logs -> ~/.bashrc.d`):
  // the log, and the denied commands it quotes, would land wherever it points (the twenty-fourth pass's A24-2).
  notePastWorkspaces(dataHome);
  const planted = plantedLinkProblem(dirname(file), writableFolders({ workspace: process.cwd(), dataDir: dataHome }));
  if (planted) throw new UsageError(`Cannot write the debug log ${file}: ${planted}.`, "Remove the link, or point DEERFLOW_LOG at a file outside the project.");
  try {
    openDebugLog({ file, secrets: credentialValues(env) });
  } catch (err) {
    throw new UsageError(`Cannot write the debug log ${file}: ${(err as Error).message}.`, "Point DEERFLOW_LOG at a file in a writable folder.");
  }
  const started = performance.now();
  debugLog("cli.start", { command, version, node: process.version, platform: process.platform, pid: process.pid, cwd: process.cwd() });
  process.once("exit", (code) => debugLog("cli.exit", { command, exit_code: code, duration_ms: Math.round(performance.now() - started) }));
  return file;
}
