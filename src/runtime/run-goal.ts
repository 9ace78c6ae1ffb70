// `run --goal`: runs on one thread until the goal is met or honestly blocked. Each run is a normal run (lock,
// rollback, events); after it the strict evaluator judges the visible conversation, and the goal loop decides:
// achieved (exit 0), continue with a hidden continuation message, or stop (exit 3 needs the user, exit 4 not
// achieved). Every decision is one state write: the goal with its counters, or — when achieved — the write that
// clears the goal and records goal_outcome together.
import { createChatModel } from "../config/model-factory.js";
import { redactingInvoker } from "../middleware/util/pii-messages.js";
import type { GoalOutcome, GoalState } from "../state/types.js";
import type { RunEvent } from "./events.js";
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
  const evaluator = createChatModel(req.model, { streaming: false });
  let threadId = req.threadId;
  // A run that fails outright (model unreachable, internal error) is reported as that error (exit 1), not as an
  // unmet goal.
  let failure: unknown;
  const unattended = !req.attended;
  const goal = req.resume ?? newGoalState(req.objective, { maxContinuations: req.maxContinuations });
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
      return { result: r, messages: r.messages };
    },
    // The evaluator reads the conversation: with piiRedaction on, it is masked like every other request.
    evaluate: (messages, ctx) =>
      evaluateGoal({ model: req.config.piiRedaction ? redactingInvoker(evaluator, threadId) : evaluator, objective: goal.objective, messages, unattended: ctx.unattended, signal: req.signal }),
    onEvent: (e) => emit(e as RunEvent),
    onDecision: async (decision) => {
      if (threadId) await updateThreadState(req, threadId, decision.stateUpdate as Record<string, unknown>);
    },
  });
  const last = out.runs.at(-1);
  if (failure !== undefined && (out.blocker === "run_failed" || !last)) throw failure;
  if (!last) throw new Error("goal mode ended without a run");
  return {
    result: last,
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
