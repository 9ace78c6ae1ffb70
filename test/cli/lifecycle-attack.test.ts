// Attacking the run lifecycle: kill -9 at each point of a run (found by its stream-json events, not by the clock),
// two runs racing for one thread, and database files that are not databases. After each, `threads` must never show
// a dead run as running, and the thread must take the next run.
import { mkdirSync, truncateSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";

const e2e = useE2E();

async function threads(sb: Sandbox): Promise<{ id: string; status: string }[]> {
  const r = await runCli(sb, ["threads", "--json"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Runs `args` with stream-json and SIGKILLs the process right after the first event of type `at`. */
async function killAfter(sb: Sandbox, args: string[], at: string): Promise<void> {
  const child = sb.spawn([...args, "--output-format", "stream-json"]);
  let buf = "";
  await new Promise<void>((resolve) => {
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.split("\n").some((l) => l.includes(`"type":"${at}"`))) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    void child.then(
      () => resolve(),
      () => resolve(),
    );
  });
  await child.catch(() => {});
}

describe("attacking the run lifecycle", () => {
  for (const at of ["run.started", "message.delta", "tool.started", "tool.completed", "message.completed"]) {
    it(`kill -9 right after ${at}: the thread is not left running and takes the next run`, async () => {
      const sb = e2e.sandbox();
      e2e.server.push({ content: "hello", toolCalls: [{ name: "write_file", args: { path: "/mnt/user-data/workspace/a.txt", content: "x" } }], chunkDelayMs: 20 });
      e2e.server.push({ content: "written", chunkDelayMs: 20 });
      await killAfter(sb, ["run", "--yes", "write a file"], at);
      const [t] = await threads(sb);
      expect(t!.status).not.toBe("running");
      e2e.server.setScript([]);
      e2e.server.push({ content: "continued" });
      const next = await runCli(sb, ["run", "--thread", t!.id, "go on"]);
      expect(next.exitCode, next.stderr).toBe(0);
      expect(next.stdout).toBe("continued\n");
      expect((await threads(sb))[0]!.status).toBe("success");
    });
  }

  it("two runs racing for one thread: one works, the other is refused (busy, exit 1); the thread ends consistent", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "first" });
    const id = JSON.parse((await runCli(sb, ["run", "--output-format", "json", "start"])).stdout).thread_id as string;
    e2e.server.push({ hang: true });
    const a = sb.spawn(["run", "--thread", id, "--output-format", "json", "slow one"]);
    for (let i = 0; i < 3000 && e2e.server.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const b = await runCli(sb, ["run", "--thread", id, "--output-format", "json", "racing one"]);
    expect(b.exitCode).toBe(1);
    expect(b.stderr).toMatch(/is busy/);
    expect((await threads(sb))[0]!.status).toBe("running");
    a.kill("SIGTERM");
    const ra = await a;
    expect(ra.exitCode).toBe(130);
    expect((await threads(sb))[0]!.status).toBe("interrupted");
  });

  it("database files that are not databases: empty, truncated, a directory — named, never 'internal error'", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "big answer ".repeat(20_000) });
    expect((await runCli(sb, ["run", "make some history"])).exitCode).toBe(0);
    const db = join(sb.home, "deerflow.sqlite");
    truncateSync(db, Math.floor(statSync(db).size / 2));
    const truncated = await runCli(sb, ["threads"]);
    expect(truncated.stderr).not.toMatch(/internal error/i);
    if (truncated.exitCode !== 0) expect(truncated.stderr).toContain("doctor --repair");

    const sb2 = e2e.sandbox();
    mkdirSync(join(sb2.home, "deerflow.sqlite"), { recursive: true });
    const dir = await runCli(sb2, ["run", "hi"]);
    expect(dir.exitCode).not.toBe(0);
    expect(dir.stderr).toContain(join(sb2.home, "deerflow.sqlite").replace(/\/deerflow\.sqlite$/, ""));
    expect(dir.stderr).not.toMatch(/internal error/i);
    expect(dir.stderr).toMatch(/Move that directory out of the way/);
    expect(dir.stderr).not.toMatch(/permissions/);

    const sb3 = e2e.sandbox();
    mkdirSync(sb3.home, { recursive: true });
    writeFileSync(join(sb3.home, "deerflow.sqlite"), "");
    e2e.server.push({ content: "fine" });
    const empty = await runCli(sb3, ["run", "hi"]);
    expect(empty.exitCode, empty.stderr).toBe(0);
  });
});
