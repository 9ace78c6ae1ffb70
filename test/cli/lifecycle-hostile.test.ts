// A hostile environment and a careless user against the run lifecycle, through the CLI: time limits that do
// not fit a timer, an idempotency key reused for other work or after a failure, a database file nobody may write,
// a dead run's pid taken by an unrelated process, and `threads`/`doctor` while a run works.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import Database from "better-sqlite3";
import { execa } from "execa";
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

function clean(stderr: string): void {
  expect(stderr).not.toMatch(/internal error/i);
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function firstThread(sb: Sandbox, args: string[] = []): Promise<string> {
  e2e.server.push({ content: "first answer" });
  const r = await runCli(sb, ["run", "--output-format", "json", ...args, "first prompt"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).thread_id as string;
}

/** Waits (by events, not the clock) until the model server has seen `n` run requests. */
async function modelCalled(n: number): Promise<void> {
  for (let i = 0; i < 3000 && e2e.server.requests.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  expect(e2e.server.requests.length).toBeGreaterThanOrEqual(n);
}

/** The /proc start time of a process (field 22), as the run lock records it. */
async function startOf(pid: number): Promise<string> {
  const { readFileSync } = await import("node:fs");
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

const hasChattr = (await execa("chattr", ["--help"], { reject: false }).catch(() => ({ exitCode: 127 }))).exitCode !== 127 && process.getuid?.() === 0;

describe("run limits and idempotency keys from a careless user", () => {
  it("--timeout beyond a week (or past what a timer holds) is refused up front, exit 2, model not called", async () => {
    const sb = e2e.sandbox();
    for (const t of ["99999999999", "604801"]) {
      const r = await runCli(sb, ["run", "--timeout", t, "hi"]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--timeout must be at most 604800/);
      clean(r.stderr);
    }
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("the same --input-id with a different prompt is refused (exit 2) and the model is not called", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb, ["--input-id", "k1"]);
    const before = e2e.server.requests.length;
    const r = await runCli(sb, ["run", "--thread", id, "--input-id", "k1", "another prompt"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Input id "k1" was already applied on thread .* to a different prompt/);
    clean(r.stderr);
    expect(e2e.server.requests.length).toBe(before);
    const same = await runCli(sb, ["run", "--thread", id, "--input-id", "k1", "first prompt"]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stdout).toBe("first answer\n");
    expect(e2e.server.requests.length).toBe(before);
  });

  it("an empty --input-id (an unset shell variable) or one longer than 255 characters is refused, exit 2", async () => {
    const sb = e2e.sandbox();
    for (const [id, why] of [
      ["", /--input-id is empty/],
      ["  ", /--input-id is empty/],
      ["x".repeat(256), /longer than 255/],
    ] as const) {
      const r = await runCli(sb, ["run", "--input-id", id, "hi"]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(why);
      clean(r.stderr);
    }
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("an --input-id whose run failed or timed out runs again (a failure is not replayed)", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb);
    e2e.server.push({ status: 400, error: "refused" });
    const failed = await runCli(sb, ["run", "--thread", id, "--input-id", "k2", "try this"]);
    expect(failed.exitCode).toBe(1);
    e2e.server.push({ content: "worked the second time" });
    const again = await runCli(sb, ["run", "--thread", id, "--input-id", "k2", "try this"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe("worked the second time\n");

    e2e.server.push({ hang: true });
    const slow = await runCli(sb, ["run", "--thread", id, "--timeout", "1", "--input-id", "k3", "slow one"]);
    expect(slow.exitCode).toBe(5);
    e2e.server.setScript([]);
    e2e.server.push({ content: "finished this time" });
    const retry = await runCli(sb, ["run", "--thread", id, "--input-id", "k3", "slow one"]);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(retry.stdout).toBe("finished this time\n");
    // The retried input replaced itself: the model sees it once.
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    expect(sent.split("slow one").length - 1).toBe(1);
  });
});

describe("a hostile environment", () => {
  it("a -wal file full of garbage next to a cleanly closed database: ignored by SQLite, nothing lost, no false alarm", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb);
    writeFileSync(join(sb.home, "deerflow.sqlite-wal"), Buffer.alloc(50_000, 7));
    const list = await threads(sb);
    expect(list.find((t) => t.id === id)!.status).toBe("success");
    e2e.server.push({ content: "still here" });
    const next = await runCli(sb, ["run", "--thread", id, "go on"]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).toContain("first answer");
  });

  it("two runs racing with one --input-id on one thread: one runs, the other is refused as busy; a repeat replays", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb);
    e2e.server.push({ content: "the one answer", chunkDelayMs: 50 }, { content: "a second answer", chunkDelayMs: 50 });
    const both = await Promise.all([0, 1].map(() => sb.run(["run", "--thread", id, "--input-id", "same", "do it once"])));
    const won = both.filter((r) => r.exitCode === 0);
    const lost = both.filter((r) => r.exitCode !== 0);
    // Either the second started after the first finished (a replay, exit 0) or while it worked (busy, exit 1).
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of won) expect(r.stdout).toBe("the one answer\n");
    for (const r of lost) {
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/is busy/);
    }
    const again = await runCli(sb, ["run", "--thread", id, "--input-id", "same", "do it once"]);
    expect(again.stdout).toBe("the one answer\n");
    // The model answered the input once.
    expect(e2e.server.requests.filter((r) => JSON.stringify(r.body.messages).includes("do it once"))).toHaveLength(1);
  });

  it.skipIf(!hasChattr)("a database file nobody may write (chattr +i): the run names the file and what to do, exit 1, nothing changed", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb);
    const db = join(sb.home, "deerflow.sqlite");
    await execa("chattr", ["+i", db]);
    try {
      e2e.server.push({ content: "never stored" });
      const r = await runCli(sb, ["run", "--thread", id, "again"]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(db);
      expect(r.stderr).toMatch(/Nothing was changed.*writable/s);
      clean(r.stderr);
      // Reading still works and shows the thread as it was.
      expect((await threads(sb))[0]!.status).toBe("success");
    } finally {
      await execa("chattr", ["-i", db]);
    }
    e2e.server.setScript([]);
    e2e.server.push({ content: "stored now" });
    const next = await runCli(sb, ["run", "--thread", id, "once writable"]);
    expect(next.exitCode, next.stderr).toBe(0);
  });

  it.skipIf(process.platform !== "linux")("a dead run's pid reused by an unrelated live process: the lock is stale, the thread interrupted and free", async () => {
    const sb = e2e.sandbox();
    const id = await firstThread(sb);
    e2e.server.push({ hang: true });
    const killed = sb.spawn(["run", "--thread", id, "slow"]);
    await modelCalled(2);
    killed.kill("SIGKILL");
    await killed.catch(() => {});
    // The pid comes back as someone else's process (a long sleep here): same pid number, a different start time.
    const other = execa("sleep", ["600"]);
    try {
      const db = new Database(join(sb.home, "deerflow.sqlite"));
      const lock = db.prepare("SELECT * FROM run_locks WHERE thread_id = ?").get(id) as { pid_start: string; host: string };
      expect(lock.host).toBe(hostname());
      expect(lock.pid_start).not.toBe(await startOf(other.pid!));
      db.prepare("UPDATE run_locks SET pid = ? WHERE thread_id = ?").run(other.pid, id);
      db.close();
      expect((await threads(sb)).find((t) => t.id === id)!.status).toBe("interrupted");
      e2e.server.setScript([]);
      e2e.server.push({ content: "took it over" });
      const next = await runCli(sb, ["run", "--thread", id, "go on"]);
      expect(next.exitCode, next.stderr).toBe(0);
    } finally {
      other.kill("SIGKILL");
      await other.catch(() => {});
    }
  });

  it("`threads` and `doctor` while a run works: neither blocks nor changes it; the run still ends as itself", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const run = sb.spawn(["run", "--output-format", "json", "slow work"]);
    await modelCalled(1);
    expect((await threads(sb))[0]!.status).toBe("running");
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.stdout).toMatch(/✓ db .*passes quick_check/);
    clean(doctor.stderr);
    expect((await threads(sb))[0]!.status).toBe("running");
    // A supervisor that signals twice, then once more with the other signal.
    run.kill("SIGTERM");
    run.kill("SIGTERM");
    run.kill("SIGINT");
    const r = await run;
    expect(r.exitCode).toBe(130);
    expect(JSON.parse(String(r.stdout)).status).toBe("interrupted");
    expect((await threads(sb))[0]!.status).toBe("interrupted");
  });
});
