// Goal mode's decision logic (docs/cli.md, run --goal) as a pure state machine (`decideAfterRun`); goal-loop.ts drives it with
// real runs and a real evaluator.
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
import { HumanMessage } from "@langchain/core/messages";
import { UsageError } from "../../errors.js";
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
import { GOAL_CONTINUATION_KIND, HIDDEN_MARKER } from "../../vocabulary/message-markers.js";

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
export function newGoalState(objective: string, opts: { maxContinuations?: number; maxNoProgressContinuations?: number; now?: () => Date } = {}): GoalState {
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
  const same = prev !== undefined && prev.satisfied === evaluation.satisfied && prev.blocker === evaluation.blocker && prev.reply_hash === reply_hash;
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
