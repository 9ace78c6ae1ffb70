// End to end: `deerflow run --goal` works unattended until the goal is met or honestly blocked.
import { fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { createLeadAgent } from "../../src/agent/lead-agent.js";
import { openSqliteStore as openStore } from "../../src/persistence/store.js";
import { headlessBroker } from "../../src/sandbox/approvals.js";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { isEvaluator, verdict } from "../support/requests.js";
import type { ScriptedReply } from "../support/openai-server.js";

const e2e = useE2E();
let sb: Sandbox;

/** The agent's replies and the evaluator's verdicts, each from its own queue. */
function script(agent: ScriptedReply[], verdicts: ScriptedReply[]) {
  e2e.server.setScript((req) => (isEvaluator(req) ? (verdicts.length > 1 ? verdicts.shift()! : verdicts[0]!) : (agent.shift() ?? { content: "same reply" })));
}

async function runGoal(args: string[]) {
  const r = await runCli(sb, ["run", "--output-format", "json", ...args]);
  return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

describe("deerflow run --goal", () => {
  it("a goal met after one continuation: exit 0, goal_outcome recorded, the continuation is hidden from the transcript", async () => {
    sb = e2e.sandbox();
    script(
      [{ toolCalls: [{ id: "w", name: "write_file", args: { path: "hello.txt", content: "hello" } }] }, { content: "I wrote hello.txt." }, { content: "Verified: hello.txt contains hello." }],
      [
        verdict({ satisfied: false, blocker: "goal_not_met_yet", reason: "no evidence the file has the right content" }),
        verdict({ satisfied: true, blocker: "none", reason: "the file content was shown" }),
      ],
    );
    const r = await runGoal(["--goal", "hello.txt contains hello"]);
    expect(r.exitCode).toBe(0);
    expect(r.json.goal).toMatchObject({ objective: "hello.txt contains hello", outcome: "achieved", continuation_count: 1 });
    expect(r.json.goal.goal_outcome).toMatchObject({ status: "achieved", objective: "hello.txt contains hello" });
    expect(r.json.final_text).toBe("Verified: hello.txt contains hello.");
    // In the thread: the goal is cleared and goal_outcome recorded (one write), and the run records are there.
    // New threads are delta (the default mode).
    const store = openStore(sb.home, "delta");
    try {
      const agent = createLeadAgent({ model: fakeModel(), checkpointer: store.saver, channelMode: "delta", approval: { mode: "ask", broker: headlessBroker({ yes: false }) } });
      const state = (await agent.graph.getState({ configurable: { thread_id: r.json.thread_id } } as never)).values as Record<string, any>;
      expect(state.goal).toBeNull();
      expect(state.goal_outcome).toMatchObject({ status: "achieved", continuation_count: 1 });
      expect(store.runs.forThread(r.json.thread_id).map((x) => x.status)).toEqual(["success", "success"]);
    } finally {
      store.close();
    }
    const agentRequests = e2e.server.requests.filter((q) => !isEvaluator(q));
    const continuation = JSON.stringify(agentRequests.at(-1)!.body.messages);
    expect(continuation).toContain("no evidence the file has the right content");
    expect(r.stderr).toMatch(/continuing toward the goal/);
    // The evaluator never sees the hidden continuation message.
    const lastEval = JSON.stringify(e2e.server.requests.filter(isEvaluator).at(-1)!.body.messages);
    expect(lastEval).toContain("Verified: hello.txt contains hello.");
    expect(lastEval).not.toContain("<system-reminder>");
  });

  it("a goal without progress stands down within the caps: exit 4", async () => {
    sb = e2e.sandbox();
    script([], [verdict({ satisfied: false, blocker: "goal_not_met_yet", reason: "nothing changed" })]);
    const r = await runGoal(["--goal", "make the tests pass", "--max-continuations", "5"]);
    expect(r.exitCode).toBe(4);
    expect(r.json.goal.outcome).toBe("not_achieved");
    expect(r.json.goal.reason).toMatch(/progress/);
    const evaluations = e2e.server.requests.filter(isEvaluator).length;
    expect(evaluations).toBeGreaterThanOrEqual(2);
    expect(evaluations).toBeLessThanOrEqual(4);
  });

  it("a goal blocked on needs_user_input exits 3", async () => {
    sb = e2e.sandbox();
    script([{ content: "I need the production database password to continue." }], [verdict({ satisfied: false, blocker: "needs_user_input", reason: "a secret only the user has" })]);
    const r = await runGoal(["--goal", "migrate the production database"]);
    expect(r.exitCode).toBe(3);
    expect(r.json.goal.outcome).toBe("needs_user_input");
  });

  it("unattended: a clarification question is answered 'proceed with your best judgment', never waits", async () => {
    sb = e2e.sandbox();
    script(
      [{ toolCalls: [{ id: "q", name: "ask_clarification", args: { question: "Tabs or spaces?", clarification_type: "approach_choice" } }] }, { content: "Assuming spaces (the repo's style). Done." }],
      [verdict({ satisfied: true, blocker: "none", reason: "low-risk assumption stated", relied_on_assumption: true })],
    );
    const r = await runGoal(["--goal", "format the code"]);
    expect(r.exitCode).toBe(0);
    const answered = JSON.stringify(e2e.server.requests.filter((q) => !isEvaluator(q))[1]!.body.messages);
    expect(answered).toContain("proceed with your best judgment");
    expect(r.json.goal.goal_outcome.relied_on_assumption).toBe(true);
  });
});
