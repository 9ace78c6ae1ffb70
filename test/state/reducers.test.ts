import { describe, expect, it } from "vitest";
import {
  GOAL_CLEAR,
  SandboxConflictError,
  clearGoalUpdate,
  isTerminalDelegationStatus,
  mergeAppliedRunInputs,
  mergeArtifacts,
  mergeBackgroundTasks,
  mergeDelegations,
  mergeGoal,
  mergeGoalOutcome,
  mergePromoted,
  mergeSandbox,
  mergeSkillContext,
  mergeSummaryText,
  mergeTaskHistory,
  mergeTaskNotes,
  mergeThreadData,
  mergeTitle,
  mergeTodos,
  mergeToolArtifactProcessed,
  mergeToolArtifacts,
  mergeUploadedFiles,
  mergeViewedImages,
  type DelegationEntry,
  type GoalOutcome,
  type GoalState,
  type Promoted,
  type SkillContextEntry,
  type ViewedImage,
} from "../../src/state/index.js";

describe("sandbox", () => {
  it("null/undefined write keeps the current sandbox", () => {
    expect(mergeSandbox({ sandbox_id: "a" }, null)).toEqual({ sandbox_id: "a" });
    expect(mergeSandbox({ sandbox_id: "a" }, undefined)).toEqual({ sandbox_id: "a" });
    expect(mergeSandbox(null, null)).toBeNull();
  });
  it("first write binds the sandbox", () => {
    expect(mergeSandbox(null, { sandbox_id: "a" })).toEqual({ sandbox_id: "a" });
    expect(mergeSandbox({}, { sandbox_id: "a" })).toEqual({ sandbox_id: "a" });
    expect(mergeSandbox({ sandbox_id: null }, { sandbox_id: "a" })).toEqual({ sandbox_id: "a" });
  });
  it("the same id keeps the existing value (idempotent lazy acquisition)", () => {
    const existing = { sandbox_id: "a" };
    expect(mergeSandbox(existing, { sandbox_id: "a" })).toBe(existing);
  });
  it("a different id throws a SandboxConflictError naming both ids", () => {
    let error: unknown;
    try {
      mergeSandbox({ sandbox_id: "sb-888" }, { sandbox_id: "sb-999" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxConflictError);
    expect((error as Error).message).toContain("sb-888");
    expect((error as Error).message).toContain("sb-999");
    expect((error as SandboxConflictError).existingId).toBe("sb-888");
    expect((error as SandboxConflictError).incomingId).toBe("sb-999");
  });
  it("a write that would unset a bound id also fails closed", () => {
    expect(() => mergeSandbox({ sandbox_id: "a" }, { sandbox_id: null })).toThrow(SandboxConflictError);
    expect(() => mergeSandbox({ sandbox_id: "a" }, {})).toThrow(SandboxConflictError);
  });
});

describe("thread_data", () => {
  const td = { workspace_path: "/w", uploads_path: "/u", outputs_path: "/o" };
  it("last write wins", () => {
    expect(mergeThreadData(td, { workspace_path: "/w2" })).toEqual({ workspace_path: "/w2" });
    expect(mergeThreadData(null, td)).toEqual(td);
  });
  it("null/undefined keeps", () => {
    expect(mergeThreadData(td, null)).toBe(td);
    expect(mergeThreadData(td, undefined)).toBe(td);
  });
});

describe("title", () => {
  it("last write wins; null is a write (clears); undefined is no write", () => {
    expect(mergeTitle("old", "new")).toBe("new");
    expect(mergeTitle(null, "t")).toBe("t");
    expect(mergeTitle("old", null)).toBeNull();
    expect(mergeTitle("old", undefined)).toBe("old");
  });
});

describe("artifacts", () => {
  it("ordered union, de-duplicated, first-seen order kept", () => {
    expect(mergeArtifacts(["a", "b"], ["c", "a", "d", "c"])).toEqual(["a", "b", "c", "d"]);
  });
  it("parallel writers both land", () => {
    expect(mergeArtifacts(mergeArtifacts([], ["/o/1.md"]), ["/o/2.md"])).toEqual(["/o/1.md", "/o/2.md"]);
  });
  it("null/undefined/[] keep", () => {
    const a = ["x"];
    expect(mergeArtifacts(a, null)).toEqual(["x"]);
    expect(mergeArtifacts(a, undefined)).toEqual(["x"]);
    expect(mergeArtifacts(a, [])).toEqual(["x"]);
    expect(mergeArtifacts(null, null)).toEqual([]);
  });
});

describe("todos", () => {
  const todos = [{ content: "write tests", status: "in_progress" as const }];
  it("null/undefined keeps", () => {
    expect(mergeTodos(todos, null)).toBe(todos);
    expect(mergeTodos(todos, undefined)).toBe(todos);
  });
  it("any list replaces", () => {
    const next = [{ content: "ship", status: "pending" as const }];
    expect(mergeTodos(todos, next)).toEqual(next);
  });
  it("[] clears", () => {
    expect(mergeTodos(todos, [])).toEqual([]);
  });
});

const goal = (objective = "make the tests pass"): GoalState => ({
  objective,
  status: "active",
  created_at: "2025-01-01T00:00:00Z",
  updated_at: "2025-01-01T00:00:00Z",
  continuation_count: 0,
  max_continuations: 8,
  no_progress_count: 0,
  max_no_progress_continuations: 2,
});

describe("goal", () => {
  it("null/undefined keeps: middleware cannot wipe the goal", () => {
    const g = goal();
    expect(mergeGoal(g, null)).toBe(g);
    expect(mergeGoal(g, undefined)).toBe(g);
  });
  it("a value replaces", () => {
    const next = { ...goal(), continuation_count: 1 };
    expect(mergeGoal(goal(), next)).toEqual(next);
    expect(mergeGoal(null, next)).toEqual(next);
  });
  it("only GOAL_CLEAR clears", () => {
    expect(mergeGoal(goal(), GOAL_CLEAR)).toBeNull();
    expect(mergeGoal(null, GOAL_CLEAR)).toBeNull();
  });
  it("clearGoalUpdate writes the marker and the outcome together", () => {
    const outcome: GoalOutcome = {
      status: "achieved",
      objective: "x",
      goal_created_at: "t0",
      achieved_at: "t1",
      continuation_count: 2,
      max_continuations: 8,
      reason: "done",
      relied_on_assumption: false,
      reply_message_id: "m1",
    };
    expect(clearGoalUpdate(outcome)).toEqual({ goal: GOAL_CLEAR, goal_outcome: outcome });
    expect(clearGoalUpdate()).toEqual({ goal: GOAL_CLEAR });
  });
});

describe("last-write fields (goal_outcome, applied_run_inputs, uploaded_files, summary_text, task_notes, task_history, background_tasks)", () => {
  const cases: Array<[string, (a: never, b: never) => unknown, unknown, unknown]> = [
    ["goal_outcome", mergeGoalOutcome as never, { status: "achieved", objective: "a" }, { status: "achieved", objective: "b" }],
    ["applied_run_inputs", mergeAppliedRunInputs as never, { ids: ["i1"] }, { ids: ["i1", "i2"] }],
    ["uploaded_files", mergeUploadedFiles as never, [{ name: "a.png" }], []],
    ["summary_text", mergeSummaryText as never, "old summary", "new summary"],
    ["task_notes", mergeTaskNotes as never, { a: 1 }, { b: 2 }],
    ["task_history", mergeTaskHistory as never, { archived: [1] }, { archived: [2] }],
    ["background_tasks", mergeBackgroundTasks as never, [{ id: "t1" }], [{ id: "t2" }]],
  ];
  for (const [name, reducer, first, second] of cases) {
    it(`${name}: the last write wins, null clears, undefined keeps`, () => {
      const r = reducer as (a: unknown, b: unknown) => unknown;
      expect(r(first, second)).toEqual(second);
      expect(r(null, first)).toEqual(first);
      expect(r(first, null)).toBeNull();
      expect(r(first, undefined)).toBe(first);
    });
  }
  it("uploaded_files: a turn without uploads clears with []", () => {
    expect(mergeUploadedFiles([{ name: "a.png" }], [])).toEqual([]);
  });
});

const img = (sha: string): ViewedImage => ({ mime_type: "image/png", size: 10, actual_path: "/mnt/user-data/workspace/a.png", sha256: sha });

describe("viewed_images", () => {
  it("dict merge, new wins per path", () => {
    expect(mergeViewedImages({ a: img("1"), b: img("2") }, { b: img("3"), c: img("4") })).toEqual({ a: img("1"), b: img("3"), c: img("4") });
  });
  it("{} clears", () => {
    expect(mergeViewedImages({ a: img("1") }, {})).toEqual({});
  });
  it("null/undefined keeps", () => {
    const v = { a: img("1") };
    expect(mergeViewedImages(v, null)).toBe(v);
    expect(mergeViewedImages(v, undefined)).toBe(v);
    expect(mergeViewedImages(null, null)).toEqual({});
  });
});

describe("promoted", () => {
  const p = (catalog_hash: string, names: string[], turn_id?: string): Promoted => (turn_id === undefined ? { catalog_hash, names } : { catalog_hash, names, turn_id });
  it("empty keeps (null, undefined, {})", () => {
    const e = p("h", ["a"], "t1");
    expect(mergePromoted(e, null)).toBe(e);
    expect(mergePromoted(e, undefined)).toBe(e);
    expect(mergePromoted(e, {})).toBe(e);
    expect(mergePromoted(null, {})).toBeNull();
  });
  it("first write sets the scope (names de-duplicated)", () => {
    expect(mergePromoted(null, p("h", ["a", "b", "a"], "t1"))).toEqual(p("h", ["a", "b"], "t1"));
  });
  it("a catalog hash change replaces, dropping stale names", () => {
    expect(mergePromoted(p("h1", ["a", "b"], "t1"), p("h2", ["c"], "t1"))).toEqual(p("h2", ["c"], "t1"));
  });
  it("a new explicit turn_id replaces", () => {
    expect(mergePromoted(p("h", ["a", "b"], "t1"), p("h", ["c"], "t2"))).toEqual(p("h", ["c"], "t2"));
  });
  it("same scope: ordered de-duplicated union", () => {
    expect(mergePromoted(p("h", ["a", "b"], "t1"), p("h", ["b", "c"], "t1"))).toEqual(p("h", ["a", "b", "c"], "t1"));
  });
  it("a write without turn_id (tool_search) joins and inherits the current scope", () => {
    expect(mergePromoted(p("h", ["a"], "t1"), p("h", ["c"]))).toEqual(p("h", ["a", "c"], "t1"));
  });
  it("a missing turn_id inherits even when the hash changes", () => {
    expect(mergePromoted(p("h1", ["a"], "t1"), p("h2", ["c"]))).toEqual(p("h2", ["c"], "t1"));
  });
  it("no turn anywhere: no turn_id key", () => {
    expect(mergePromoted(p("h", ["a"]), p("h", ["b"]))).toEqual(p("h", ["a", "b"]));
    expect(mergePromoted(p("h", ["a"]), p("h", ["b"]))).not.toHaveProperty("turn_id");
  });
  it("malformed existing names are treated as []", () => {
    const bad = { catalog_hash: "h", names: "not-a-list", turn_id: "t1" } as unknown as Promoted;
    expect(mergePromoted(bad, p("h", ["x"]))).toEqual(p("h", ["x"], "t1"));
    const mixed = { catalog_hash: "h", names: ["a", 3, null], turn_id: "t1" } as unknown as Promoted;
    expect(mergePromoted(mixed, p("h", ["x"]))).toEqual(p("h", ["x"], "t1"));
  });
});

const entry = (id: string, status: DelegationEntry["status"], extra: Partial<DelegationEntry> = {}): DelegationEntry => ({
  id,
  run_id: "run-1",
  description: `task ${id}`,
  subagent_type: "general-purpose",
  status,
  created_at: "t0",
  ...extra,
});

describe("delegations", () => {
  it("empty keeps (null, undefined, [])", () => {
    const e = [entry("a", "running")];
    expect(mergeDelegations(e, null)).toBe(e);
    expect(mergeDelegations(e, undefined)).toBe(e);
    expect(mergeDelegations(e, [])).toBe(e);
    expect(mergeDelegations(null, [])).toEqual([]);
  });
  it("upsert by id in first-seen order", () => {
    const out = mergeDelegations([entry("a", "running"), entry("b", "running")], [entry("c", "pending"), entry("a", "completed")]);
    expect(out.map((d) => [d.id, d.status])).toEqual([
      ["a", "completed"],
      ["b", "running"],
      ["c", "pending"],
    ]);
  });
  it("non-terminal updates may move forward and change fields", () => {
    const out = mergeDelegations([entry("a", "pending")], [entry("a", "running", { description: "renamed", updated_at: "t1" })]);
    expect(out).toEqual([entry("a", "running", { description: "renamed", updated_at: "t1" })]);
  });
  it("a terminal status never goes back to non-terminal", () => {
    const done = entry("a", "completed", { result_brief: "ok" });
    const out = mergeDelegations([done], [entry("a", "running", { description: "stale report" })]);
    expect(out).toEqual([done]);
  });
  it("the first terminal status sticks; a later terminal report only fills missing fields", () => {
    const done = entry("a", "completed", { result_brief: "ok" });
    const out = mergeDelegations([done], [entry("a", "failed", { result_brief: "other", result_sha256: "abc", stop_reason: "turn_capped" })]);
    expect(out).toEqual([{ ...done, result_sha256: "abc", stop_reason: "turn_capped" }]);
  });
  it.each(["completed", "failed", "cancelled", "timed_out", "polling_timed_out"] as const)("%s is terminal", (status) => {
    expect(isTerminalDelegationStatus(status)).toBe(true);
    expect(mergeDelegations([entry("a", status)], [entry("a", "pending")])[0]!.status).toBe(status);
  });
  it("pending and running are not terminal", () => {
    expect(isTerminalDelegationStatus("pending")).toBe(false);
    expect(isTerminalDelegationStatus("running")).toBe(false);
  });
  it("the first created_at and run_id are kept", () => {
    const out = mergeDelegations([entry("a", "running", { created_at: "first", run_id: "r1" })], [entry("a", "completed", { created_at: "later", run_id: "r2" })]);
    expect(out[0]).toMatchObject({ status: "completed", created_at: "first", run_id: "r1" });
  });
  it("a missing created_at/run_id is filled from the update", () => {
    const legacy = { id: "a", description: "d", subagent_type: "bash", status: "running" } as unknown as DelegationEntry;
    const out = mergeDelegations([legacy], [entry("a", "completed", { created_at: "t9", run_id: "r9" })]);
    expect(out[0]).toMatchObject({ created_at: "t9", run_id: "r9", status: "completed" });
  });
  it("keeps the last 50 entries", () => {
    const many = Array.from({ length: 60 }, (_, i) => entry(`d${i}`, "completed"));
    const out = mergeDelegations([], many);
    expect(out).toHaveLength(50);
    expect(out[0]!.id).toBe("d10");
    expect(out.at(-1)!.id).toBe("d59");
  });
  it("result_brief is truncated to 2000 characters", () => {
    const out = mergeDelegations([], [entry("a", "completed", { result_brief: "x".repeat(5000) })]);
    expect(out[0]!.result_brief!.length).toBe(2000);
    expect(out[0]!.result_brief!.endsWith("[truncated]")).toBe(true);
  });
  it("extra fields (e.g. verdicts) pass through", () => {
    const withVerdict = { ...entry("a", "completed"), receipt_verdict: { ok: true } } as DelegationEntry;
    expect(mergeDelegations([], [withVerdict])[0]).toHaveProperty("receipt_verdict", { ok: true });
  });
});

const skill = (path: string, extra: Partial<SkillContextEntry> = {}): SkillContextEntry => ({
  name: path.split("/").at(-2) ?? path,
  path,
  description: `skill at ${path}`,
  loaded_at: 0,
  ...extra,
});

describe("skill_context", () => {
  it("empty keeps", () => {
    const e = [skill("/s/a/SKILL.md")];
    expect(mergeSkillContext(e, null)).toBe(e);
    expect(mergeSkillContext(e, [])).toBe(e);
  });
  it("de-duplicated by path; a re-read moves the skill to the end with the new entry", () => {
    const out = mergeSkillContext([skill("/a"), skill("/b"), skill("/c")], [skill("/a", { loaded_at: 9 })]);
    expect(out.map((s) => s.path)).toEqual(["/b", "/c", "/a"]);
    expect(out.at(-1)!.loaded_at).toBe(9);
  });
  it("keeps the last 8 (most recently read)", () => {
    const existing = Array.from({ length: 8 }, (_, i) => skill(`/s${i}`));
    const out = mergeSkillContext(existing, [skill("/s0"), skill("/new")]);
    expect(out).toHaveLength(8);
    expect(out.map((s) => s.path)).toEqual(["/s2", "/s3", "/s4", "/s5", "/s6", "/s7", "/s0", "/new"]);
  });
  it("descriptions are truncated to 500 characters", () => {
    const out = mergeSkillContext([], [skill("/a", { description: "d".repeat(900) })]);
    expect(out[0]!.description.length).toBe(500);
    expect(mergeSkillContext([], [skill("/b", { description: "short" })])[0]!.description).toBe("short");
  });
});

describe("tool_artifacts", () => {
  const art = (handle: string, real_ref: string) => ({ handle, tool_name: "bash", tool_call_id: "c1", call_index: 0, artifact_type: "file", display_name: "x", real_ref, created_at: "t0" });
  it("empty keeps", () => {
    const e = [art("art_1", "/x")];
    expect(mergeToolArtifacts(e, null)).toBe(e);
    expect(mergeToolArtifacts(e, [])).toBe(e);
  });
  it("de-duplicated by handle, latest wins (in first-seen position)", () => {
    const out = mergeToolArtifacts([art("art_1", "/old"), art("art_2", "/b")], [art("art_1", "/new"), art("art_3", "/c")]);
    expect(out).toEqual([art("art_1", "/new"), art("art_2", "/b"), art("art_3", "/c")]);
  });
  it("keeps the last 100", () => {
    const out = mergeToolArtifacts(
      [],
      Array.from({ length: 130 }, (_, i) => art(`art_${i}`, `/r${i}`)),
    );
    expect(out).toHaveLength(100);
    expect(out[0]!.handle).toBe("art_30");
  });
});

describe("tool_artifact_processed", () => {
  it("ordered de-duplicated union; null/[] keep", () => {
    expect(mergeToolArtifactProcessed(["m1", "m2"], ["m2", "m3", "m3"])).toEqual(["m1", "m2", "m3"]);
    expect(mergeToolArtifactProcessed(["m1"], null)).toEqual(["m1"]);
    expect(mergeToolArtifactProcessed(["m1"], [])).toEqual(["m1"]);
  });
});
