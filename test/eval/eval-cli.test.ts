// `deerflow eval` as a user meets it: the CLI against the scripted model. The table and the JSON report, a
// comparison of two reports, --record, and the replay of a recorded run through the test server (the regression
// test of the issue), plus the one-line errors of bad input.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TASKS_DIR, loadTasks } from "../../src/eval/task.js";
import { type Sandbox, makeSandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { playSolutions, replayRecording, solutionOf } from "../support/eval-script.js";
import { type TestModelServer, startTestModelServer } from "../support/openai-server.js";

const RECORDED = fileURLToPath(new URL("../fixtures/eval/recorded/fix-slugify-1.json", import.meta.url));
const tasks = loadTasks(DEFAULT_TASKS_DIR, ["fix-slugify", "clarify-config"]);

let server: TestModelServer;
let sb: Sandbox;

beforeAll(async () => {
  server = await startTestModelServer();
  sb = makeSandbox(server.url);
});
afterAll(async () => {
  await server?.close();
  sb?.cleanup();
});

const play = (which: "correct" | "wrong") => server.setScript(playSolutions(tasks.map((task) => ({ task, solution: solutionOf(task, which) }))));
const oneLine = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("deerflow:"));

describe("deerflow eval", () => {
  it("runs the chosen tasks: a table on stdout, the JSON report in --out, each attempt's exchanges in --record", async () => {
    play("correct");
    const r = await runCli(sb, ["eval", "--tasks", "fix-slugify,clarify-config", "--parallel", "2", "--out", "a.json", "--record", "rec"]);
    expect(r.stderr).toContain("pass  fix-slugify");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\| clarify-config +\| clarify-first +\| pass +\| +2 \|/);
    expect(r.stdout).toMatch(/\| fix-slugify +\| fix-failing-test +\| pass +\| +4 \|/);
    expect(r.stdout).toContain("2/2 passed (100%) with test-model");

    const report = JSON.parse(readFileSync(join(sb.cwd, "a.json"), "utf8"));
    expect(report).toMatchObject({ version: 1, model: "test-model", repeat: 1, summary: { attempts: 2, passed: 2 } });
    expect(report.results.map((x: { task: string; stop_reason: string }) => [x.task, x.stop_reason])).toEqual([
      ["clarify-config", "clarification"],
      ["fix-slugify", "end_turn"],
    ]);
    const slug = report.results[1];
    expect(slug).toMatchObject({ turns: 4, guard: null, tools: { bash: 2, read_file: 1, str_replace: 1 }, changed: ["src/slug.js"] });
    expect(slug.tokens.total_tokens).toBeGreaterThan(0);

    // The recording holds each request and the response as sent, never a header (the API key travels in one).
    const files = readdirSync(join(sb.cwd, "rec")).sort();
    expect(files).toEqual(["clarify-config-1.json", "fix-slugify-1.json"]);
    const rec = readFileSync(join(sb.cwd, "rec", "fix-slugify-1.json"), "utf8");
    expect(rec).not.toContain("sk-test-key-123456");
    const parsed = JSON.parse(rec);
    expect(parsed.exchanges.filter((e: { path: string }) => e.path === "/chat/completions").length).toBeGreaterThanOrEqual(4);
    expect(parsed.exchanges.find((e: { path: string }) => e.path === "/chat/completions").response).toContain("data: ");
  });

  it("--compare sets two reports side by side and names what got worse", async () => {
    play("wrong");
    const r = await runCli(sb, ["eval", "--tasks", "fix-slugify,clarify-config", "--out", "b.json"]);
    expect(r.exitCode).toBe(4); // some task failed
    expect(r.stdout).toContain("0/2 passed (0%)");
    expect(r.stdout).toMatch(/Failed:\n- clarify-config: stop reason end_turn, expected clarification/);
    const c = await runCli(sb, ["eval", "--compare", "a.json", "b.json"]);
    expect(c.exitCode).toBe(0);
    expect(c.stdout).toMatch(/\| fix-slugify +\| 1\/1 → 0\/1 \|.*\| WORSE +\|/);
    expect(c.stdout).toContain("passed 2/2 (100%) → 0/2 (0%); 0 better, 2 worse.");
  });

  it("a recorded run replays green through the test server", async () => {
    // test/fixtures/eval/recorded/fix-slugify-1.json was written by `deerflow eval --record` (see its README).
    const { task, replies } = replayRecording(RECORDED);
    expect(task).toBe("fix-slugify");
    server.setScript(replies);
    const before = server.requests.length;
    const r = await runCli(sb, ["eval", "--tasks", "fix-slugify", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.results[0]).toMatchObject({ task: "fix-slugify", pass: true, stop_reason: "end_turn" });
    // Every recorded reply was used, in order, and nothing more was asked.
    expect(server.requests.length - before).toBe(replies.length);
  });

  it("bad input: one line naming what is wrong, exit 2, nothing run", async () => {
    const unknown = await runCli(sb, ["eval", "--tasks", "fix-slugify,nope"]);
    expect(unknown.exitCode).toBe(2);
    expect(oneLine(unknown.stderr)).toEqual([expect.stringMatching(/Unknown eval task: nope\. .*Known tasks: .*fix-slugify/)]);

    const one = await runCli(sb, ["eval", "--compare", "a.json"]);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toMatch(/--compare takes two reports \(got 1\)/);
    const missing = await runCli(sb, ["eval", "--compare", "a.json", "missing.json"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read the eval report missing\.json: no such file/);
    writeFileSync(join(sb.cwd, "other.json"), '{"hello": 1}');
    const other = await runCli(sb, ["eval", "--compare", "a.json", "other.json"]);
    expect(other.stderr).toMatch(/other\.json is not a deerflow eval report/);

    const suite = join(sb.cwd, "suite");
    mkdirSync(join(suite, "broken", "repo"), { recursive: true });
    writeFileSync(join(suite, "broken", "task.json"), JSON.stringify({ kind: "fix-failing-test", title: "t", prompt: "p", check: { run: "node --test" } }));
    const bad = await runCli(sb, ["eval", "--suite", suite]);
    expect(bad.exitCode).toBe(2);
    expect(oneLine(bad.stderr)).toEqual([expect.stringMatching(/broken\/task\.json: check\.run: .*expected array/)]);

    const zero = await runCli(sb, ["eval", "--repeat", "0"]);
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toMatch(/--repeat must be a positive integer/);
    expect(existsSync(join(sb.home, "deerflow.sqlite"))).toBe(false);
  });

  it("--list names the built-in tasks without a model", async () => {
    const r = await runCli(sb, ["eval", "--list"], { env: { OPENAI_BASE_URL: undefined, DEERFLOW_MODEL: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split("\n").length).toBeGreaterThanOrEqual(20);
    expect(r.stdout).toMatch(/^split-packages\tsplit-subagents\t/m);
  });
});
