// Leases across machines on a team database, through the CLI (the racing, killed and frozen runs are processes). Two machines race for a dead machine's expired
// lease: exactly one wins, the other is told the thread is busy, and the dead run reads interrupted. A machine that
// pauses (SIGSTOP: a frozen VM, a long GC pause) past its lease loses the thread to another machine; when it wakes it
// stops in one line instead of writing its late answer over the run that took over.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { finished, takeOverWhileFrozen, teamMachine } from "../support/team-machine.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const machine = (name: string): Sandbox => teamMachine(e2e.sandbox(), db.url, name);

async function sql<R extends pg.QueryResultRow>(text: string, args: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: db.url, options: "-c search_path=deerflow" });
  await c.connect();
  try {
    return (await c.query<R>(text, args)).rows;
  } finally {
    await c.end();
  }
}

const lastUser = (body: { messages: { role: string; content: unknown }[] }) => JSON.stringify(body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
const show = async (m: Sandbox, id: string) => JSON.parse((await m.run(["threads", "show", id, "--json"])).stdout);
const texts = (shown: { entries: { text?: string }[] }) => shown.entries.map((e) => e.text).filter(Boolean);

// Several CLI processes per test, each waiting out a lease or a retry: generous on a loaded machine.
describe.skipIf(pgSkip)("leases on a team database", { timeout: 300_000 }, () => {
  it("two machines race for an expired lease: exactly one wins, the other is refused, the dead run reads interrupted", async () => {
    const a = machine("machine-a");
    e2e.server.push({ content: "first answer" });
    const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;

    // Machine A dies holding the thread.
    e2e.server.setScript(async (req) => (lastUser(req.body).includes("doomed") ? new Promise(() => {}) : { content: "won the race" }));
    const owner = a.spawn(["run", "--thread", threadId, "doomed turn"]);
    await until(() => e2e.server.requests.some((r) => lastUser(r.body).includes("doomed")), "machine A's run calling the model");
    owner.kill("SIGKILL");
    await owner.catch(() => undefined);
    // Wait for the lease to run out without reading through deerflow (a read would reap it first): the race is
    // for the expired row itself.
    await until(
      async () => (await sql<{ expired: boolean }>("SELECT expires_at < now() AS expired FROM run_locks WHERE thread_id = $1", [threadId]))[0]?.expired === true,
      "machine A's lease to expire",
    );

    const b = machine("machine-b");
    const c = machine("machine-c");
    // Two processes at once: the race is between them.
    const [rb, rc] = await Promise.all([finished(b.spawn(["run", "--thread", threadId, "b wants it"])), finished(c.spawn(["run", "--thread", threadId, "c wants it"]))]);
    const results = [rb, rc].map((r) => r.exitCode).sort();
    expect(results).toEqual([0, 1]);
    const [winner, loser] = rb.exitCode === 0 ? [rb, rc] : [rc, rb];
    expect(winner.stdout).toBe("won the race\n");
    const winnerHost = winner === rb ? "machine-b" : "machine-c";
    expect(loser.stderr).toMatch(new RegExp(`Thread ${threadId} is busy: run run-\\w+ \\(pid \\d+ on ${winnerHost}\\)`));

    const shown = await show(b, threadId);
    expect(shown.thread).toMatchObject({ status: "success", host: winnerHost });
    const statuses = shown.runs.map((r: { status: string }) => r.status);
    expect(statuses.slice(0, 2)).toEqual(["success", "interrupted"]);
    expect(statuses.slice(2).sort()).toEqual(["error", "success"]);
    expect(shown.runs[1].error).toMatch(/stopped renewing the lease/);
    // Exactly one of the two turns is in the thread, after what the dead run saved (its input, if it got that far).
    const t = texts(shown).filter((x) => x !== "doomed turn");
    expect(t).toEqual(["first turn", "first answer", winner === rb ? "b wants it" : "c wants it", "won the race"]);
  });

  it("a machine paused past its lease loses the thread and, woken, stops without writing over the run that took it", async () => {
    const a = machine("machine-a");
    const b = machine("machine-b");
    e2e.server.push({ content: "first answer" });
    const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;

    let answerA!: () => void;
    const gate = new Promise<void>((r) => (answerA = r));
    e2e.server.setScript(async (req) => {
      if (!lastUser(req.body).includes("slow turn")) return { content: "b took over" };
      await gate;
      return { content: "late answer from a" };
    });
    const owner = a.spawn(["run", "--thread", threadId, "slow turn"]);
    await until(() => e2e.server.requests.some((r) => lastUser(r.body).includes("slow turn")), "machine A's run calling the model");
    // A's lease runs out while it is frozen; B sees the thread interrupted and takes it over.
    await takeOverWhileFrozen(owner, b, threadId);
    answerA();
    const woken = await owner.catch((e: { exitCode?: number; stderr?: string }) => e);
    expect(woken.exitCode).toBe(1);
    const lines = String(woken.stderr).trim().split("\n");
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^deerflow: Run run-\\w+ lost thread ${threadId}'s lease( to run run-\\w+ \\(pid \\d+ on machine-b\\))?: this machine did not renew it in time, so the run stopped without saving more\\.`,
      ),
    );
    expect(String(woken.stderr)).not.toMatch(/\n\s+at /);

    // B's turn stands; A's late answer was never written, and A rolled nothing back over B's rows.
    const shown = await show(b, threadId);
    // (A's input is there if A committed it before it froze; a transaction it left open was ended by the server.)
    expect(texts(shown).filter((x) => x !== "slow turn")).toEqual(["first turn", "first answer", "b's turn", "b took over"]);
    expect(JSON.stringify(shown)).not.toContain("late answer from a");
    expect(shown.thread).toMatchObject({ status: "success", host: "machine-b" });
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success", "interrupted", "success"]);
    // And the thread runs on from either machine.
    e2e.server.setScript([{ content: "a again" }]);
    expect((await a.run(["run", "--thread", threadId, "a again?"])).stdout).toBe("a again\n");
  });
});
