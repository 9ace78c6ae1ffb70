// Goal mode's driver (docs/cli.md, run --goal): runs the thread, asks the evaluator, and applies the pure decision of
// goal-decision.ts until the goal is achieved or honestly stopped. No graph access here: every state write goes
// to the caller (`onDecision` → `decision.stateUpdate`), so the runtime decides where and when it is checkpointed.
import { AIMessage, type BaseMessage, type HumanMessage } from "@langchain/core/messages";
import { ExitCode } from "../../errors.js";
import type { Blocker, GoalEvaluation, GoalOutcome, GoalState } from "../../state/types.js";
import type { RunResult } from "../run-thread.js";
import { contentText } from "../../vocabulary/message-text.js";
import { errorChain } from "../../vocabulary/error-chain.js";
import { type GoalDecision, type GoalExitCode, type GoalStateUpdate, continuationMessage, decideAfterRun, newGoalState } from "./goal-decision.js";

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
    const outcome: GoalRunOutcome = decision.action === "achieved" ? "achieved" : decision.exitCode === 3 ? "needs_user_input" : "not_achieved";
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
