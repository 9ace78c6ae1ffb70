// End to end: runs never lose a thread. One active run per thread across processes, stale locks from killed
// processes recovered, failed runs rolled back, SIGINT/SIGKILL leave a usable thread, --max-turns caps a run.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let sb: Sandbox;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const roles = (req: RecordedRequest) =>
  (req.body.messages as { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[])
    .filter((m) => m.role !== "system" && !(typeof m.content === "string" && m.content.startsWith("<system-reminder>")))
    .map((m) => (m.role === "tool" ? `tool:${m.tool_call_id}` : m.role === "assistant" && m.tool_calls?.length ? "assistant+calls" : `${m.role}:${typeof m.content === "string" ? m.content : "…"}`));

function integrity(home: string): string {
  const db = new Database(join(home, "deerflow.sqlite"), { readonly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

/** Every tool call answered, right after its AI message; no user input twice. */
function assertValidConversation(req: RecordedRequest) {
  const msgs = req.body.messages as { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  for (let i = 0; i < msgs.length; i++) {
    const calls = msgs[i]!.tool_calls ?? [];
    const answers = msgs.slice(i + 1, i + 1 + calls.length).map((m) => m.tool_call_id);
    expect(answers.sort()).toEqual(calls.map((c) => c.id).sort());
  }
  const users = msgs.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
  expect(new Set(users).size).toBe(users.length);
}

describe("runs", () => {
  it("a second concurrent run on the same thread is refused (exit 1); the first one finishes", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "first" });
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "start"])).stdout);
    // The slow run's answer is held until the second run has been refused (an event, not a delay).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    e2e.server.setScript(async () => {
      await released;
      return { content: "slow answer" };
    });
    const slow = sb.spawn(["run", "--thread", first.thread_id, "slow one"]);
    await until(() => e2e.server.requests.length === 2);
    const second = await runCli(sb, ["run", "--thread", first.thread_id, "me too"]);
    release();
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`Thread ${first.thread_id} is busy`));
    const done = await slow;
    expect(done.exitCode).toBe(0);
    expect(String(done.stdout)).toBe("slow answer\n");
    expect(e2e.server.requests).toHaveLength(2);
  });

  it("SIGKILL during a long bash call: the database opens, the lock is recovered, the thread continues with its history", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "long", name: "bash", args: { command: "sleep 30" } }] });
    const child = sb.spawn(["run", "--output-format", "stream-json", "run the long thing"]);
    let out = "";
    child.stdout!.on("data", (d) => (out += String(d)));
    await until(() => out.includes('"tool.started"'));
    await sleep(300);
    child.kill("SIGKILL");
    await child.catch(() => undefined);
    const threadId = JSON.parse(out.split("\n")[0]!).thread_id;
    expect(integrity(sb.home)).toBe("ok");

    e2e.server.push({ content: "picked up where we left off" });
    const next = await runCli(sb, ["run", "--thread", threadId, "go on"]);
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toBe("picked up where we left off\n");
    const req = e2e.server.requests.at(-1)!;
    expect(roles(req)).toEqual(["user:run the long thing", "assistant+calls", "tool:long", "user:go on"]);
    expect(JSON.stringify(req.body.messages)).toMatch(/interrupted and did not return a result/);
    assertValidConversation(req);
    expect(integrity(sb.home)).toBe("ok");
  });

  it("a failed run rolls back: the thread is exactly as after the last good run", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "good answer" });
    const first = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "good question"])).stdout);
    e2e.server.push({ toolCalls: [{ id: "w", name: "write_file", args: { path: "half.txt", content: "x" } }] }, { status: 401, error: "key revoked" });
    const failed = await runCli(sb, ["run", "--thread", first.thread_id, "doomed question"]);
    expect(failed.exitCode).toBe(1);
    e2e.server.push({ content: "after the failure" });
    const after = await runCli(sb, ["run", "--thread", first.thread_id, "next question"]);
    expect(after.exitCode).toBe(0);
    expect(roles(e2e.server.requests.at(-1)!)).toEqual(["user:good question", "assistant:good answer", "user:next question"]);
  });

  it("--input-id: a retried input is applied once, even after its first run was killed", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "base" });
    const base = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "base"])).stdout);
    e2e.server.push({ content: "too slow", delayMs: 10_000 });
    const child = sb.spawn(["run", "--thread", base.thread_id, "--input-id", "job-42", "do the job"]);
    await until(() => e2e.server.requests.length === 2);
    child.kill("SIGKILL");
    await child.catch(() => undefined);
    e2e.server.setScript([{ content: "job done" }]);
    const retry = await runCli(sb, ["run", "--thread", base.thread_id, "--input-id", "job-42", "do the job"]);
    expect(retry.exitCode).toBe(0);
    expect(roles(e2e.server.requests.at(-1)!)).toEqual(["user:base", "assistant:base", "user:do the job"]);
  });

  it("--max-turns caps the model calls of a run: exit 5, turn_capped, no tool runs after the cap", async () => {
    sb = e2e.sandbox();
    let n = 0;
    e2e.server.setScript(() => ({ toolCalls: [{ name: "bash", args: { command: `echo step ${++n} >> steps.txt` } }] }));
    const r = await runCli(sb, ["run", "--max-turns", "2", "--output-format", "json", "keep going"]);
    expect(r.exitCode).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out.stop_reason).toBe("turn_capped");
    expect(e2e.server.requests).toHaveLength(2);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(sb.cwd, "steps.txt"), "utf8")).toBe("step 1\n");
  });

  it("SIGINT stops a run cleanly: exit 130, and the thread stays usable", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "never finished", delayMs: 10_000 });
    const child = sb.spawn(["run", "--output-format", "stream-json", "slow"]);
    let out = "";
    child.stdout!.on("data", (d) => (out += String(d)));
    await until(() => e2e.server.requests.length === 1);
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toMatch(/interrupted/);
    const threadId = JSON.parse(out.split("\n")[0]!).thread_id;
    e2e.server.setScript([{ content: "back again" }]);
    const next = await runCli(sb, ["run", "--thread", threadId, "again"]);
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toBe("back again\n");
  });

  it("crash loop: 20 runs killed at random moments, then a final run succeeds with a valid conversation", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "base" });
    const base = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "base question"])).stdout);
    let step = 0;
    e2e.server.setScript(() => {
      step++;
      return step % 2 ? { toolCalls: [{ name: "bash", args: { command: `echo ${step}; sleep 0.3` } }], delayMs: 50 } : { content: `answer ${step}`, delayMs: 50 };
    });
    let kills = 0;
    for (let i = 0; i < 20; i++) {
      const child = sb.spawn(["run", "--thread", base.thread_id, `attempt ${i}`]);
      // A run that ends before its moment is not waited out.
      const ended = child.then(
        () => undefined,
        () => undefined,
      );
      await Promise.race([sleep(300 + Math.floor(Math.random() * 1500)), ended]);
      if (child.exitCode === null && child.kill("SIGKILL")) kills++;
      await child.catch(() => undefined);
      expect(integrity(sb.home)).toBe("ok");
    }
    e2e.server.setScript([{ content: "final answer" }]);
    const last = await runCli(sb, ["run", "--thread", base.thread_id, "final question"]);
    expect(last.exitCode).toBe(0);
    expect(last.stdout).toBe("final answer\n");
    assertValidConversation(e2e.server.requests.at(-1)!);
    console.log(`crash loop: ${kills} kills survived`);
    expect(kills).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
