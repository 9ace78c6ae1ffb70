// The TUI reducer as a pure function: run events and UI actions in, the next ChatState out. The transcript
// (items) is append-only; everything live (streaming text, running tools, prompts, delegations) is either live or
// committed, never both.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/runtime/events.js";
import { type ChatAction, initialState, reduce } from "../../src/tui/state/reducer.js";
import type { ChatState, TranscriptItem } from "../../src/tui/state/types.js";

const RUN = "run-1";
const usage = (total: number) => ({ input_tokens: total - 1, output_tokens: 1, total_tokens: total });

function apply(state: ChatState, ...actions: ChatAction[]): ChatState {
  return actions.reduce(reduce, state);
}

const started: RunEvent = { type: "run.started", thread_id: "t1", run_id: RUN, new_thread: true };
const toolStarted = (id: string, name = "bash", args: unknown = { command: "ls" }): RunEvent => ({ type: "tool.started", run_id: RUN, tool_call_id: id, name, args });
const toolCompleted = (id: string, output: string, status: "ok" | "error" = "ok", name = "bash"): RunEvent => ({
  type: "tool.completed",
  run_id: RUN,
  tool_call_id: id,
  name,
  status,
  output,
});

function kinds(s: ChatState): TranscriptItem["kind"][] {
  return s.items.map((i) => i.kind);
}

describe("reduce: streaming answers", () => {
  it("deltas stream live, then message.completed commits the answer once and empties streaming", () => {
    let s = apply(initialState(), { type: "ui.run.begin" }, started, { type: "message.delta", run_id: RUN, text: "Hello " }, { type: "message.delta", run_id: RUN, text: "world" });
    expect(s.streaming).toBe("Hello world");
    expect(s.items).toEqual([]);
    s = reduce(s, { type: "message.completed", run_id: RUN, text: "Hello world", tool_calls: [] });
    expect(s.streaming).toBe("");
    expect(s.items).toEqual([{ kind: "assistant", id: "i1", text: "Hello world" }]);
    // The run ending afterwards commits nothing more (no partial answer left, a normal end_turn has no run-end item).
    s = reduce(s, { type: "ui.run.end", end: { status: "success", stop_reason: "end_turn", usage: usage(10), thread_usage: usage(30) } });
    expect(s.items.filter((i) => i.kind === "assistant")).toHaveLength(1);
    expect(kinds(s)).toEqual(["assistant"]);
    expect(s.status.usage).toEqual(usage(30));
    expect(s.run).toBeNull();
  });

  it("reasoning streams apart from the answer and is committed before it as thinking, never inside it", () => {
    let s = apply(
      initialState(),
      started,
      { type: "message.reasoning", run_id: RUN, text: "Let me " },
      { type: "message.reasoning", run_id: RUN, text: "think." },
      { type: "message.delta", run_id: RUN, text: "Answer." },
    );
    expect(s.thinking).toBe("Let me think.");
    expect(s.streaming).toBe("Answer.");
    s = reduce(s, { type: "message.completed", run_id: RUN, text: "Answer.", tool_calls: [] });
    expect(kinds(s)).toEqual(["thinking", "assistant"]);
    expect(s.items.map((i) => ("text" in i ? i.text : ""))).toEqual(["Let me think.", "Answer."]);
    expect(s.thinking).toBe("");
  });

  it("message.completed with empty text falls back to the streamed text; nothing at all commits nothing", () => {
    let s = apply(initialState(), { type: "message.delta", run_id: RUN, text: "streamed" }, { type: "message.completed", run_id: RUN, text: "", tool_calls: [] });
    expect(s.items).toMatchObject([{ kind: "assistant", text: "streamed" }]);
    s = reduce(s, { type: "message.completed", run_id: RUN, text: "  ", tool_calls: [{ id: "c", name: "bash" }] });
    expect(s.items).toHaveLength(1);
    expect(s.streaming).toBe("");
  });
});

describe("reduce: tool cards", () => {
  it("tool.started shows a live card; tool.completed commits it with status and output, drops it from live, sets lastTool", () => {
    let s = apply(initialState(), { type: "ui.run.begin" }, toolStarted("c1"), toolStarted("c2", "read_file", { path: "a.txt" }));
    expect(s.tools.map((t) => [t.id, t.name, t.status])).toEqual([
      ["c1", "bash", "running"],
      ["c2", "read_file", "running"],
    ]);
    expect(s.tools[0]!.args).toEqual({ command: "ls" });
    expect(s.items).toEqual([]);

    s = reduce(s, toolCompleted("c1", "a.txt\nb.txt"));
    expect(s.tools.map((t) => t.id)).toEqual(["c2"]);
    expect(s.items).toHaveLength(1);
    const item = s.items[0]!;
    expect(item.kind).toBe("tool");
    if (item.kind !== "tool") throw new Error("not a tool item");
    expect(item.tool).toMatchObject({ id: "c1", name: "bash", args: { command: "ls" }, status: "ok", output: "a.txt\nb.txt" });
    expect(typeof item.tool.endedAt).toBe("number");
    expect(s.lastTool).toMatchObject({ id: "c1", status: "ok", output: "a.txt\nb.txt" });

    s = reduce(s, toolCompleted("c2", "ENOENT", "error", "read_file"));
    expect(s.tools).toEqual([]);
    expect(s.items[1]).toMatchObject({ kind: "tool", tool: { id: "c2", status: "error", output: "ENOENT" } });
    expect(s.lastTool).toMatchObject({ id: "c2", status: "error" });
  });

  it("ask_clarification calls are never shown as tool cards", () => {
    const s = apply(initialState(), toolStarted("q1", "ask_clarification", { question: "Tabs or spaces?" }), toolCompleted("q1", "asked", "ok", "ask_clarification"));
    expect(s.tools).toEqual([]);
    expect(s.items).toEqual([]);
    expect(s.lastTool).toBeUndefined();
  });
});

describe("reduce: prompts", () => {
  const clarification = { question: "Which database?", clarification_type: "missing_info", options: ["sqlite", "postgres"] };

  it("clarification.requested shows the live prompt only; the answer commits the question, then the answer", () => {
    let s = reduce(initialState(), { type: "clarification.requested", run_id: RUN, clarification });
    expect(s.items).toEqual([]);
    expect(s.clarification).toEqual(clarification);
    s = reduce({ ...s, exitArmed: true }, { type: "ui.user", text: "sqlite" });
    expect(s.clarification).toBeNull();
    expect(s.exitArmed).toBe(false);
    expect(s.items).toEqual([
      { kind: "clarification", id: "i1", clarification },
      { kind: "user", id: "i2", text: "sqlite" },
    ]);
  });

  it("approvals queue in arrival order; ui.approval.answered removes exactly that id", () => {
    const ask = (id: string, command: string): RunEvent => ({
      type: "approval.requested",
      id,
      thread_id: "t1",
      tool_call_id: `tc-${id}`,
      tool: "bash",
      kind: "command",
      command,
      reason: "recursive delete (rm -r)",
    });
    let s = apply(initialState(), ask("a1", "rm -r build"), ask("a2", "rm -r dist"), ask("a3", "chmod -R 700 x"));
    expect(s.approvals.map((a) => a.id)).toEqual(["a1", "a2", "a3"]);
    s = reduce(s, { type: "ui.approval.answered", id: "a2" });
    expect(s.approvals.map((a) => [a.id, a.command])).toEqual([
      ["a1", "rm -r build"],
      ["a3", "chmod -R 700 x"],
    ]);
    s = reduce(s, { type: "ui.approval.answered", id: "nope" });
    expect(s.approvals.map((a) => a.id)).toEqual(["a1", "a3"]);
    // Prompts are live: nothing committed.
    expect(s.items).toEqual([]);
  });
});

describe("reduce: delegations", () => {
  it("delegation.updated merges by id, keeping order of first appearance", () => {
    let s = reduce(initialState(), {
      type: "delegation.updated",
      run_id: RUN,
      delegations: [
        { id: "d1", description: "scan the repo", subagent_type: "general", status: "running", created_at: "2024-01-01T00:00:00Z" },
        { id: "d2", description: "write docs", subagent_type: "general", status: "running" },
      ],
    });
    s = reduce(s, { type: "delegation.updated", run_id: RUN, delegations: [{ id: "d1", description: "scan the repo", subagent_type: "general", status: "completed", result_brief: "12 files" }] });
    expect(s.delegations).toEqual([
      { id: "d1", description: "scan the repo", subagent_type: "general", status: "completed", created_at: "2024-01-01T00:00:00Z", result_brief: "12 files" },
      { id: "d2", description: "write docs", subagent_type: "general", status: "running" },
    ]);
    expect(s.items).toEqual([]);
  });
});

describe("reduce: ctrl+t after a run with subagents", () => {
  it("prints the run's folded subagents panel in full, once; during a run, or after a new prompt, it only toggles the todos", () => {
    const d = { id: "d1", description: "research", subagent_type: "general", status: "completed" };
    let s = apply(initialState(), { type: "ui.run.begin" }, started, { type: "delegation.updated", run_id: RUN, delegations: [d] });
    s = reduce(s, { type: "ui.todos.toggle" });
    expect(kinds(s)).toEqual([]);
    s = reduce(s, { type: "ui.run.end", end: { status: "success", stop_reason: "end_turn", usage: usage(5) } });
    expect(s.items.at(-1)).toMatchObject({ kind: "delegations", delegations: [d] });
    expect(s.items.at(-1)).not.toHaveProperty("expanded");
    s = reduce(s, { type: "ui.todos.toggle" });
    expect(s.items.at(-1)).toMatchObject({ kind: "delegations", delegations: [d], expanded: true });
    const n = s.items.length;
    s = reduce(s, { type: "ui.todos.toggle" });
    expect(s.items).toHaveLength(n);
    s = reduce(s, { type: "ui.item", item: { kind: "user", text: "next" } });
    s = reduce(s, { type: "ui.todos.toggle" });
    expect(s.items).toHaveLength(n + 1);
  });
});

describe("reduce: the end of a run", () => {
  it("an interrupted end commits the partial answer, cancels running tools, commits the delegations, resets live state", () => {
    let s = apply(
      initialState(),
      { type: "ui.run.begin" },
      started,
      { type: "delegation.updated", run_id: RUN, delegations: [{ id: "d1", description: "research", subagent_type: "general", status: "running" }] },
      toolStarted("c1", "bash", { command: "sleep 30" }),
      { type: "approval.requested", id: "a1", thread_id: "t1", tool_call_id: "c9", tool: "bash", kind: "command", command: "rm -r x", reason: "recursive delete (rm -r)" },
      { type: "message.delta", run_id: RUN, text: "Half an ans" },
      { type: "ui.run.cancelling" },
    );
    expect(s.run?.cancelling).toBe(true);
    s = reduce(s, { type: "ui.run.end", end: { status: "interrupted", stop_reason: "interrupted", usage: usage(5) } });
    expect(kinds(s)).toEqual(["assistant", "tool", "delegations", "run-end"]);
    expect(s.items[0]).toMatchObject({ kind: "assistant", text: "Half an ans" });
    expect(s.items[1]).toMatchObject({ kind: "tool", tool: { id: "c1", status: "error", output: "cancelled" } });
    expect(s.items[2]).toMatchObject({ kind: "delegations", delegations: [{ id: "d1", status: "running" }] });
    expect(s.items[3]).toMatchObject({ kind: "run-end", status: "interrupted", stop_reason: "interrupted" });
    expect(s.streaming).toBe("");
    expect(s.tools).toEqual([]);
    expect(s.delegations).toEqual([]);
    expect(s.approvals).toEqual([]);
    expect(s.run).toBeNull();
  });

  it("a cancelled run that ends with an error message (no result) is still treated as interrupted", () => {
    const s = apply(
      initialState(),
      { type: "ui.run.begin" },
      toolStarted("c1"),
      { type: "ui.run.cancelling" },
      { type: "ui.run.end", error: "Interrupted. The thread is saved: type to continue it." },
    );
    expect(s.items).toMatchObject([
      { kind: "tool", tool: { status: "error", output: "cancelled" } },
      { kind: "notice", level: "warning", text: "Interrupted. The thread is saved: type to continue it." },
    ]);
  });

  it("a failed run (not cancelled) marks unfinished tools 'not finished' and shows the error", () => {
    const s = apply(initialState(), { type: "ui.run.begin" }, toolStarted("c1"), { type: "ui.run.end", error: "Model endpoint unreachable." });
    expect(s.items).toMatchObject([
      { kind: "tool", tool: { status: "error", output: "not finished" } },
      { kind: "notice", level: "error", text: "Model endpoint unreachable." },
    ]);
  });

  it("a guard stop (turn_capped) commits a run-end item; a normal end_turn or a clarification does not", () => {
    const capped = apply(initialState(), { type: "ui.run.begin" }, started, {
      type: "ui.run.end",
      end: { status: "success", stop_reason: "turn_capped", usage: usage(40) },
    });
    expect(capped.items).toHaveLength(1);
    const end = capped.items[0]!;
    expect(end).toMatchObject({ kind: "run-end", status: "success", stop_reason: "turn_capped", usage: usage(40) });
    if (end.kind !== "run-end") throw new Error("not a run-end");
    expect(end.elapsedMs).toBeGreaterThanOrEqual(0);

    for (const stop_reason of ["end_turn", "clarification"]) {
      const normal = apply(initialState(), { type: "ui.run.begin" }, started, { type: "ui.run.end", end: { status: "success", stop_reason, usage: usage(40) } });
      expect(normal.items).toEqual([]);
    }
    // Without a run (e.g. a /title "run"), a result never produces a run-end item.
    const idle = reduce(initialState(), { type: "ui.run.end", end: { status: "success", stop_reason: "turn_capped", usage: usage(1) } });
    expect(idle.items).toEqual([]);
  });

  it("ui.run.end sets the goal when given, keeps it when absent", () => {
    const goal = { objective: "tests pass", status: "active" as const, continuation_count: 0 };
    let s = apply(initialState(), { type: "ui.status", status: { goal } }, { type: "ui.run.begin" }, { type: "ui.run.end" });
    expect(s.status.goal).toEqual(goal);
    s = apply(s, { type: "ui.run.begin" }, { type: "ui.run.end", goal: { ...goal, status: "achieved" } });
    expect(s.status.goal?.status).toBe("achieved");
    s = reduce(s, { type: "ui.run.end", goal: null });
    expect(s.status.goal).toBeNull();
  });
});

describe("reduce: UI actions", () => {
  it("ui.tool.expand shows the last tool expanded, or a notice when there is none", () => {
    const none = reduce(initialState(), { type: "ui.tool.expand" });
    expect(none.items).toMatchObject([{ kind: "notice", level: "info", text: "No tool output to show yet." }]);

    const s = apply(initialState(), toolStarted("c1"), toolCompleted("c1", "x".repeat(5000)), { type: "ui.tool.expand" });
    expect(s.items).toHaveLength(2);
    expect(s.items[1]).toMatchObject({ kind: "tool", expanded: true, tool: { id: "c1", output: "x".repeat(5000) } });
    expect(s.items[0]!.id).not.toBe(s.items[1]!.id);
  });

  it("ui.clear resets the thread status and live state but keeps the transcript (it only grows)", () => {
    const goal = { objective: "g", status: "active" as const, continuation_count: 2 };
    let s = apply(
      initialState({ model: "m1", approvalMode: "yolo" }),
      { type: "ui.ready", status: {} },
      { type: "ui.status", status: { threadId: "t1", title: "A title", goal, usage: usage(100) } },
      { type: "todos.updated", run_id: RUN, todos: [{ content: "step", status: "pending" }] },
      { type: "clarification.requested", run_id: RUN, clarification: { question: "?", clarification_type: "missing_info" } },
      toolStarted("c1"),
      toolCompleted("c1", "out"),
    );
    const before = s.items.length;
    s = reduce(s, { type: "ui.clear" });
    expect(s.status).toMatchObject({ threadId: undefined, title: undefined, goal: null });
    expect(s.status.usage).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    expect(s.status.model).toBe("m1");
    expect(s.status.approvalMode).toBe("yolo");
    expect(s.todos).toEqual([]);
    expect(s.clarification).toBeNull();
    expect(s.lastTool).toBeUndefined();
    expect(s.items).toHaveLength(before);
    // Ids keep counting after a clear: new items never reuse an id.
    s = reduce(s, { type: "ui.notice", level: "info", text: "New thread" });
    expect(new Set(s.items.map((i) => i.id)).size).toBe(s.items.length);
  });

  it("ui.ready marks the state ready and merges the status; todos toggle; exit arm", () => {
    let s = reduce(initialState(), { type: "ui.ready", status: { model: "test-model", approvalMode: "plan" } });
    expect(s.ready).toBe(true);
    expect(s.status).toMatchObject({ model: "test-model", approvalMode: "plan" });
    s = apply(s, { type: "ui.todos.toggle" });
    expect(s.todosExpanded).toBe(true);
    s = apply(s, { type: "ui.todos.toggle" }, { type: "ui.exit.arm", armed: true });
    expect(s.todosExpanded).toBe(false);
    expect(s.exitArmed).toBe(true);
  });

  it("run.started and run.completed update the thread id and usage", () => {
    const s = apply(initialState(), { type: "ui.run.begin" }, started, {
      type: "run.completed",
      thread_id: "t1",
      run_id: RUN,
      status: "success",
      stop_reason: "end_turn",
      final_text: "",
      usage: usage(3),
      thread_usage: usage(9),
      permission_denials: [],
    });
    expect(s.status.threadId).toBe("t1");
    expect(s.run?.runId).toBe(RUN);
    expect(s.status.usage).toEqual(usage(9));
  });
});

// ---------------------------------------------------------------------------------------------
// The invariant, over random sequences

const toolName = fc.constantFrom("bash", "read_file", "ask_clarification", "write_todos");
const callId = fc.constantFrom("c1", "c2", "c3", "c4");
const text = fc.string({ maxLength: 6 });

const action: fc.Arbitrary<ChatAction> = fc.oneof(
  fc.constant<ChatAction>(started),
  text.map((t): ChatAction => ({ type: "message.delta", run_id: RUN, text: t })),
  text.map((t): ChatAction => ({ type: "message.completed", run_id: RUN, text: t, tool_calls: [] })),
  fc.tuple(callId, toolName).map(([id, name]): ChatAction => ({ type: "tool.started", run_id: RUN, tool_call_id: id, name, args: {} })),
  fc
    .tuple(callId, toolName, fc.constantFrom("ok" as const, "error" as const), text)
    .map(([id, name, status, output]): ChatAction => ({ type: "tool.completed", run_id: RUN, tool_call_id: id, name, status, output })),
  fc.constantFrom("d1", "d2").map((id): ChatAction => ({ type: "delegation.updated", run_id: RUN, delegations: [{ id, description: id, subagent_type: "general", status: "running" }] })),
  fc.constant<ChatAction>({ type: "todos.updated", run_id: RUN, todos: [{ content: "x", status: "pending" }] }),
  fc.constant<ChatAction>({ type: "clarification.requested", run_id: RUN, clarification: { question: "?", clarification_type: "missing_info" } }),
  fc.constantFrom("a1", "a2").map((id): ChatAction => ({ type: "approval.requested", id, thread_id: "t", tool_call_id: id, tool: "bash", kind: "command", command: "rm -r x", reason: "r" })),
  fc.constantFrom("a1", "a2").map((id): ChatAction => ({ type: "ui.approval.answered", id })),
  fc.constant<ChatAction>({ type: "goal.continued", continuation_count: 1, reason: "more" }),
  fc.constant<ChatAction>({ type: "goal.evaluated", evaluation: { satisfied: false, blocker: "goal_not_met_yet", reason: "r" }, continuation_count: 1 }),
  fc.constant<ChatAction>({ type: "model.retry", run_id: RUN, attempt: 2, max_attempts: 4, delay_ms: 1000, reason: "HTTP 500" }),
  fc.constant<ChatAction>({ type: "error", message: "boom" }),
  text.map((t): ChatAction => ({ type: "ui.user", text: t })),
  fc.constant<ChatAction>({ type: "ui.run.begin" }),
  fc.constant<ChatAction>({ type: "ui.run.cancelling" }),
  fc
    .record({
      status: fc.constantFrom("success" as const, "error" as const, "interrupted" as const, "timeout" as const),
      stop_reason: fc.constantFrom("end_turn", "clarification", "turn_capped", "interrupted"),
    })
    .map(({ status, stop_reason }): ChatAction => ({ type: "ui.run.end", end: { status, stop_reason, usage: usage(2) } })),
  fc.option(text, { nil: undefined }).map((error): ChatAction => ({ type: "ui.run.end", error })),
  fc.constant<ChatAction>({ type: "ui.tool.expand" }),
  fc.constant<ChatAction>({ type: "ui.todos.toggle" }),
  fc.constant<ChatAction>({ type: "ui.clear" }),
  fc.constant<ChatAction>({ type: "ui.clarification.answered" }),
  text.map((t): ChatAction => ({ type: "ui.notice", level: "info", text: t })),
  fc.constant<ChatAction>({
    type: "ui.items",
    items: [
      { kind: "user", text: "u" },
      { kind: "assistant", text: "a" },
    ],
  }),
);

describe("reduce: invariants (property)", () => {
  it("items only grow, ids are unique and committed items never change; after ui.run.end nothing is live", () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        let s = initialState();
        for (const a of actions) {
          const prev = s;
          s = reduce(s, a);
          expect(s.items.length).toBeGreaterThanOrEqual(prev.items.length);
          // The committed prefix is untouched (same objects: <Static> never redraws them).
          for (let i = 0; i < prev.items.length; i++) expect(s.items[i]).toBe(prev.items[i]);
          expect(new Set(s.items.map((it) => it.id)).size).toBe(s.items.length);
          if (a.type === "ui.run.end") {
            expect(s.streaming).toBe("");
            expect(s.tools).toEqual([]);
            expect(s.delegations).toEqual([]);
            expect(s.approvals).toEqual([]);
            expect(s.run).toBeNull();
          }
          // ask_clarification is never a card, live or committed.
          expect(s.tools.some((t) => t.name === "ask_clarification")).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("context fill and notes", () => {
  it("the last call's usage sets the fill, a compaction lowers it to its estimate, a new thread clears it; notes follow notes.updated", () => {
    let s = initialState({ contextWindow: 32_768 });
    s = reduce(s, { type: "message.completed", run_id: "r", text: "hi", tool_calls: [], usage: { input_tokens: 20_000, output_tokens: 500, total_tokens: 20_500 } });
    expect(s.status.context).toEqual({ tokens: 20_500, estimated: false });
    s = reduce(s, { type: "context.compacted", run_id: "r", messages: 30, tokens_before: 20_500, tokens_after: 6_000, archived_from: 1, archived_to: 30 });
    expect(s.status.context).toEqual({ tokens: 6_000, estimated: true });
    s = reduce(s, { type: "notes.updated", run_id: "r", notes: "next: fix CRLF" });
    expect(s.notes).toBe("next: fix CRLF");
    s = reduce(s, { type: "ui.clear" });
    expect(s.status.context).toBeUndefined();
    expect(s.notes).toBe("");
  });
});

describe("reduce: presented files", () => {
  it("files.presented adds one line to the transcript naming the files' real paths", () => {
    const s = apply(initialState(), { type: "ui.run.begin" }, started, { type: "files.presented", run_id: RUN, files: ["/home/u/.deerflow/threads/t1/outputs/report.md"] });
    expect(s.items).toEqual([{ kind: "notice", id: "i1", level: "info", text: "presented file: /home/u/.deerflow/threads/t1/outputs/report.md" }]);
  });
});
