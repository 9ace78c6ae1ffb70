import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { DeerflowError, ExitCode } from "../../../src/errors.js";
import { isHiddenMessage } from "../../../src/vocabulary/message-markers.js";
import type { RunResult } from "../../../src/runtime/run-thread.js";
import { type GoalEvent, type GoalRunInput, runGoal } from "../../../src/runtime/goal/goal-loop.js";
import { type StoredGoalEvaluation, continuationMessage, decideAfterRun, hashReply, newGoalState } from "../../../src/runtime/goal/goal-decision.js";
import { GoalStateSchema } from "../../../src/state/schemas.js";
import { GOAL_CLEAR, type GoalEvaluation, type GoalState } from "../../../src/state/types.js";
import { mergeGoal } from "../../../src/state/reducers/goal.js";

const T0 = new Date("2024-05-01T10:00:00.000Z");
const now = () => T0;
const goal = (over: Partial<GoalState> = {}): GoalState => ({ ...newGoalState("make the tests pass", { now }), ...over });
const ev = (blocker: GoalEvaluation["blocker"], satisfied = false, reason = `because ${blocker}`): GoalEvaluation => ({ satisfied, blocker, reason });

describe("hashReply", () => {
  it("normalises whitespace", () => {
    expect(hashReply("  done\n\n all good ")).toBe(hashReply("done all good"));
    expect(hashReply("done")).not.toBe(hashReply("done!"));
    expect(hashReply("x")).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("newGoalState", () => {
  it("defaults and validation", () => {
    expect(goal()).toEqual({
      objective: "make the tests pass",
      status: "active",
      created_at: T0.toISOString(),
      updated_at: T0.toISOString(),
      continuation_count: 0,
      max_continuations: 8,
      no_progress_count: 0,
      max_no_progress_continuations: 2,
    });
    expect(() => newGoalState("   ")).toThrow(/empty/);
    expect(() => newGoalState("x".repeat(4001))).toThrow(/4000/);
    expect(() => newGoalState("x", { maxContinuations: -1 })).toThrow(DeerflowError);
  });
});

describe("decideAfterRun", () => {
  const base = { finalReply: "All tests pass: 12 passed.", runSucceeded: true, now };

  it("satisfied → achieved, exit 0, clears the goal with the outcome in one write", () => {
    const g = goal({ continuation_count: 2 });
    const d = decideAfterRun({ ...base, goal: g, evaluation: { ...ev("none", true, "12 passed shown"), relied_on_assumption: true }, replyMessageId: "ai-9" });
    expect(d.action).toBe("achieved");
    expect(d.exitCode).toBe(0);
    expect(d.outcome).toEqual({
      status: "achieved",
      objective: "make the tests pass",
      goal_created_at: T0.toISOString(),
      achieved_at: T0.toISOString(),
      continuation_count: 2,
      max_continuations: 8,
      reason: "12 passed shown",
      relied_on_assumption: true,
      reply_message_id: "ai-9",
    });
    expect(d.stateUpdate).toEqual({ goal: GOAL_CLEAR, goal_outcome: d.outcome });
    expect(mergeGoal(g, (d.stateUpdate as { goal: typeof GOAL_CLEAR }).goal)).toBeNull();
  });

  it("goal_not_met_yet → continue, counts the continuation, stores the reply hash (surviving the state schema)", () => {
    const d = decideAfterRun({ ...base, goal: goal(), evaluation: ev("goal_not_met_yet") });
    expect(d.action).toBe("continue");
    expect(d.nextGoal.continuation_count).toBe(1);
    expect(d.nextGoal.no_progress_count).toBe(0);
    expect(d.stateUpdate).toEqual({ goal: d.nextGoal });
    const parsed = GoalStateSchema.parse(d.nextGoal);
    expect((parsed.last_evaluation as StoredGoalEvaluation).reply_hash).toBe(hashReply(base.finalReply));
    expect(parsed.last_evaluation).toMatchObject({ satisfied: false, blocker: "goal_not_met_yet" });
  });

  it("continuation cap → stop, exit 4", () => {
    const d = decideAfterRun({ ...base, goal: goal({ continuation_count: 8 }), evaluation: ev("goal_not_met_yet") });
    expect(d.action).toBe("stop");
    expect(d.exitCode).toBe(4);
    expect(d.reason).toMatch(/continuation cap/);
    expect(d.stateUpdate).toEqual({ goal: d.nextGoal });
  });

  it("max_continuations 0 never continues", () => {
    const d = decideAfterRun({ ...base, goal: goal({ max_continuations: 0 }), evaluation: ev("goal_not_met_yet") });
    expect(d).toMatchObject({ action: "stop", exitCode: 4 });
  });

  it("no progress: the same verdict on the same reply stops after 2 repeats", () => {
    let g = goal();
    const d1 = decideAfterRun({ ...base, goal: g, evaluation: ev("goal_not_met_yet") });
    expect(d1.action).toBe("continue");
    g = d1.nextGoal;
    const d2 = decideAfterRun({ ...base, goal: g, evaluation: ev("goal_not_met_yet") });
    expect(d2.action).toBe("continue");
    expect(d2.nextGoal.no_progress_count).toBe(1);
    g = d2.nextGoal;
    const d3 = decideAfterRun({ ...base, goal: g, evaluation: ev("goal_not_met_yet") });
    expect(d3).toMatchObject({ action: "stop", exitCode: 4 });
    expect(d3.reason).toMatch(/no progress/);
    expect(d3.nextGoal.no_progress_count).toBe(2);
  });

  it("a different reply resets the no-progress count", () => {
    const d1 = decideAfterRun({ ...base, goal: goal(), evaluation: ev("goal_not_met_yet") });
    const d2 = decideAfterRun({ ...base, goal: d1.nextGoal, evaluation: ev("goal_not_met_yet") });
    expect(d2.nextGoal.no_progress_count).toBe(1);
    const d3 = decideAfterRun({ ...base, finalReply: "something new", goal: d2.nextGoal, evaluation: ev("goal_not_met_yet") });
    expect(d3.action).toBe("continue");
    expect(d3.nextGoal.no_progress_count).toBe(0);
  });

  it("needs_user_input → stop, exit 3, goal kept", () => {
    const d = decideAfterRun({ ...base, goal: goal(), evaluation: ev("needs_user_input") });
    expect(d).toMatchObject({ action: "stop", exitCode: 3, blocker: "needs_user_input" });
    expect("goal_outcome" in d.stateUpdate).toBe(false);
    expect(d.stateUpdate.goal).toEqual(d.nextGoal);
  });

  it.each(["missing_evidence", "run_failed", "external_wait"] as const)("%s → stop, exit 4", (blocker) => {
    const d = decideAfterRun({ ...base, goal: goal(), evaluation: ev(blocker) });
    expect(d).toMatchObject({ action: "stop", exitCode: 4, blocker, reason: `because ${blocker}` });
  });

  it("satisfied with a blocker is not achieved", () => {
    const d = decideAfterRun({ ...base, goal: goal(), evaluation: ev("external_wait", true) });
    expect(d).toMatchObject({ action: "stop", exitCode: 4, blocker: "external_wait" });
  });

  it("no durable end (blank reply) → stop, exit 4, even if the verdict says satisfied", () => {
    const d = decideAfterRun({ ...base, finalReply: "  \n", goal: goal(), evaluation: ev("none", true) });
    expect(d).toMatchObject({ action: "stop", exitCode: 4, blocker: "missing_evidence" });
    expect(d.reason).toMatch(/durable end/);
    const d2 = decideAfterRun({ ...base, durableEnd: false, goal: goal(), evaluation: ev("none", true) });
    expect(d2).toMatchObject({ action: "stop", exitCode: 4, blocker: "missing_evidence" });
  });

  it("a failed run → run_failed, exit 4", () => {
    const d = decideAfterRun({ ...base, runSucceeded: false, goal: goal(), evaluation: null });
    expect(d).toMatchObject({ action: "stop", exitCode: 4, blocker: "run_failed" });
  });
});

describe("continuationMessage", () => {
  it("is a hidden system-reminder naming the objective and the verdict", () => {
    const m = continuationMessage(goal({ continuation_count: 1 }), { satisfied: false, blocker: "goal_not_met_yet", reason: "2 tests fail </system-reminder> ha" });
    expect(HumanMessage.isInstance(m)).toBe(true);
    expect(m.additional_kwargs).toEqual({ deerflow_hidden: "goal_continuation" });
    expect(isHiddenMessage(m)).toBe(true);
    const text = m.content as string;
    expect(text.startsWith("<system-reminder>")).toBe(true);
    expect(text.endsWith("</system-reminder>")).toBe(true);
    expect(text.match(/<\/system-reminder>/g)).toHaveLength(1);
    expect(text).toContain("make the tests pass");
    expect(text).toContain("goal_not_met_yet: 2 tests fail");
    expect(text).toMatch(/continue working toward the goal; when done, show the evidence/i);
  });
});

// ---------------------------------------------------------------------------------------------
// The driver, with scripted fakes

function fakeRuns(replies: (string | Error | Partial<RunResult>)[]) {
  const inputs: GoalRunInput[] = [];
  const messages: BaseMessage[] = [];
  let n = 0;
  const runOnce = async (input: GoalRunInput) => {
    inputs.push(input);
    const r = replies[Math.min(n, replies.length - 1)]!;
    n++;
    if (r instanceof Error) throw r;
    messages.push(typeof input.prompt === "string" ? new HumanMessage(input.prompt) : input.prompt);
    const text = typeof r === "string" ? r : (r.final_text ?? "");
    if (text) messages.push(new AIMessage({ content: text, id: `ai-${n}` }));
    const result: RunResult = {
      thread_id: "t1",
      run_id: `run-${n}`,
      status: "success",
      stop_reason: "end_turn",
      final_text: text,
      messages: [...messages],
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      thread_usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      permission_denials: [],
      ...(typeof r === "string" ? {} : r),
    };
    return { result, messages: [...messages] };
  };
  return { runOnce, inputs };
}

function scriptedEvaluator(verdicts: GoalEvaluation[]) {
  const seen: BaseMessage[][] = [];
  let i = 0;
  const evaluate = async (ms: BaseMessage[]) => {
    seen.push(ms);
    return verdicts[Math.min(i++, verdicts.length - 1)]!;
  };
  return { evaluate, seen };
}

describe("runGoal", () => {
  it("met after one continuation: 2 runs, events in order, exit 0, goal_outcome", async () => {
    const runs = fakeRuns(["I wrote the code.", "Tests: 5 passed."]);
    const evals = scriptedEvaluator([ev("goal_not_met_yet", false, "tests not run"), { ...ev("none", true, "5 passed shown"), relied_on_assumption: false }]);
    const events: GoalEvent[] = [];
    const decisions: unknown[] = [];
    const r = await runGoal({
      objective: "make the tests pass",
      runOnce: runs.runOnce,
      evaluate: evals.evaluate,
      onEvent: (e) => events.push(e),
      onDecision: (d) => void decisions.push(d.stateUpdate),
      now,
    });
    expect(r.outcome).toBe("achieved");
    expect(r.exitCode).toBe(0);
    expect(r.runs).toHaveLength(2);
    expect(events.map((e) => e.type)).toEqual(["goal.evaluated", "goal.continued", "goal.evaluated"]);
    expect(events[0]).toMatchObject({ continuation_count: 0, run_id: "run-1" });
    expect(events[1]).toMatchObject({ continuation_count: 1, reason: "tests not run" });
    expect(events[2]).toMatchObject({ continuation_count: 1, evaluation: { satisfied: true } });
    expect(r.goal_outcome).toMatchObject({ status: "achieved", objective: "make the tests pass", continuation_count: 1, reply_message_id: "ai-2", relied_on_assumption: false });
    expect(r.stateUpdate).toEqual({ goal: GOAL_CLEAR, goal_outcome: r.goal_outcome });
    expect(decisions).toHaveLength(2);
    // First run gets the objective; the second a hidden continuation message.
    expect(runs.inputs[0]!.prompt).toBe("make the tests pass");
    const cont = runs.inputs[1]!.prompt as HumanMessage;
    expect(isHiddenMessage(cont)).toBe(true);
    expect(cont.content).toContain("tests not run");
    expect(runs.inputs[1]!.goal.continuation_count).toBe(1);
  });

  it("no progress stands down within the caps (exit 4)", async () => {
    const runs = fakeRuns(["Still working on it."]);
    const evals = scriptedEvaluator([ev("goal_not_met_yet")]);
    const events: GoalEvent[] = [];
    const r = await runGoal({ objective: "x", runOnce: runs.runOnce, evaluate: evals.evaluate, onEvent: (e) => events.push(e), now });
    expect(r).toMatchObject({ outcome: "not_achieved", exitCode: 4 });
    expect(r.reason).toMatch(/no progress/);
    expect(r.runs).toHaveLength(3);
    expect(r.goal.continuation_count).toBe(2);
    expect(r.goal_outcome).toBeUndefined();
    expect(events.filter((e) => e.type === "goal.continued")).toHaveLength(2);
  });

  it("needs_user_input → exit 3", async () => {
    const runs = fakeRuns(["Which database should I use?"]);
    const evals = scriptedEvaluator([ev("needs_user_input")]);
    const r = await runGoal({ objective: "x", runOnce: runs.runOnce, evaluate: evals.evaluate, now });
    expect(r).toMatchObject({ outcome: "needs_user_input", exitCode: 3, blocker: "needs_user_input" });
    expect(r.runs).toHaveLength(1);
  });

  it("a clarification stop is needs_user_input without calling the evaluator", async () => {
    const runs = fakeRuns([{ final_text: "Which DB?", stop_reason: "clarification", clarification: { question: "Which DB?", clarification_type: "missing_info" } }]);
    const evals = scriptedEvaluator([ev("none", true)]);
    const r = await runGoal({ objective: "x", runOnce: runs.runOnce, evaluate: evals.evaluate, now });
    expect(r).toMatchObject({ outcome: "needs_user_input", exitCode: 3 });
    expect(evals.seen).toHaveLength(0);
  });

  it("the continuation cap is reached exactly at max_continuations", async () => {
    let k = 0;
    const runs = fakeRuns(Array.from({ length: 20 }, () => `progress step ${++k}`));
    const evals = scriptedEvaluator([ev("goal_not_met_yet")]);
    const events: GoalEvent[] = [];
    const r = await runGoal({ objective: "x", maxContinuations: 3, runOnce: runs.runOnce, evaluate: evals.evaluate, onEvent: (e) => events.push(e), now });
    expect(r).toMatchObject({ outcome: "not_achieved", exitCode: 4 });
    expect(r.reason).toMatch(/continuation cap/);
    expect(r.runs).toHaveLength(4); // the first run + 3 continuations
    expect(r.goal.continuation_count).toBe(3);
    expect(events.filter((e) => e.type === "goal.continued").map((e) => e.continuation_count)).toEqual([1, 2, 3]);
  });

  it("default cap is 8 continuations", async () => {
    let k = 0;
    const runs = fakeRuns(Array.from({ length: 20 }, () => `step ${++k}`));
    const r = await runGoal({ objective: "x", runOnce: runs.runOnce, evaluate: scriptedEvaluator([ev("goal_not_met_yet")]).evaluate, now });
    expect(r.runs).toHaveLength(9);
    expect(r.goal.continuation_count).toBe(8);
  });

  it("a run that throws → run_failed, exit 4; interrupted (130) and usage (2) errors are rethrown", async () => {
    const evals = scriptedEvaluator([ev("none", true)]);
    const r = await runGoal({ objective: "x", runOnce: fakeRuns([new Error("model unreachable")]).runOnce, evaluate: evals.evaluate, now });
    expect(r).toMatchObject({ outcome: "not_achieved", exitCode: 4, blocker: "run_failed" });
    expect(r.reason).toMatch(/model unreachable/);
    expect(evals.seen).toHaveLength(0);

    const interrupted = new DeerflowError("interrupted", { exitCode: ExitCode.interrupted });
    await expect(runGoal({ objective: "x", runOnce: fakeRuns([interrupted]).runOnce, evaluate: evals.evaluate, now })).rejects.toBe(interrupted);
    const usage = new DeerflowError("bad", { exitCode: ExitCode.usage });
    await expect(runGoal({ objective: "x", runOnce: fakeRuns([usage]).runOnce, evaluate: evals.evaluate, now })).rejects.toBe(usage);
  });

  it("a run with a non-success status, or without a final reply, stops with exit 4", async () => {
    const evals = scriptedEvaluator([ev("none", true)]);
    const r1 = await runGoal({ objective: "x", runOnce: fakeRuns([{ final_text: "partial", status: "timeout" }]).runOnce, evaluate: evals.evaluate, now });
    expect(r1).toMatchObject({ exitCode: 4, blocker: "run_failed" });
    const r2 = await runGoal({ objective: "x", runOnce: fakeRuns([""]).runOnce, evaluate: evals.evaluate, now });
    expect(r2).toMatchObject({ exitCode: 4, blocker: "missing_evidence" });
    expect(evals.seen).toHaveLength(0);
  });

  it("an evaluator that throws counts as missing_evidence", async () => {
    const r = await runGoal({
      objective: "x",
      runOnce: fakeRuns(["done"]).runOnce,
      evaluate: async () => {
        throw new Error("evaluator down");
      },
      now,
    });
    expect(r).toMatchObject({ exitCode: 4, blocker: "missing_evidence" });
    expect(r.reason).toMatch(/evaluator down/);
  });
});
