// `run --goal`: runs on one thread until the goal is met or honestly blocked. Each run is a normal run (lock,
// rollback, events); after it the strict evaluator judges the visible conversation, and the goal loop decides:
// achieved (exit 0), continue with a hidden continuation message, or stop (exit 3 needs the user, exit 4 not
// achieved). Every decision is one state write: the goal with its counters, or — when achieved — the write that
// clears the goal and records goal_outcome together.
import { createChatModel } from "../config/model-factory.js";
import { redactingInvoker } from "../middleware/util/pii-messages.js";
import type { GoalOutcome, GoalState } from "../state/types.js";
import type { RunEvent, TokenUsage } from "./events.js";
import { countedInvoker } from "./run-usage.js";
import { addUsage } from "../vocabulary/token-usage.js";
import { evaluateGoal } from "./goal/evaluator.js";
import { newGoalState } from "./goal/goal-decision.js";
import { runGoal } from "./goal/goal-loop.js";
import { type RunRequest, type RunResult, runThread, updateThreadState } from "./run-thread.js";

export interface GoalSummary {
  objective: string;
  outcome: "achieved" | "not_achieved" | "needs_user_input";
  reason: string;
  blocker: string;
  continuation_count: number;
  goal_outcome: GoalOutcome | null;
}

export interface GoalRunResult {
  /** The last run. */
  result: RunResult;
  goal: GoalSummary;
  exitCode: 0 | 3 | 4;
}

export interface GoalRunRequest extends RunRequest {
  objective: string;
  maxContinuations?: number;
  /** Continue this thread's active goal (its counters) instead of starting a new one. */
  resume?: GoalState;
  /** A person is there (the TUI): a clarification stops the loop for them instead of being answered for them. */
  attended?: boolean;
}

export async function runGoalThread(req: GoalRunRequest): Promise<GoalRunResult> {
  const emit = req.onEvent ?? (() => {});
  // The evaluator's tokens: the goal's (every run's and every evaluation's) in the result, and the thread's through
  // each decision's state write (the round's evaluation joins what the run before it left in the thread's total).
  let spent: TokenUsage | null = null;
  let round: TokenUsage | null = null;
  const evaluator = countedInvoker(createChatModel(req.model, { streaming: false }), (u) => {
    round = addUsage(round, u, "goal");
    spent = addUsage(spent, u, "goal");
  });
  let threadId = req.threadId;
  // A run that fails outright (model unreachable, internal error) is reported as that error (exit 1), not as an
  // unmet goal.
  let failure: unknown;
  const unattended = !req.attended;
  const goal = req.resume ?? newGoalState(req.objective, { maxContinuations: req.maxContinuations });
  let lastThreadUsage: TokenUsage | undefined;
  const out = await runGoal({
    objective: goal.objective,
    goal,
    unattended,
    firstPrompt: typeof req.prompt === "string" && req.prompt.trim() ? req.prompt : goal.objective,
    runOnce: async ({ prompt, goal: current, continuation }) => {
      const r = await runThread({
        ...req,
        prompt,
        threadId,
        continueLatest: threadId ? false : req.continueLatest,
        // Attachments and the workspace binding belong to the first run only.
        uploads: continuation ? [] : req.uploads,
        skill: continuation ? undefined : req.skill,
        workspace: continuation ? undefined : req.workspace,
        unattended,
        initialState: continuation || req.resume ? undefined : { goal: current },
      }).catch((err: unknown) => {
        failure = err;
        throw err;
      });
      threadId = r.thread_id;
      spent = addUsage(spent, r.usage);
      return { result: r, messages: r.messages };
    },
    // The evaluator reads the conversation: with piiRedaction on, it is masked like every other request.
    evaluate: (messages, ctx) =>
      evaluateGoal({ model: req.config.piiRedaction ? redactingInvoker(evaluator, threadId) : evaluator, objective: goal.objective, messages, unattended: ctx.unattended, signal: req.signal }),
    onEvent: (e) => emit(e as RunEvent),
    onDecision: async (decision, result) => {
      const evaluated = round;
      round = null;
      const usage = evaluated && result ? { thread_usage: addUsage(result.thread_usage, evaluated) } : {};
      if (threadId) await updateThreadState(req, threadId, { ...(decision.stateUpdate as Record<string, unknown>), ...usage });
      lastThreadUsage = usage.thread_usage ?? result?.thread_usage;
    },
  });
  const lastRun = out.runs.at(-1);
  if (failure !== undefined && (out.blocker === "run_failed" || !lastRun)) throw failure;
  if (!lastRun) throw new Error("goal mode ended without a run");
  return {
    // The goal's result names its last run; its usage is the whole goal's.
    result: { ...lastRun, usage: spent ?? lastRun.usage, thread_usage: lastThreadUsage ?? lastRun.thread_usage },
    exitCode: out.exitCode,
    goal: {
      objective: goal.objective,
      outcome: out.outcome,
      reason: out.reason,
      blocker: out.blocker,
      continuation_count: out.goal.continuation_count,
      goal_outcome: out.goal_outcome ?? null,
    },
  };
}
