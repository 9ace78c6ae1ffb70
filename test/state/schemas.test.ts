import { describe, expect, it } from "vitest";
import {
  BlockerSchema,
  DelegationEntrySchema,
  GOAL_BLOCKERS,
  GOAL_OBJECTIVE_MAX_CHARS,
  GoalStateSchema,
  PromotedUpdateSchema,
  TodoSchema,
  ViewedImageSchema,
  createThreadStateSchema,
  GOAL_CLEAR,
} from "../../src/state/index.js";

describe("schemas", () => {
  const goal = { objective: "ship it", status: "active", created_at: "t0", updated_at: "t0" };

  it("GoalState: counters default (max_continuations 8, max_no_progress_continuations 2)", () => {
    expect(GoalStateSchema.parse(goal)).toMatchObject({
      continuation_count: 0,
      max_continuations: 8,
      no_progress_count: 0,
      max_no_progress_continuations: 2,
    });
  });

  it("GoalState: objective at most 4000 characters, status only 'active'", () => {
    expect(GoalStateSchema.safeParse({ ...goal, objective: "x".repeat(GOAL_OBJECTIVE_MAX_CHARS) }).success).toBe(true);
    expect(GoalStateSchema.safeParse({ ...goal, objective: "x".repeat(GOAL_OBJECTIVE_MAX_CHARS + 1) }).success).toBe(false);
    expect(GoalStateSchema.safeParse({ ...goal, status: "done" }).success).toBe(false);
  });

  it("GoalState: last_evaluation with a known blocker", () => {
    const last_evaluation = { satisfied: false, blocker: "goal_not_met_yet", reason: "tests fail", evidence_summary: "ran npm test" };
    expect(GoalStateSchema.parse({ ...goal, last_evaluation }).last_evaluation).toEqual(last_evaluation);
    expect(GoalStateSchema.safeParse({ ...goal, last_evaluation: { ...last_evaluation, blocker: "bored" } }).success).toBe(false);
  });

  it("blockers are exactly the six of the spec", () => {
    expect([...GOAL_BLOCKERS]).toEqual(["none", "missing_evidence", "needs_user_input", "run_failed", "external_wait", "goal_not_met_yet"]);
    expect(BlockerSchema.safeParse("run_failed").success).toBe(true);
  });

  it("DelegationEntry: statuses and stop reasons are checked; extra keys pass through", () => {
    const d = { id: "call_1", run_id: "r", description: "d", subagent_type: "bash", status: "timed_out", created_at: "t0" };
    expect(DelegationEntrySchema.safeParse(d).success).toBe(true);
    expect(DelegationEntrySchema.safeParse({ ...d, status: "done" }).success).toBe(false);
    expect(DelegationEntrySchema.safeParse({ ...d, stop_reason: "model_length_capped" }).success).toBe(true);
    expect(DelegationEntrySchema.safeParse({ ...d, stop_reason: "bored" }).success).toBe(false);
    expect(DelegationEntrySchema.parse({ ...d, acceptance_verdict: { ok: 1 } })).toHaveProperty("acceptance_verdict");
  });

  it("Todo status is one of pending/in_progress/completed", () => {
    expect(TodoSchema.safeParse({ content: "a", status: "in_progress" }).success).toBe(true);
    expect(TodoSchema.safeParse({ content: "a", status: "blocked" }).success).toBe(false);
  });

  it("ViewedImage requires sha256 metadata, never bytes", () => {
    expect(ViewedImageSchema.safeParse({ mime_type: "image/png", size: 3, actual_path: "/a" }).success).toBe(false);
  });

  it("promoted accepts an empty write {}", () => {
    expect(PromotedUpdateSchema.safeParse({}).success).toBe(true);
    expect(PromotedUpdateSchema.safeParse({ names: ["a"] }).success).toBe(false);
  });

  it("channel input schemas accept null/undefined everywhere and the goal clear marker", async () => {
    const schema = createThreadStateSchema("full");
    const nulls = Object.fromEntries(
      schema
        .getChannelKeys()
        .filter((k) => k !== "messages")
        .map((k) => [k, null]),
    );
    await expect(schema.validateInput(nulls)).resolves.toEqual(nulls);
    await expect(schema.validateInput({ goal: GOAL_CLEAR })).resolves.toEqual({ goal: GOAL_CLEAR });
    await expect(schema.validateInput({ goal: "something else" })).rejects.toThrow(/goal/);
  });
});
