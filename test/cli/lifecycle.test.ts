// The run lifecycle through the CLI, as a user and a hostile environment meet it: a malformed agent file,
// kill -9, SIGTERM, a run timeout, a repeated --input-id, a clarification that must still title the thread, a data
// directory that is a file, and a corrupted database repaired with `doctor --repair`. The CLI runs in-process
// (runCli) except where a process is killed: kill -9 and SIGTERM spawn the built bin/deerflow.
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();

const noInternalError = (s: string) => {
  expect(s).not.toMatch(/internal error/i);
  expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);
};

async function threads(sb: Sandbox): Promise<{ id: string; status: string; title: string | null }[]> {
  const r = await runCli(sb, ["threads", "--json"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Waits (by event, not by clock) until the model server has received `n` conversation requests. */
async function requestsReach(n: number): Promise<void> {
  for (let i = 0; i < 6000 && e2e.server.requests.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  expect(e2e.server.requests.length).toBeGreaterThanOrEqual(n);
}

const ask = { toolCalls: [{ id: "q1", name: "ask_clarification", args: { question: "Which database should I use?", clarification_type: "approach_choice", options: ["PostgreSQL", "SQLite"] } }] };

describe("run lifecycle", () => {
  it("a malformed .deerflow/agents/*.md is a configuration error (exit 2, names the file) and the thread is not left running", async () => {
    const sb = e2e.sandbox();
    mkdirSync(join(sb.cwd, ".deerflow", "agents"), { recursive: true });
    writeFileSync(join(sb.cwd, ".deerflow", "agents", "reviewer.md"), "no front matter here\n");
    const r = await runCli(sb, ["run", "hello"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("reviewer.md");
    expect(r.stderr).toMatch(/front matter/);
    noInternalError(r.stderr);
    expect(e2e.server.requests).toHaveLength(0);
    const list = await threads(sb);
    expect(list).toHaveLength(1);
    expect(list[0]!.status).toBe("error");
  });

  it("kill -9 during a run: `threads` shows the thread interrupted once the process is gone", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const child = sb.spawn(["run", "--output-format", "stream-json", "work on it"]);
    await requestsReach(1);
    const running = await threads(sb);
    expect(running[0]!.status).toBe("running");
    child.kill("SIGKILL");
    await child;
    const after = await threads(sb);
    expect(after[0]!.status).toBe("interrupted");
    // the thread is usable again: the stale lock is gone
    e2e.server.push({ content: "continued" });
    const next = await runCli(sb, ["run", "--thread", after[0]!.id, "go on"]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).toBe("continued\n");
  });

  it("SIGTERM: the JSON result and `threads` agree (interrupted, exit 130)", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const child = sb.spawn(["run", "--output-format", "json", "work on it"]);
    await requestsReach(1);
    child.kill("SIGTERM");
    const r = await child;
    expect(r.exitCode).toBe(130);
    const json = JSON.parse(String(r.stdout));
    expect(json.status).toBe("interrupted");
    expect(json.stop_reason).toBe("interrupted");
    const list = await threads(sb);
    expect(list[0]!.id).toBe(json.thread_id);
    expect(list[0]!.status).toBe("interrupted");
  });

  it("--timeout ends a run that takes too long with status timeout (exit 5); runTimeout in .deerflowrc does the same", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const r = await runCli(sb, ["run", "--timeout", "1", "--output-format", "json", "slow work"]);
    expect(r.exitCode).toBe(5);
    const json = JSON.parse(r.stdout);
    expect(json.status).toBe("timeout");
    expect(r.stderr).toMatch(/time limit of 1 s/);
    noInternalError(r.stderr);
    expect((await threads(sb))[0]!.status).toBe("timeout");

    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ runTimeout: 1 }));
    trustProject(sb);
    e2e.server.push({ hang: true });
    const again = await runCli(sb, ["run", "--output-format", "json", "slow again"]);
    expect(again.exitCode).toBe(5);
    expect(JSON.parse(again.stdout).status).toBe("timeout");
  });

  it("a repeated --input-id after success returns the recorded result without calling the model (same exit)", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Done: created notes.md" });
    const first = await runCli(sb, ["run", "--input-id", "job-1", "--output-format", "json", "create notes.md"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout);
    const again = await runCli(sb, ["run", "--thread", a.thread_id, "--input-id", "job-1", "--output-format", "json", "create notes.md"]);
    expect(again.exitCode, again.stderr).toBe(0);
    const b = JSON.parse(again.stdout);
    expect(b).toMatchObject({ thread_id: a.thread_id, run_id: a.run_id, status: "success", stop_reason: "end_turn", final_text: "Done: created notes.md" });
    expect(e2e.server.requests).toHaveLength(1);

    // a question is recorded too: the repeat asks it again with exit 3, still without a model call
    e2e.server.push(ask);
    const q = await runCli(sb, ["run", "--thread", a.thread_id, "--input-id", "job-2", "which db?"]);
    expect(q.exitCode).toBe(3);
    const q2 = await runCli(sb, ["run", "--thread", a.thread_id, "--input-id", "job-2", "which db?"]);
    expect(q2.exitCode).toBe(3);
    expect(q2.stdout).toContain("Which database should I use?");
    expect(e2e.server.requests).toHaveLength(2);
  });

  it("a thread whose first run ends in a question gets a title (the run ends through the after-agent hooks)", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(ask);
    e2e.server.titleReply = { content: "Database choice" };
    const r = await runCli(sb, ["run", "--output-format", "json", "set up the service database"]);
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout).stop_reason).toBe("clarification");
    expect(e2e.server.titleRequests).toHaveLength(1);
    const list = await threads(sb);
    expect(list[0]).toMatchObject({ status: "input_required", title: "Database choice" });
  });

  it("a data directory that is a file (or inside one) is named, exit 2", async () => {
    const sb = e2e.sandbox();
    const file = join(sb.userHome, "not-a-dir");
    writeFileSync(file, "x");
    for (const home of [file, join(file, "sub")]) {
      const r = await runCli(sb, ["run", "hi"], { env: { DEERFLOW_HOME: home } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(home);
      // The fix is moving the file, not permissions.
      expect(r.stderr).toMatch(/Move (the|that) file out of the way/);
      expect(r.stderr).not.toMatch(/permissions/);
      noInternalError(r.stderr);
    }
    const t = await runCli(sb, ["threads"], { env: { DEERFLOW_HOME: file } });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toContain(file);
    expect(t.stdout).not.toContain("No threads yet");
  });
});

describe("a corrupted database", () => {
  async function twoThreads(sb: Sandbox): Promise<[string, string]> {
    e2e.server.push({ content: "small answer" });
    const a = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "first thread"])).stdout).thread_id as string;
    // Random text: stored values are deflated (persistence/value-compression.ts), and a repeated letter would take a page.
    e2e.server.push({ content: `big:${randomBytes(300_000).toString("base64")}` });
    const b = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "second thread"])).stdout).thread_id as string;
    return [a, b];
  }

  it("a bad header: every command says which file and how to recover; doctor --repair backs it up and starts clean", async () => {
    const sb = e2e.sandbox();
    await twoThreads(sb);
    const db = join(sb.home, "deerflow.sqlite");
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(100, 0x41), 0, 100, 0);
    closeSync(fd);
    for (const args of [["threads"], ["run", "new work"]]) {
      const r = await runCli(sb, args);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(db);
      expect(r.stderr).toContain("deerflow doctor --repair");
      noInternalError(r.stderr);
    }
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toMatch(/✗ db\s+.*damaged/);
    const repair = await runCli(sb, ["doctor", "--repair"]);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/backed up the damaged database to .*deerflow\.sqlite\.corrupt-/);
    e2e.server.push({ content: "fresh start" });
    const next = await runCli(sb, ["run", "new work"]);
    expect(next.exitCode, next.stderr).toBe(0);
  });

  it("garbage in the middle: doctor --repair recovers the intact thread and reports the damaged one", async () => {
    const sb = e2e.sandbox();
    const [a, b] = await twoThreads(sb);
    const db = join(sb.home, "deerflow.sqlite");
    const size = statSync(db).size;
    // the second thread's 400 KB answer fills the file's later pages: overwrite a stretch of them
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(64 * 1024, 0xee), 0, 64 * 1024, Math.floor(size * 0.6));
    closeSync(fd);
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.stdout).toMatch(/✗ db\s+.*damaged.*doctor --repair/);
    const repair = await runCli(sb, ["doctor", "--repair"]);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(0);
    expect(repair.stdout).toContain(`thread ${a}`);
    expect(repair.stdout).toMatch(new RegExp(`thread ${a}.*: recovered`));
    expect(readFileSync(db).length).toBeGreaterThan(0);
    const list = await threads(sb);
    expect(list.map((t) => t.id)).toContain(a);
    // the intact thread continues with its history
    e2e.server.push({ content: "still here" });
    const next = await runCli(sb, ["run", "--thread", a, "and now?"]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).toContain("small answer");
    expect(b).not.toBe(a);
  });

  it("a run that reaches the graph's step limit is a guard stop (exit 5) with a hint, rolled back, never 'internal error'", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "first answer", usage: { prompt_tokens: 10, completion_tokens: 5 } });
    const first = await runCli(sb, ["run", "--output-format", "json", "start"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const threadId = JSON.parse(first.stdout).thread_id as string;
    // A model that never stops working, every call different (so loop detection and per-tool caps stay quiet).
    const tools = [
      (i: number) => ({ name: "glob", args: { pattern: `*.n${i}` } }),
      (i: number) => ({ name: "grep", args: { pattern: `never-${i}` } }),
      (i: number) => ({ name: "ls", args: { path: ".", description: `look ${i}` } }),
      (i: number) => ({ name: "write_file", args: { path: `f${i}.txt`, content: String(i) } }),
      (i: number) => ({ name: "read_file", args: { path: `f${i - 1}.txt` } }),
    ];
    e2e.server.setScript((_req, i) => ({ toolCalls: [{ ...tools[i % tools.length]!(i), id: `c${i}` }], usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    // A 40-step limit proves the same as the default 400 in a tenth of the turns (DEERFLOW_RUN_STEP_LIMIT).
    const r = await runCli(sb, ["run", "--thread", threadId, "work forever"], { env: { DEERFLOW_RUN_STEP_LIMIT: "40" } });
    noInternalError(r.stderr);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/limit of \d+ graph steps/);
    expect(r.stderr).toContain(`deerflow run --thread ${threadId}`);
    // Rolled back: the next run sees the thread as after the first run.
    e2e.server.setScript([{ content: "fine" }]);
    const next = await runCli(sb, ["run", "--thread", threadId, "and now?"]);
    expect(next.exitCode, next.stderr).toBe(0);
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("work forever");
  }, 600_000);
});
