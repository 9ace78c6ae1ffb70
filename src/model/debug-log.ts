// The debug log (`--debug`, `DEERFLOW_LOG=<file>`): one JSON object per line, written as things happen, so a run
// that fails in the field (a model 500, a crash) leaves its lines behind. What it records is a summary — requests
// (model, message count, tokens, status, duration), retries, guard and audit decisions, tool calls, timings — never
// a request's or an answer's body. Every string is masked on the way out (key shapes, URL passwords and the exact
// values of the credentials deerflow was started with). The file is bounded: past `maxBytes` it is renamed to
// `<file>.1` (replacing the previous one) and a new file is started, so at most two files exist.
//
// The file is opened once, refusing a link at its name (O_NOFOLLOW) and anything but a regular file, and written
// through that descriptor: a log in the project is in the model's reach, and the twenty-third pass replaced it with a
// link to ~/.bashrc, so that the next lines (a denied command's `$(…)` among them) ran at the user's next login
// (A23-6). A rotation renames whatever is at the name (a link moves as itself) and opens a fresh file the same way;
// when that is refused, lines go on to the file already open.
//
// It lives in the model layer, the lowest one that writes to it (guarded-fetch.ts); higher layers import it. The
// open log is kept on globalThis, not in this module: the chat's runtime is a separate bundle with its own copy of
// this module, and both copies must write to the one log the CLI opened.
import { closeSync, constants, fstatSync, mkdirSync, openSync, realpathSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { heldCredentials } from "../vocabulary/held-credentials.js";
import { maskSecrets, maskUrlCredentials } from "../vocabulary/secret-shapes.js";

/** Rotate past 5 MB: a long day of runs, small enough to attach to an issue. */
export const DEBUG_LOG_MAX_BYTES = 5 * 1024 * 1024;
/** Longest string kept in a field (an error message, a command); the rest is cut with "…". */
const MAX_FIELD_CHARS = 2000;

export interface DebugLogOptions {
  file: string;
  /** Exact secret values to mask (the API keys, credential-named environment variables). */
  secrets?: readonly string[];
  maxBytes?: number;
}

interface OpenLog {
  file: string;
  /** The log's folder by real path when it was opened: a rotation happens only while it is still that folder. */
  dir: string;
  fd: number;
  secrets: readonly string[];
  maxBytes: number;
  size: number;
}

const KEY = Symbol.for("deerflow.debugLog");
const slot = globalThis as unknown as { [KEY]?: OpenLog };

/** `file` opened for appending (created 0600): never through a link at its name, never anything but a regular file. */
function openAppend(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new Error("it is a symbolic link");
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error("it is not a regular file");
  }
  return fd;
}

/** Starts writing to `file` (created 0600 with its folder); replaces a log already open. Throws when it cannot be written. */
export function openDebugLog(options: DebugLogOptions): void {
  mkdirSync(dirname(options.file), { recursive: true });
  const fd = openAppend(options.file);
  closeDebugLog();
  slot[KEY] = {
    file: options.file,
    dir: realpathSync(dirname(options.file)),
    fd,
    secrets: (options.secrets ?? []).filter((s) => s.length >= 8),
    maxBytes: options.maxBytes ?? DEBUG_LOG_MAX_BYTES,
    size: fstatSync(fd).size,
  };
}

export function closeDebugLog(): void {
  const log = slot[KEY];
  delete slot[KEY];
  if (log) closeQuietly(log.fd);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** The bound is reached: the name moves to `<file>.1` and a fresh file takes it; refused, the open file goes on. */
function rotate(log: OpenLog): void {
  try {
    // A folder on the way swapped for a link since: the fresh file would be opened through it.
    if (realpathSync(dirname(log.file)) !== log.dir) return;
    renameSync(log.file, `${log.file}.1`);
    const fd = openAppend(log.file);
    closeQuietly(log.fd);
    log.fd = fd;
    log.size = fstatSync(fd).size;
  } catch {
    // over the bound rather than through a link
  }
}

/** The file being written, when a log is open. */
export function debugLogFile(): string | undefined {
  return slot[KEY]?.file;
}

/** Appends one line `{ts, event, ...fields}`; does nothing when no log is open, and never throws. */
export function debugLog(event: string, fields: Record<string, unknown> = {}): void {
  const log = slot[KEY];
  if (!log) return;
  try {
    const line = `${JSON.stringify({ ts: new Date().toISOString(), event, ...(masked(fields, [...log.secrets, ...heldCredentials()]) as object) })}\n`;
    const bytes = Buffer.byteLength(line);
    if (log.size > 0 && log.size + bytes > log.maxBytes) rotate(log);
    // Synchronous: the line is on disk before the next step, so a process that dies right after still left it.
    writeSync(log.fd, line);
    log.size += bytes;
  } catch {
    // A log that cannot be written (disk full, folder removed) must never fail the work it describes.
  }
}

/**
 * Starts timing `event`; the returned function logs it once, with `duration_ms` and the fields known at the end
 * (later calls are ignored, so every way out of a request may call it).
 */
export function debugTimer(event: string, fields: Record<string, unknown> = {}): (end?: Record<string, unknown>) => void {
  if (!slot[KEY]) return () => {};
  const started = performance.now();
  let done = false;
  return (end = {}) => {
    if (done) return;
    done = true;
    debugLog(event, { ...fields, ...end, duration_ms: Math.round(performance.now() - started) });
  };
}

function masked(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") {
    const text = maskUrlCredentials(maskSecrets(value, secrets));
    return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS - 1)}…` : text;
  }
  if (Array.isArray(value)) return value.map((v) => masked(v, secrets));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, secrets)]));
  return value;
}
