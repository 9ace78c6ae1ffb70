// A run's request and result, and the entry points the CLI, the TUI's ChatSession and goal mode call. The work is
// done by the home's ThreadRuntime (thread-runtime.ts): lifecycle, rollback, graph, events.
import type { BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ResolvedConfig, ResolvedModel } from "../config/load.js";
import type { ApprovalSettings } from "../sandbox/approvals.js";
import type { ClarificationRequest, RunEvent, RunEventListener } from "./events.js";
import { ThreadRuntime } from "./thread-runtime.js";
import { assertPromptFits } from "./prompt-bound.js";
import { modelWindowOf } from "./run-agent.js";
import { estimateTokens } from "../model/usage-estimate.js";

export interface RunRequest {
  config: ResolvedConfig;
  model: ResolvedModel;
  /** The user's input; goal continuations pass a hidden HumanMessage. */
  prompt: string | HumanMessage;
  /** A skill the user activated for this run (`/<skill>` typed): its text goes in before the prompt. */
  skill?: string;
  /**
   * The user input's id (an idempotency key for scripts: `--input-id`). It becomes the message id, so a retried
   * input replaces itself (add-messages semantics) instead of appearing twice. Default: one per run.
   */
  inputId?: string;
  /** No user is there (goal mode): a clarification is answered "proceed with your best judgment". */
  unattended?: boolean;
  /** State written (one update) before the run starts, e.g. the goal. */
  initialState?: Record<string, unknown>;
  /** Continue this thread; it must exist. */
  threadId?: string;
  /** Continue the most recently updated thread. */
  continueLatest?: boolean;
  /** Bind a new thread's workspace to this existing directory. */
  workspace?: string;
  /** Host files to attach (copied to the thread's uploads/). */
  uploads?: string[];
  /** The real path each upload was checked as (at-path-uploads.ts): only that file is copied. */
  uploadsCheckedAs?: Record<string, string>;
  /** --yes: approve guarded shell commands that would otherwise be denied headless. */
  approveGuarded?: boolean;
  /**
   * Who answers guarded commands (the TUI: a person, through an event broker). Read at every guarded call, so a
   * mode changed while the run works applies to its next command. Default: config.approval with --yes/deny.
   */
  approval?: ApprovalSettings;
  /** Model calls allowed in this run (--max-turns). */
  maxTurns?: number;
  /** Seconds the run may take (--timeout, .deerflowrc runTimeout); then it ends with status `timeout`. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
  onEvent?: RunEventListener;
}

/** What the run.completed event says, plus what only in-process callers need. */
export type RunResult = Omit<Extract<RunEvent, { type: "run.completed" }>, "type"> & {
  clarification?: ClarificationRequest;
  /** The thread's messages after the run (for the goal evaluator; not printed). */
  messages: BaseMessage[];
  /** The files this run presented (present_files), as paths on this machine. */
  files?: string[];
  /** The thread's title after the run. */
  title?: string;
  /** A repeated --input-id: the recorded result of the run that applied it (the model was not called). */
  repeated?: boolean;
};

/**
 * A prompt this short fits any window a server could state and still run deerflow (its own instructions are longer):
 * such a run does not wait for the window here.
 */
const FITS_ANY_WINDOW_TOKENS = 512;

/**
 * One run on one thread, through this home's runtime; a prompt too big to send is refused before anything else, by
 * the window the server states when none is configured (asked once per process, as compaction asks it).
 * WHY the probe is only started here: it costs a round trip or two to the model's server (two to a hosted API, which
 * answers none of the local servers' routes), and the thread opens and its files are snapshotted meanwhile; the
 * agent's compaction waits for it before the first model call.
 */
export async function runThread(req: RunRequest): Promise<RunResult> {
  const window = modelWindowOf(req.model);
  window.catch(() => {}); // awaited again by the run: a failure shows there, not as an unhandled rejection
  if (typeof req.prompt === "string" && estimateTokens(req.prompt.length) > FITS_ANY_WINDOW_TOKENS) {
    const w = await window;
    assertPromptFits(req.prompt, w.source === "learned" ? { contextWindow: w.tokens } : req.model);
  }
  return ThreadRuntime.for(req.config).run(req);
}

/** One state write on an existing thread (under its run lock), e.g. the goal decision after a run. */
export function updateThreadState(req: Pick<RunRequest, "config" | "model">, threadId: string, update: Record<string, unknown>): Promise<void> {
  return ThreadRuntime.for(req.config).updateState(threadId, req.model, update);
}
