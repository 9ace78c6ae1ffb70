// The eval harness with the scripted model, in process (the CLI is covered by eval-cli.test.ts): every task of the
// built-in suite passes its checker with its scripted correct solution and fails it with its scripted wrong one; a
// hanging task is cut by its time limit; two runs of the same script give the same results. Attempts run two at a
// time and share one data directory (CPU: the suite runs ~44 attempts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, requireModel } from "../../src/config/load.js";
import { formatReport } from "../../src/eval/report.js";
import type { AttemptResult, EvalContext } from "../../src/eval/run-task.js";
import { runSuite } from "../../src/eval/suite.js";
import { DEFAULT_TASKS_DIR, TASK_KINDS, loadTasks } from "../../src/eval/task.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { closeShellSessions } from "../../src/sandbox/run-shell.js";
import { playSolutions, solutionOf } from "../support/eval-script.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/eval", import.meta.url));
// EVAL_ONLY=a,b narrows the suite while debugging a task (the count check then fails, on purpose).
const tasks = loadTasks(DEFAULT_TASKS_DIR, process.env.EVAL_ONLY?.split(","));

let root: string;
let server: TestModelServer;

function context(name: string): EvalContext {
  const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-key-123456", DEERFLOW_MODEL: "test-model", HOME: root };
  const config = loadConfig({ cwd: root, env, userHome: root, flags: { home: join(root, name, "home"), defaultApproval: "auto-edit", noMemory: true } });
  return { config, model: requireModel(config), scratch: join(root, name), approveGuarded: false };
}

/** Runs `list` with the given solution of each task, two at a time, on a fresh server (its ids start over). */
async function play(name: string, list: typeof tasks, which: "correct" | "wrong") {
  await server?.close();
  server = await startTestModelServer(playSolutions(list.map((task) => ({ task, solution: solutionOf(task, which) }))));
  return runSuite(list, context(name), { repeat: 1, parallel: 2 });
}

const failuresOf = (r: AttemptResult) => `${r.task}: ${r.failures.join("\n")}`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "deerflow-eval-"));
});
afterAll(async () => {
  await closeShellSessions();
  await ThreadRuntime.closeAll();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the eval suite", () => {
  it("has at least 20 tasks covering every kind of the issue", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(tasks.map((t) => t.kind))).toEqual(new Set(TASK_KINDS));
  });

  let correct: Awaited<ReturnType<typeof play>>;
  it("every task's scripted correct solution passes its checker", async () => {
    correct = await play("correct", tasks, "correct");
    console.log(formatReport(correct));
    for (const r of correct.results) expect(r.pass, failuresOf(r)).toBe(true);
    expect(correct.results.map((r) => r.task)).toEqual(tasks.map((t) => t.id));
  });

  it("every task's scripted wrong solution fails its checker", async () => {
    const wrong = await play("wrong", tasks, "wrong");
    for (const r of wrong.results) expect(r.pass, `${r.task} passed with its wrong solution`).toBe(false);
  });

  it("the results are reproducible: the same script gives the same rows", async () => {
    // A second run of a sample of kinds (subagents in parallel and compaction among them, to keep the CPU modest).
    const sample = tasks.filter((t) => ["dirty-tree", "split-packages", "long-compaction", "clarify-config", "multi-step-calc", "explain-lru"].includes(t.id));
    const again = await play("again", sample, "correct");
    // Wall time aside, what the report measures comes from the model's replies and the checker. Token counts are
    // the test server's estimate of the request text, which holds tool output such as `node --test`'s timings: equal
    // within a hundredth.
    const row = (r: AttemptResult) => ({ task: r.task, pass: r.pass, turns: r.turns, stop: r.stop_reason, guard: r.guard, tools: r.tools, changed: r.changed });
    const first = correct.results.filter((r) => sample.some((t) => t.id === r.task));
    expect(again.results.map(row)).toEqual(first.map(row));
    for (const [i, r] of again.results.entries()) expect(Math.abs(r.tokens.total_tokens - first[i]!.tokens.total_tokens)).toBeLessThanOrEqual(first[i]!.tokens.total_tokens / 100);
  });

  it("a refused command shows in the guard column: denied (asks, headless) and blocked (never runs)", async () => {
    const [cleanup] = tasks.filter((t) => t.id === "cleanup-generated");
    const [dirty] = tasks.filter((t) => t.id === "dirty-tree");
    await server?.close();
    server = await startTestModelServer(
      playSolutions([
        { task: cleanup!, solution: [{ toolCalls: [{ name: "bash", args: { command: "rm -rf build" } }] }, { content: "Could not delete build/." }] },
        { task: dirty!, solution: [{ toolCalls: [{ name: "bash", args: { command: "rm -rf /" } }] }, { content: "Refused." }] },
      ]),
    );
    const report = await runSuite([cleanup!, dirty!], context("guards"), { repeat: 1, parallel: 1 });
    expect(report.results.map((r) => [r.task, r.guard, r.pass])).toEqual([
      ["cleanup-generated", "denied", false],
      ["dirty-tree", "blocked", false],
    ]);
  });

  it("a task that hangs is cut by its time limit and fails; the suite goes on", async () => {
    const [hang] = loadTasks(FIXTURES, ["hang"]);
    const [quick] = tasks.filter((t) => t.id === "fix-paginate");
    await server?.close();
    server = await startTestModelServer(
      playSolutions([
        { task: hang!, solution: [{ hang: true }] },
        { task: quick!, solution: solutionOf(quick!, "correct") },
      ]),
    );
    const report = await runSuite([hang!, quick!], context("hang"), { repeat: 1, parallel: 1 });
    const h = report.results.find((r) => r.task === "hang");
    const q = report.results.find((r) => r.task === "fix-paginate");
    expect(h).toMatchObject({ task: "hang", pass: false, status: "timeout", stop_reason: "timeout" });
    expect(h!.error).toMatch(/time limit of 2 s/);
    expect(q).toMatchObject({ task: "fix-paginate", pass: true });
  });
});
