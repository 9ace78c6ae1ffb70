// Typed errors shared by every layer. The CLI maps `exitCode` to the process exit status and prints
// `message` (plus `hint`) as one line: users never see a stack trace unless DEERFLOW_DEBUG=1.
import { findInChain } from "./vocabulary/error-chain.js";

/** Exit codes of the CLI contract (docs/cli.md, run). */
export const ExitCode = {
  ok: 0,
  runtime: 1,
  usage: 2,
  inputRequired: 3,
  goalNotAchieved: 4,
  guardStop: 5,
  /** `run --fail-on-denial`: the run ended well, but a tool call was denied or blocked on the way. */
  denied: 6,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class DeerflowError extends Error {
  /** Recognised without instanceof: the TUI bundle carries its own copy of this module. */
  readonly isDeerflowError = true;
  readonly exitCode: ExitCodeValue;
  /** What the user should do about it; printed after the message. */
  readonly hint?: string;
  constructor(message: string, opts: { exitCode?: ExitCodeValue; hint?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode ?? ExitCode.runtime;
    this.hint = opts.hint;
  }
}

/** Bad flag, bad prompt, bad arguments: exit 2. */
export class UsageError extends DeerflowError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: ExitCode.usage, hint });
  }
}

/** An invalid configuration: names the file and the key path; exit 2. */
export class ConfigError extends DeerflowError {
  readonly file?: string;
  readonly keyPath?: string;
  constructor(message: string, opts: { file?: string; keyPath?: string; hint?: string } = {}) {
    super(message, { exitCode: ExitCode.usage, hint: opts.hint });
    this.file = opts.file;
    this.keyPath = opts.keyPath;
  }
}

/** No model is selected at all (nothing configured): the chat offers the local servers it finds instead. */
export class NoModelError extends ConfigError {
  readonly noModel = true;
}

/** The model endpoint failed after all retries (unreachable, 5xx, 429, timeout): exit 1. */
export class ModelUnavailableError extends DeerflowError {
  constructor(message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super(message, { exitCode: ExitCode.runtime, ...opts });
  }
}

/** What a model provider did wrong, as far as the user needs to know. */
export type ProviderErrorKind = "auth" | "not_found" | "bad_request" | "protocol" | "unavailable";

/**
 * A provider refused the request (key, model, request) or answered outside the protocol: one line naming the
 * endpoint and model, exit 1. Transient failures that outlast the retries stay `ModelUnavailableError` ("unavailable").
 */
export class ProviderError extends ModelUnavailableError {
  readonly kind: ProviderErrorKind;
  /** The provider said the request does not fit the model's context window (compaction may make it fit). */
  readonly contextOverflow: boolean;
  constructor(kind: ProviderErrorKind, message: string, opts: { hint?: string; cause?: unknown; contextOverflow?: boolean } = {}) {
    super(message, { hint: opts.hint, cause: opts.cause });
    this.kind = kind;
    this.contextOverflow = opts.contextOverflow === true;
  }
}

/**
 * The DeerflowError behind `err`, if any. LangChain and LangGraph wrap errors thrown inside middleware and nodes
 * (e.g. MiddlewareError, once per middleware), so the typed error can sit many `cause` links down.
 */
export function findDeerflowError(err: unknown): DeerflowError | undefined {
  return findInChain(err, (e): e is DeerflowError => e instanceof DeerflowError || (typeof e === "object" && e !== null && (e as { isDeerflowError?: unknown }).isDeerflowError === true));
}

/** One line for the user: message, then what to do. */
export function formatErrorLine(err: unknown): string {
  const typed = findDeerflowError(err);
  if (typed) return typed.hint ? `${typed.message} ${typed.hint}` : typed.message;
  const msg = err instanceof Error ? err.message : String(err);
  return `internal error: ${msg.split("\n")[0]} (set DEERFLOW_DEBUG=1 for details)`;
}

/**
 * A run that did not finish on its own: interrupted (Ctrl+C, SIGTERM: exit 130) or over its time limit (exit 5,
 * like the other guards). `status` is what the run record, `threads` and `--output-format json` all say.
 */
export class RunStoppedError extends DeerflowError {
  readonly status: "interrupted" | "timeout";
  constructor(status: "interrupted" | "timeout", message: string, hint?: string) {
    super(message, { exitCode: status === "interrupted" ? ExitCode.interrupted : ExitCode.guardStop, hint });
    this.status = status;
  }
}

/** The run status an error ended a run with (what every consumer reports). */
export function runStatusOf(err: unknown): "interrupted" | "timeout" | "error" {
  const typed = findDeerflowError(err) as (DeerflowError & { status?: unknown }) | undefined;
  return typed?.status === "interrupted" || typed?.status === "timeout" ? typed.status : "error";
}

/** The data directory is not usable (not a directory, not writable): exit 2, with its path. */
export class DataDirError extends DeerflowError {
  readonly path: string;
  /** `fix`: what to do about this problem (default: fix permissions); choosing another directory is always offered. */
  constructor(path: string, problem: string, fix = "Fix its permissions") {
    super(`The data directory ${path} ${problem}.`, {
      exitCode: ExitCode.usage,
      hint: `${fix}, or choose another with --home <dir> or DEERFLOW_HOME.`,
    });
    this.path = path;
  }
}

/** The database file is damaged (SQLITE_CORRUPT / SQLITE_NOTADB, or `PRAGMA quick_check` found problems): exit 1. */
export class DatabaseCorruptError extends DeerflowError {
  readonly path: string;
  constructor(path: string, detail: string) {
    super(`The database ${path} is damaged (${detail}).`, {
      exitCode: ExitCode.runtime,
      hint: "Run `deerflow doctor --repair` to back it up and recover the intact threads.",
    });
    this.path = path;
  }
}

/** What became of a run's changes when the store could not write. */
export type StoreWriteOutcome = "rolled-back" | "rollback-pending" | "nothing-changed";

const storeWriteOutcomeText: Record<StoreWriteOutcome, string> = {
  "rolled-back": "The run was rolled back.",
  "rollback-pending": "The run is marked failed; its changes are undone the next time the thread is opened.",
  "nothing-changed": "Nothing was changed.",
};

/**
 * A request that cannot fit the model's context window even after compaction (typically one user message larger
 * than the whole window): refused before it is sent, since the provider would only answer an opaque 400. Exit 1.
 */
export class ContextOverflowError extends DeerflowError {
  constructor(what: string, tokens: number, window: number) {
    super(`${what} is too long for the model's context window: about ${tokens.toLocaleString("en-US")} tokens, and the window holds ${window.toLocaleString("en-US")} in all.`, {
      exitCode: ExitCode.runtime,
      hint: "Shorten it, or save the text as a file in the workspace and ask about the file (the model reads it in parts).",
    });
  }
}

/**
 * The store could not write (disk full, I/O error, a read-only file): exit 1. `readOnly` (SQLITE_READONLY: the file
 * or its directory cannot be written, e.g. chattr +i or a read-only mount) changes what to do.
 */
export class StoreWriteError extends DeerflowError {
  readonly path: string;
  constructor(path: string, detail: string, outcome: StoreWriteOutcome, readOnly = false) {
    super(`Could not write to ${path}: ${detail}. ${storeWriteOutcomeText[outcome]}`, {
      exitCode: ExitCode.runtime,
      hint: readOnly ? "Make the file and its directory writable (check permissions, chattr, a read-only mount) and run it again." : "Free disk space (or fix the disk) and run it again.",
    });
    this.path = path;
  }
}
