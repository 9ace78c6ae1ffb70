// Goal mode's decision logic (SPEC §9) as a pure state machine (`decideAfterRun`) plus a driver (`runGoal`)
// that the runtime wires to real runs and a real evaluator. No graph access here: the driver hands every
// state write to the caller (`onDecision` → `decision.stateUpdate`), so the runtime decides where and when
// it is checkpointed.
//
// After each run: a durable end of turn is required (a non-empty final AI reply) → the evaluator's verdict →
//   satisfied                → achieved (exit 0): clear the goal and write goal_outcome IN THE SAME WRITE
//   goal_not_met_yet         → continue with a hidden continuation message, unless the continuation cap is
//                              reached or there is no progress (exit 4)
//   needs_user_input         → stop (exit 3); the goal stays, so the user's answer can resume it
//   any other blocker        → stop (exit 4)
// No progress: the same (satisfied, blocker, hash of the final reply) as the previous evaluation bumps
// no_progress_count (a different one resets it); reaching max_no_progress_continuations (default 2) stops.
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ExitCode, UsageError } from "../../errors.js";
import { clearGoalUpdate } from "../../state/goal-clear.js";
import {
  type Blocker,
  DEFAULT_MAX_CONTINUATIONS,
  DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS,
  GOAL_OBJECTIVE_MAX_CHARS,
  type GoalClear,
  type GoalEvaluation,
  type GoalOutcome,
  type GoalState,
} from "../../state/types.js";
import type { RunResult } from "../run-thread.js";
import { GOAL_CONTINUATION_KIND, HIDDEN_MARKER } from "../../vocabulary/message-markers.js";
import { contentText } from "../../vocabulary/message-text.js";
import { errorChain } from "../../vocabulary/error-chain.js";

/**
 * The evaluation stored in `GoalState.last_evaluation`: the verdict plus what no-progress detection needs.
 * The state's zod schema is loose, so the extra keys survive checkpoints.
 */
export type StoredGoalEvaluation = GoalEvaluation & {
  /** sha256 of the normalised final reply the verdict judged (see hashReply). */
  reply_hash?: string;
  evaluated_at?: string;
};

export type GoalExitCode = 0 | 3 | 4;
export type GoalAction = "achieved" | "continue" | "stop";

/** The state write for a decision: a goal that goes on, or the clear (with the outcome when achieved). */
export type GoalStateUpdate = { goal: GoalState } | { goal: GoalClear; goal_outcome?: GoalOutcome };

export interface GoalDecision {
  action: GoalAction;
  exitCode: GoalExitCode;
  /** Why (the evaluator's reason, or the cap / no-progress / missing-end explanation). */
  reason: string;
  /** The blocker behind the decision ("none" when achieved). */
  blocker: Blocker;
  /** The goal after this evaluation (counters and last_evaluation updated). */
  nextGoal: GoalState;
  /** Set when achieved. */
  outcome?: GoalOutcome;
  /**
   * What to write to ThreadState, as ONE update: achieved → `clearGoalUpdate(outcome)` (goal cleared and
   * goal_outcome written together); otherwise `{ goal: nextGoal }`.
   */
  stateUpdate: GoalStateUpdate;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers

/** sha256 (hex) of the final reply, normalised (Unicode NFC, whitespace runs collapsed, trimmed). */
export function hashReply(text: string): string {
  const normalised = (text ?? "").normalize("NFC").replace(/\s+/g, " ").trim();
  return createHash("sha256").update(normalised, "utf8").digest("hex");
}

/** A fresh active goal. Throws UsageError (exit 2) on an empty or too long objective or a bad cap. */
export function newGoalState(
  objective: string,
  opts: { maxContinuations?: number; maxNoProgressContinuations?: number; now?: () => Date } = {},
): GoalState {
  const text = (objective ?? "").trim();
  if (!text) throw new UsageError("The goal objective is empty.", 'Pass an objective: --goal "<objective>".');
  if (text.length > GOAL_OBJECTIVE_MAX_CHARS) {
    throw new UsageError(`The goal objective is ${text.length} characters long; the limit is ${GOAL_OBJECTIVE_MAX_CHARS}.`);
  }
  const maxContinuations = opts.maxContinuations ?? DEFAULT_MAX_CONTINUATIONS;
  const maxNoProgress = opts.maxNoProgressContinuations ?? DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS;
  for (const [name, v] of [
    ["--max-continuations", maxContinuations],
    ["max no-progress continuations", maxNoProgress],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new UsageError(`${name} must be a whole number ≥ 0 (got ${v}).`);
  }
  const at = (opts.now ?? (() => new Date()))().toISOString();
  return {
    objective: text,
    status: "active",
    created_at: at,
    updated_at: at,
    continuation_count: 0,
    max_continuations: maxContinuations,
    no_progress_count: 0,
    max_no_progress_continuations: maxNoProgress,
  };
}

export interface DecideInput {
  goal: GoalState;
  /** The verdict; may be omitted when there was no durable end (nothing to evaluate). */
  evaluation?: GoalEvaluation | null;
  /** The final AI reply of the run ("" when there is none). */
  finalReply: string;
  /** False when the run failed (error / timeout). */
  runSucceeded: boolean;
  /** False when the run did not end its turn durably; also false whenever finalReply is blank. Default true. */
  durableEnd?: boolean;
  /** Id of the final AI reply (goal_outcome.reply_message_id). */
  replyMessageId?: string | null;
  now?: () => Date;
}

/** The decision after one run of a goal. Pure. */
export function decideAfterRun(input: DecideInput): GoalDecision {
  const { goal } = input;
  const at = (input.now ?? (() => new Date()))().toISOString();
  const reply_hash = hashReply(input.finalReply ?? "");
  const durable = input.runSucceeded && (input.durableEnd ?? true) && (input.finalReply ?? "").trim() !== "";

  const evaluation: GoalEvaluation = !input.runSucceeded
    ? { satisfied: false, blocker: "run_failed", reason: input.evaluation?.reason ?? "the run failed", relied_on_assumption: false }
    : !durable
      ? {
          satisfied: false,
          blocker: "missing_evidence",
          reason: "the run ended without a durable end of turn (no final reply)",
          relied_on_assumption: false,
        }
      : (input.evaluation ?? {
          satisfied: false,
          blocker: "missing_evidence",
          reason: "no evaluation was made",
          relied_on_assumption: false,
        });
  const stored: StoredGoalEvaluation = { ...evaluation, reply_hash, evaluated_at: at };
  const base: GoalState = { ...goal, updated_at: at, last_evaluation: stored };

  const stop = (exitCode: 3 | 4, reason: string, blocker: Blocker, extra: Partial<GoalState> = {}): GoalDecision => {
    const nextGoal = { ...base, ...extra };
    return { action: "stop", exitCode, reason, blocker, nextGoal, stateUpdate: { goal: nextGoal } };
  };

  if (!durable) return stop(4, evaluation.reason, evaluation.blocker, { no_progress_count: 0 });

  if (evaluation.satisfied && evaluation.blocker === "none") {
    const nextGoal: GoalState = { ...base, no_progress_count: 0 };
    const outcome: GoalOutcome = {
      status: "achieved",
      objective: goal.objective,
      goal_created_at: goal.created_at,
      achieved_at: at,
      continuation_count: goal.continuation_count,
      max_continuations: goal.max_continuations,
      reason: evaluation.reason,
      relied_on_assumption: evaluation.relied_on_assumption === true,
      reply_message_id: input.replyMessageId ?? null,
    };
    return { action: "achieved", exitCode: 0, reason: evaluation.reason, blocker: "none", nextGoal, outcome, stateUpdate: clearGoalUpdate(outcome) };
  }

  // A "satisfied" verdict with a blocker is not satisfied (parseVerdict normalises this too).
  const blocker: Blocker = evaluation.blocker === "none" ? "goal_not_met_yet" : evaluation.blocker;
  if (blocker === "needs_user_input") return stop(3, evaluation.reason, blocker, { no_progress_count: 0 });
  if (blocker !== "goal_not_met_yet") return stop(4, evaluation.reason, blocker, { no_progress_count: 0 });

  const prev = goal.last_evaluation as StoredGoalEvaluation | undefined;
  const same =
    prev !== undefined &&
    prev.satisfied === evaluation.satisfied &&
    prev.blocker === evaluation.blocker &&
    prev.reply_hash === reply_hash;
  const no_progress_count = same ? goal.no_progress_count + 1 : 0;

  if (goal.continuation_count >= goal.max_continuations) {
    return stop(4, `continuation cap reached (${goal.continuation_count}/${goal.max_continuations}): ${evaluation.reason}`, blocker, { no_progress_count });
  }
  if (no_progress_count >= goal.max_no_progress_continuations && goal.max_no_progress_continuations > 0) {
    return stop(4, `no progress: the same verdict on the same reply ${no_progress_count + 1} times in a row: ${evaluation.reason}`, blocker, {
      no_progress_count,
    });
  }
  const nextGoal: GoalState = { ...base, no_progress_count, continuation_count: goal.continuation_count + 1 };
  return { action: "continue", exitCode: 4, reason: evaluation.reason, blocker, nextGoal, stateUpdate: { goal: nextGoal } };
}

/** Keep model-written text from closing the reminder early. */
function escapeReminder(text: string): string {
  return text.replace(/<\/?system-reminder>/gi, (m) => m.replace("<", "‹").replace(">", "›"));
}

/** The text of the hidden continuation message. */
export function continuationText(goal: GoalState, evaluation: GoalEvaluation): string {
  const lines = [
    "<system-reminder>",
    "Goal mode: the goal below is not met yet.",
    `Objective: ${escapeReminder(goal.objective)}`,
    `Evaluator verdict: ${evaluation.blocker}: ${escapeReminder(evaluation.reason)}`,
  ];
  if (evaluation.evidence_summary) lines.push(`Evidence so far: ${escapeReminder(evaluation.evidence_summary)}`);
  lines.push(
    `Continuation ${goal.continuation_count} of at most ${goal.max_continuations}.`,
    "Continue working toward the goal; when done, show the evidence (run the checks and let their output show that the goal is met).",
    "If you must assume something, choose a low-risk, reversible option and state the assumption explicitly.",
    "</system-reminder>",
  );
  return lines.join("\n");
}

/**
 * The hidden continuation HumanMessage (`additional_kwargs.deerflow_hidden = "goal_continuation"`). Pass the goal
 * AFTER the decision (`decision.nextGoal`), so the count it names is the continuation it starts.
 */
export function continuationMessage(goal: GoalState, evaluation: GoalEvaluation): HumanMessage {
  return new HumanMessage({
    content: continuationText(goal, evaluation),
    additional_kwargs: { [HIDDEN_MARKER]: GOAL_CONTINUATION_KIND },
  });
}

// ---------------------------------------------------------------------------------------------
// The driver

export type GoalEvent =
  | { type: "goal.evaluated"; run_id?: string; evaluation: GoalEvaluation; continuation_count: number }
  | { type: "goal.continued"; run_id?: string; continuation_count: number; reason: string };

export interface GoalRunInput {
  /** The objective (first run) or the hidden continuation message (later runs). */
  prompt: string | HumanMessage;
  /** The goal as it stands before this run (persist it with the run's input if you like). */
  goal: GoalState;
  /** 0 for the first run, then 1, 2, … */
  continuation: number;
}

export interface GoalRunOutput {
  result: RunResult;
  /** The thread's messages after the run (all of them; hidden ones are filtered by the evaluator). */
  messages: BaseMessage[];
}

export interface RunGoalOptions {
  objective: string;
  maxContinuations?: number;
  maxNoProgressContinuations?: number;
  unattended?: boolean;
  /** Resume this goal (e.g. loaded from the thread) instead of starting a new one; `objective` is then ignored. */
  goal?: GoalState;
  /** The prompt of the first run (default: the objective). */
  firstPrompt?: string | HumanMessage;
  runOnce: (input: GoalRunInput) => Promise<GoalRunOutput>;
  /** Judge the run (normally `evaluateGoal` with a non-streaming model). Should not throw. */
  evaluate: (messages: BaseMessage[], ctx: { goal: GoalState; unattended: boolean }) => Promise<GoalEvaluation>;
  onEvent?: (e: GoalEvent) => void;
  /** Called after every decision with the state write to persist (see GoalDecision.stateUpdate). */
  onDecision?: (decision: GoalDecision, run: RunResult | undefined) => void | Promise<void>;
  now?: () => Date;
}

export type GoalRunOutcome = "achieved" | "not_achieved" | "needs_user_input";

export interface RunGoalResult {
  outcome: GoalRunOutcome;
  exitCode: GoalExitCode;
  reason: string;
  blocker: Blocker;
  /** The goal after the last decision (for "achieved" the runtime clears it: see stateUpdate). */
  goal: GoalState;
  goal_outcome?: GoalOutcome;
  /** The final state write (same as the last decision's stateUpdate). */
  stateUpdate: GoalStateUpdate;
  runs: RunResult[];
  evaluations: GoalEvaluation[];
}

/** Errors that must end the goal loop as they are: interrupted (130), usage (2) and a run's time limit (5). */
function mustRethrow(err: unknown): boolean {
  return errorChain(err).some((e) => {
    if (typeof e !== "object" || e === null) return false;
    const code = (e as { exitCode?: unknown }).exitCode;
    return code === ExitCode.interrupted || code === ExitCode.usage || code === ExitCode.guardStop || (e as { name?: unknown }).name === "AbortError";
  });
}

function lastAi(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (AIMessage.isInstance(m)) return m;
    if ((m as { type?: unknown }).type === "ai") return m as AIMessage;
  }
  return undefined;
}

interface Attempt {
  result?: RunResult;
  messages: BaseMessage[];
  reply?: AIMessage;
  finalReply: string;
  /** Why the run counts as failed (it threw, or ended with a non-success status). */
  failure?: string;
}

/** One run of the goal; a failure other than interrupted/usage/timeout becomes `failure` (the loop judges it). */
async function runAttempt(opts: RunGoalOptions, input: GoalRunInput): Promise<Attempt> {
  let out: GoalRunOutput | undefined;
  let failure: string | undefined;
  try {
    out = await opts.runOnce(input);
  } catch (err) {
    if (mustRethrow(err)) throw err;
    failure = `the run failed: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`;
  }
  const result = out?.result;
  if (result && result.status !== "success") failure = `the run ended with status ${result.status}`;
  const messages = out?.messages ?? [];
  const reply = lastAi(messages);
  const finalReply = result?.final_text || (reply ? contentText(reply.content) : "");
  return { result, messages, reply, finalReply, failure };
}

/** The verdict on one attempt: failures and question stops are judged here; a durable answer by the evaluator. */
async function judge(opts: RunGoalOptions, a: Attempt, goal: GoalState, unattended: boolean): Promise<GoalEvaluation> {
  if (a.failure) return { satisfied: false, blocker: "run_failed", reason: a.failure, relied_on_assumption: false };
  if (a.finalReply.trim() === "") {
    return { satisfied: false, blocker: "missing_evidence", reason: "the run ended without a durable end of turn (no final reply)", relied_on_assumption: false };
  }
  if (a.result?.stop_reason === "clarification") {
    // The agent stopped to ask the user: nothing to judge until they answer.
    return { satisfied: false, blocker: "needs_user_input", reason: `the agent asked the user: ${a.result.clarification?.question ?? a.finalReply}`, relied_on_assumption: false };
  }
  try {
    return await opts.evaluate(a.messages, { goal, unattended });
  } catch (err) {
    if (mustRethrow(err)) throw err;
    return { satisfied: false, blocker: "missing_evidence", reason: `the evaluator failed: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`, relied_on_assumption: false };
  }
}

/**
 * Drive a goal: run with the objective, evaluate, decide; continue with a hidden continuation message while
 * the decision says so. Emits `goal.evaluated` after each verdict and `goal.continued` before each continuation.
 * A run that throws (other than interrupted / usage errors, which are rethrown) or ends with a non-success
 * status stops the goal with blocker run_failed (exit 4).
 */
export async function runGoal(opts: RunGoalOptions): Promise<RunGoalResult> {
  const now = opts.now ?? (() => new Date());
  const unattended = opts.unattended ?? true;
  const emit = opts.onEvent ?? (() => {});
  let goal =
    opts.goal ??
    newGoalState(opts.objective, {
      maxContinuations: opts.maxContinuations,
      maxNoProgressContinuations: opts.maxNoProgressContinuations,
      now,
    });
  let prompt: string | HumanMessage = opts.firstPrompt ?? goal.objective;
  const runs: RunResult[] = [];
  const evaluations: GoalEvaluation[] = [];

  for (let continuation = 0; ; continuation++) {
    const attempt = await runAttempt(opts, { prompt, goal, continuation });
    const { result, reply, finalReply, failure } = attempt;
    if (result) runs.push(result);
    const durableEnd = !failure && finalReply.trim() !== "";
    const evaluation = await judge(opts, attempt, goal, unattended);
    evaluations.push(evaluation);
    emit({ type: "goal.evaluated", run_id: result?.run_id, evaluation, continuation_count: goal.continuation_count });

    const decision = decideAfterRun({
      goal,
      evaluation,
      finalReply,
      runSucceeded: !failure,
      durableEnd,
      replyMessageId: reply?.id ?? null,
      now,
    });
    await opts.onDecision?.(decision, result);
    goal = decision.nextGoal;

    if (decision.action === "continue") {
      emit({ type: "goal.continued", run_id: result?.run_id, continuation_count: goal.continuation_count, reason: decision.reason });
      prompt = continuationMessage(goal, evaluation);
      continue;
    }
    const outcome: GoalRunOutcome =
      decision.action === "achieved" ? "achieved" : decision.exitCode === 3 ? "needs_user_input" : "not_achieved";
    return {
      outcome,
      exitCode: decision.exitCode,
      reason: decision.reason,
      blocker: decision.blocker,
      goal,
      goal_outcome: decision.outcome,
      stateUpdate: decision.stateUpdate,
      runs,
      evaluations,
    };
  }
}
