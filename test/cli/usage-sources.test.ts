// What a run spent, counted whole: the lead's calls, its subagents' and the side calls' (the title), in `usage` and
// `thread_usage` with the per-source breakdown, in the JSON result and run.completed; a model failure's
// run.completed still says what was spent. The token budget acts on that total.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { ScriptedReply } from "../support/openai-server.js";
import { isChild, isEvaluator, verdict } from "../support/requests.js";

const e2e = useE2E();
let sb: Sandbox;

const task = (id: string, what: string) => ({ id, name: "task", args: { description: `do ${what}`, prompt: `child ${what}`, subagent_type: "general-purpose" } });
const use = (prompt_tokens: number, completion_tokens: number) => ({ prompt_tokens, completion_tokens });
const tokens = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens, total_tokens: input_tokens + output_tokens });

/** Parent replies in order; every child answers at once with 50/5 tokens. */
function script(parent: ScriptedReply[], child: ScriptedReply = { content: "child done", usage: use(50, 5) }) {
  e2e.server.setScript((req) => (isChild(req) ? child : (parent.shift() ?? { content: "parent done", usage: use(1, 1) })));
}

const twoSubagents = () => {
  script([
    { toolCalls: [task("a", "one"), task("b", "two")], usage: use(100, 10) },
    { content: "both done", usage: use(200, 20) },
  ]);
  e2e.server.titleReply = { content: "Two helpers", usage: use(7, 3) };
};

describe("usage counts everything the run spent", () => {
  it("a run with two subagents reports their tokens and the title's beside the lead's (spawned: the JSON result contract)", async () => {
    sb = e2e.sandbox();
    twoSubagents();
    const r = await sb.run(["run", "--output-format", "json", "delegate twice"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(e2e.server.requests.filter(isChild)).toHaveLength(2);
    const whole = { ...tokens(407, 43), by_source: { lead: tokens(300, 30), subagents: tokens(100, 10), title: tokens(7, 3) } };
    expect(out.usage).toEqual(whole);
    // A new thread: the thread's tokens are this run's.
    expect(out.thread_usage).toEqual(whole);
  });

  it("the thread's stored totals keep every source across runs, and run.completed carries them", async () => {
    sb = e2e.sandbox();
    twoSubagents();
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "delegate twice"])).stdout);
    script([
      { toolCalls: [task("c", "three")], usage: use(300, 30) },
      { content: "done again", usage: use(400, 40) },
    ]);
    // Memory extraction (its own test below) stays out of this count.
    const r = await runCli(sb, ["run", "--no-memory", "--output-format", "stream-json", "--thread", first.thread_id, "once more"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const completed = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(completed.type).toBe("run.completed");
    // No title this time (the thread has one): lead 700/70, one child 50/5.
    expect(completed.usage).toEqual({ ...tokens(750, 75), by_source: { lead: tokens(700, 70), subagents: tokens(50, 5) } });
    expect(completed.thread_usage).toEqual({ ...tokens(1157, 118), by_source: { lead: tokens(1000, 100), subagents: tokens(150, 15), title: tokens(7, 3) } });
  });

  it("the token budget counts the subagents' tokens: children that spend the budget stop the lead", async () => {
    sb = e2e.sandbox();
    // Lead calls alone (10 + 10) stay far under 1000; the children's 2 × 600 pass it.
    script(
      [
        { toolCalls: [task("a", "one"), task("b", "two")], usage: use(5, 5) },
        { toolCalls: [{ id: "ls", name: "bash", args: { command: "ls" } }], usage: use(5, 5) },
        { content: "never reached", usage: use(5, 5) },
      ],
      { content: "child done", usage: use(500, 100) },
    );
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ guards: { tokenBudget: 1000 } }));
    const r = await runCli(sb, ["run", "--output-format", "json", "delegate twice"]);
    const out = JSON.parse(r.stdout);
    expect(out.stop_reason, r.stderr).toBe("token_capped");
    expect(out.usage.by_source.subagents).toEqual(tokens(1000, 200));
  });
});

describe("run --goal counts its evaluator", () => {
  it("the goal's result: every run's tokens and the evaluator's; the thread keeps them for the next run", async () => {
    sb = e2e.sandbox();
    const agent: ScriptedReply[] = [
      { content: "first try", usage: use(100, 10) },
      { content: "second try", usage: use(200, 20) },
    ];
    const verdicts: ScriptedReply[] = [
      { ...verdict({ satisfied: false, blocker: "goal_not_met_yet", reason: "not yet" }), usage: use(20, 2) },
      { ...verdict({ satisfied: true, blocker: "none", reason: "done" }), usage: use(30, 3) },
    ];
    e2e.server.setScript((req) => (isEvaluator(req) ? verdicts.shift()! : (agent.shift() ?? { content: "more", usage: use(1, 1) })));
    e2e.server.titleReply = { content: "A goal", usage: use(7, 3) };
    const r = await runCli(sb, ["run", "--output-format", "json", "--goal", "reach it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const whole = { ...tokens(357, 38), by_source: { lead: tokens(300, 30), title: tokens(7, 3), goal: tokens(50, 5) } };
    expect(out.usage).toEqual(whole);
    expect(out.thread_usage).toEqual(whole);
    // Stored: the next run on the thread starts from it.
    e2e.server.setScript([{ content: "after", usage: use(1, 1) }]);
    const next = JSON.parse((await runCli(sb, ["run", "--no-memory", "--output-format", "json", "--thread", out.thread_id, "after"])).stdout);
    expect(next.thread_usage).toEqual({ ...tokens(358, 39), by_source: { ...whole.by_source, lead: tokens(301, 31) } });
  });
});

describe("memory extraction is the thread's, not a run's", () => {
  it("extraction after run 1 (drained at run 2's start) joins the thread's total at run 2, never run 2's usage", async () => {
    sb = e2e.sandbox();
    e2e.server.titleReply = { content: "Remembering", usage: use(7, 3) };
    e2e.server.memoryReply = { content: '{"facts": []}', usage: use(40, 4) };
    e2e.server.setScript([{ content: "first", usage: use(10, 1) }]);
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "one"])).stdout);
    expect(e2e.server.memoryRequests).toHaveLength(0);
    e2e.server.setScript([{ content: "second", usage: use(20, 2) }]);
    const second = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "--thread", first.thread_id, "two"])).stdout);
    expect(e2e.server.memoryRequests).toHaveLength(1);
    expect(second.usage).toEqual({ ...tokens(20, 2), by_source: { lead: tokens(20, 2) } });
    const thread = { ...tokens(77, 10), by_source: { lead: tokens(30, 3), title: tokens(7, 3), memory: tokens(40, 4) } };
    expect(second.thread_usage).toEqual(thread);
    // Counted once: run 1's extraction is not added again at run 3 (run 2's own extraction, 40/4, is).
    e2e.server.setScript([{ content: "third", usage: use(1, 1) }]);
    const third = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "--thread", first.thread_id, "three"])).stdout);
    expect(e2e.server.memoryRequests).toHaveLength(2);
    expect(third.thread_usage).toEqual({ ...tokens(118, 15), by_source: { lead: tokens(31, 4), title: tokens(7, 3), memory: tokens(80, 8) } });
  });
});

describe("a failed run's result says what it spent", () => {
  it("a model failure after retries: run.completed carries usage and thread_usage (spawned: the failure contract)", async () => {
    sb = e2e.sandbox();
    // One good call with a tool, then the endpoint fails for good (HTTP 400 is not retried).
    e2e.server.setScript([
      { toolCalls: [{ id: "ls", name: "bash", args: { command: "true" } }], usage: use(30, 3) },
      { status: 400, error: "bad request" },
    ]);
    const r = await sb.run(["run", "--output-format", "stream-json", "hi"]);
    expect(r.exitCode).toBe(1);
    const completed = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(completed).toMatchObject({ type: "run.completed", status: "error" });
    expect(completed.usage).toEqual({ ...tokens(30, 3), by_source: { lead: tokens(30, 3) } });
    // The run was rolled back (its work is gone from the thread), yet its tokens were spent: they are in the total.
    expect(completed.thread_usage).toEqual(completed.usage);
  });

  it("the JSON result of a failed continuation adds its tokens to what the thread had", async () => {
    sb = e2e.sandbox();
    e2e.server.setScript([{ content: "first", usage: use(10, 1) }]);
    e2e.server.titleReply = { content: "First", usage: use(7, 3) };
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "one"])).stdout);
    e2e.server.setScript([
      { toolCalls: [{ id: "t", name: "bash", args: { command: "true" } }], usage: use(20, 2) },
      { status: 400, error: "bad request" },
    ]);
    const r = await runCli(sb, ["run", "--output-format", "json", "--thread", first.thread_id, "two"]);
    expect(r.exitCode).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.usage).toEqual({ ...tokens(20, 2), by_source: { lead: tokens(20, 2) } });
    expect(first.thread_usage.total_tokens).toBe(21);
    expect(out.thread_usage).toEqual({ ...tokens(37, 6), by_source: { lead: tokens(30, 3), title: tokens(7, 3) } });
  });

  it("a run refused before it began spent nothing: usage and thread_usage are null", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["run", "--output-format", "json", "--thread", "no-such-thread", "hi"]);
    expect(r.exitCode).not.toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.usage).toBeNull();
    expect(out.thread_usage).toBeNull();
  });
});
