// Two "machines" (two DEERFLOW_HOMEs, two DEERFLOW_HOSTs) sharing one PostgreSQL database through the CLI (in
// this process, team-machine.ts; the run that is killed and the one-line connection errors are the built CLI):
// both list the same threads with the host each last ran on; a run of a thread another machine is running is
// refused; kill -9 of that machine's process, and once its lease expires the thread is taken over (the dead run
// marked interrupted); a thread whose workspace is not on this machine can be inspected but not run (exit 2).
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { teamMachine } from "../support/team-machine.js";
import { until, waitFor } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

/** A machine: its own home and host name, the team database, a short lease so a takeover comes soon. */
const machine = (name: string): Sandbox => teamMachine(e2e.sandbox(), db.url, name);

type Listed = { id: string; status: string; host: string | null; title: string | null };
async function list(m: Sandbox): Promise<Listed[]> {
  const r = await m.run(["threads", "--json"]);
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Listed[];
}

describe.skipIf(pgSkip)("a team database shared by two machines", () => {
  it("both list the same threads; a busy thread is refused elsewhere; after kill -9 the lease expires and the thread is taken over", async () => {
    const a = machine("machine-a");
    const b = machine("machine-b");
    e2e.server.push({ content: "first answer" });
    const first = JSON.parse((await a.run(["run", "--output-format", "json", "start here"])).stdout);
    const threadId = first.thread_id as string;

    const [fromA, fromB] = [await list(a), await list(b)];
    expect(fromB).toEqual(fromA);
    expect(fromB).toMatchObject([{ id: threadId, status: "success", host: "machine-a" }]);
    expect((await b.run(["threads"])).stdout).toContain("@machine-a");

    // A holds the thread: its model answer never comes.
    e2e.server.setScript(async () => new Promise(() => {}));
    const owner = a.spawn(["run", "--thread", threadId, "long job"]);
    // Its model call has begun, so its input is saved (on PostgreSQL each step waits for its checkpoint): the kill
    // below comes after that, whatever the speed of the polls.
    await until(() => e2e.server.requests.some((r) => JSON.stringify(r.body.messages).includes("long job")), "machine A's run calling the model");
    await waitFor(async () => ((await list(b)).find((t) => t.id === threadId)?.status === "running" ? true : undefined));
    const refused = await b.run(["run", "--thread", threadId, "me too"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`Thread ${threadId} is busy: run run-\\w+ \\(pid \\d+ on machine-a\\)`));

    owner.kill("SIGKILL");
    await owner.catch(() => undefined);
    // The lease outlives its process until it expires: the thread shows interrupted only then.
    const after = await waitFor(async () => {
      const row = (await list(b)).find((t) => t.id === threadId);
      return row?.status === "interrupted" ? row : undefined;
    });
    expect(after.host).toBe("machine-a");

    e2e.server.setScript([{ content: "taken over" }]);
    // From the same checkout path (as on a team's machines): nothing to say about where the thread works.
    const takeover = await b.run(["run", "--thread", threadId, "carry on"], { cwd: a.cwd });
    expect(takeover.stderr).toBe(`deerflow: thread ${threadId}\n`);
    expect(takeover.exitCode).toBe(0);
    expect(takeover.stdout).toBe("taken over\n");
    expect((await list(a)).find((t) => t.id === threadId)).toMatchObject({ status: "success", host: "machine-b" });
    const shown = JSON.parse((await a.run(["threads", "show", threadId, "--json"])).stdout);
    // The killed run's input stays (interrupted work is kept, as after Ctrl+C); its run reads interrupted.
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success", "interrupted", "error", "success"]);
    expect(shown.entries.map((e: { text?: string }) => e.text).filter(Boolean)).toEqual(["start here", "first answer", "long job", "carry on", "taken over"]);
  });

  it("a thread whose workspace is on another machine can be shown but not run (exit 2)", async () => {
    const a = machine("machine-a");
    const b = machine("machine-b");
    e2e.server.push({ content: "made on a" });
    const first = JSON.parse((await a.run(["run", "--output-format", "json", "hello from a"])).stdout);
    // Machine B does not have A's disk (its data directory, nor the project folder the thread works in).
    rmSync(a.home, { recursive: true, force: true });
    rmSync(a.cwd, { recursive: true, force: true });
    const shown = await b.run(["threads", "show", first.thread_id]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("last ran on machine-a (another machine: inspect only)");
    expect(shown.stdout).toContain("> hello from a");
    const run = await b.run(["run", "--thread", first.thread_id, "go on"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/last ran on machine-a; its workspace .* is there, not on this machine \(machine-b\)/);
    // Its file snapshots are on machine A too: rewind is refused here, in one line (the TUI's /rewind says the same).
    const rewind = await b.run(["rewind", first.thread_id]);
    expect(rewind.exitCode).toBe(2);
    expect(rewind.stderr.trim().split("\n")).toHaveLength(1);
    expect(rewind.stderr).toMatch(/last ran on machine-a; its workspace and file snapshots are there, not on this machine \(machine-b\), so it cannot be rewound here\. Rewind it on machine-a/);
  });

  it("a wrong password or an unreachable server is one line with no password in it", async () => {
    // The built CLI itself: what a user's terminal shows, exit status included.
    const b = e2e.sandbox();
    const bad = new URL(db.url);
    bad.password = "s3cret-wrong-pw";
    const wrong = await b.run(["threads"], { env: { DEERFLOW_DATABASE_URL: bad.toString() } });
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
    expect(wrong.stderr).toMatch(/password was rejected/);
    expect(wrong.stderr).not.toContain("s3cret-wrong-pw");
    const down = await b.run(["run", "hi"], { env: { DEERFLOW_DATABASE_URL: "postgres://me:hunter2pw@127.0.0.1:1/x", DEERFLOW_DB_RETRIES: "2" } });
    expect(down.exitCode).toBe(1);
    expect(down.stderr.trim().split("\n")).toHaveLength(1);
    expect(down.stderr).toMatch(/connection refused/);
    expect(down.stderr).not.toContain("hunter2pw");
  });

  it("memory stays with the machine (its own SQLite file in the home), not in the team database", async () => {
    const a = machine("machine-a");
    const b = machine("machine-b");
    e2e.server.memoryReply = { content: JSON.stringify({ facts: [{ scope: "global", text: "The user prefers pnpm over npm." }] }) };
    e2e.server.push({ content: "noted" }, { content: "hi again" });
    expect((await a.run(["run", "I always use pnpm"])).exitCode).toBe(0);
    // The next start on machine A extracts what the last run queued.
    expect((await a.run(["run", "hello"])).exitCode).toBe(0);
    // A learned fact waits for review on the machine that learned it, then is in effect there only.
    const pendingOnA = JSON.parse((await a.run(["memory", "pending", "--json"])).stdout) as { facts: { text: string }[] };
    expect(pendingOnA.facts.map((f) => f.text)).toEqual(["The user prefers pnpm over npm."]);
    expect((await a.run(["memory", "approve", "all"])).exitCode).toBe(0);
    const onA = JSON.parse((await a.run(["memory", "list", "--json"])).stdout) as { text: string }[];
    expect(onA.map((f) => f.text)).toEqual(["The user prefers pnpm over npm."]);
    expect(JSON.parse((await b.run(["memory", "list", "--json"])).stdout)).toEqual([]);
    expect(JSON.parse((await b.run(["memory", "pending", "--json"])).stdout)).toEqual({ facts: [], refused: [], runs: [] });
  });
});
