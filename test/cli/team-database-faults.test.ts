// The team database restarting under a run, through the built CLI. deerflow reaches PostgreSQL through a loopback
// proxy that this file alone cuts (open connections dropped, new ones turned away, as while a server restarts) and
// restores, so the shared cluster other tests use is never restarted. A short outage is retried with backoff and the
// run completes; a longer one fails the run in one line without the password, and the run's half-written turn is
// undone when this machine next reaches the database.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { type TcpProxy, startTcpProxy } from "../support/tcp-proxy.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: TcpProxy;
beforeAll(async () => {
  if (pgSkip) return;
  db = await createTestDatabase();
  const target = new URL(db.url);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
});
afterAll(async () => {
  await proxy?.close();
  await db?.drop();
});

function machine(env: Record<string, string> = {}): Sandbox {
  const sb = e2e.sandbox();
  const base = { DEERFLOW_DATABASE_URL: proxy.url(db.url), DEERFLOW_HOST: "machine-a", ...env };
  const run = sb.run.bind(sb);
  const spawn = sb.spawn.bind(sb);
  return Object.assign(sb, {
    run: (args: string[], opts: Parameters<Sandbox["run"]>[1] = {}) => run(args, { ...opts, env: { ...base, ...opts.env } }),
    spawn: (args: string[], opts: Parameters<Sandbox["spawn"]>[1] = {}) => spawn(args, { ...opts, env: { ...base, ...opts.env } }),
  });
}

const password = () => new URL(db.url).password;

// Several CLI processes per test, each waiting out a lease or a retry: generous on a loaded machine.
describe.skipIf(pgSkip)("the team database restarting during a run", { timeout: 300_000 }, () => {
  it("a restart mid-run is retried with backoff and the run completes", async () => {
    proxy.restore();
    const a = machine({ DEERFLOW_DB_RETRIES: "12" });
    // The model answers, and the database "restarts" as it does: the run's next saves meet a server that is gone.
    e2e.server.setScript(async () => {
      proxy.cut();
      return { content: "saved after the restart" };
    });
    const refusedBefore = proxy.refused;
    const run = a.spawn(["run", "--output-format", "json", "survive a restart"], { env: {} });
    // deerflow comes back for the database (refused at least twice: backoff, not one retry), then it is up again.
    let ended: string | undefined;
    void run.then(
      (r) => (ended = `${r.exitCode}: ${r.stderr}`),
      (e: Error) => (ended = e.message),
    );
    await until(() => proxy.refused >= refusedBefore + 2 || ended !== undefined, "deerflow retrying against the restarting database");
    expect(ended).toBeUndefined();
    proxy.restore();
    const done = await run;
    expect(done.stderr).not.toMatch(/not usable|\n\s+at /);
    expect(done.exitCode).toBe(0);
    const result = JSON.parse(done.stdout as string);
    expect(result).toMatchObject({ status: "success", final_text: "saved after the restart" });
    const shown = JSON.parse((await a.run(["threads", "show", result.thread_id, "--json"])).stdout);
    expect(shown.entries.map((e: { text?: string }) => e.text).filter(Boolean)).toEqual(["survive a restart", "saved after the restart"]);
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success"]);
  });

  it("a run that cannot save fails in one line without the password, and is rolled back once the database is back", async () => {
    proxy.restore();
    const a = machine({ DEERFLOW_DB_RETRIES: "3" });
    e2e.server.push({ content: "first answer" });
    const first = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout);
    const threadId = first.thread_id as string;

    e2e.server.setScript(async () => {
      proxy.cut();
      return { content: "this answer is never saved" };
    });
    const failed = await a.run(["run", "--thread", threadId, "second turn"]);
    expect(failed.exitCode).toBe(1);
    const lines = failed.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(
      /^deerflow: The team database postgres:\/\/.*@127\.0\.0\.1:\d+\/\w+ is not usable: .+\. The run failed; its changes are undone the next time deerflow on this machine reaches the database\./,
    );
    expect(lines.filter((l) => !l.startsWith("  ")).length).toBeLessThanOrEqual(2); // the thread line, the error (and its hint)
    expect(failed.stderr).not.toMatch(/\n\s+at /);
    expect(failed.stderr).not.toContain(`:${password()}@`);
    expect(readdirSync(join(a.home, "pending-rollback"))).toHaveLength(1);

    // Still down: reading fails the same way, and nothing is lost.
    const down = await a.run(["threads"]);
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/is not usable/);
    expect(down.stderr).not.toContain(`:${password()}@`);

    proxy.restore();
    const shown = JSON.parse((await a.run(["threads", "show", threadId, "--json"])).stdout);
    // The half-written turn is gone: the thread is as after its last good run; the failed run reads error.
    expect(shown.entries.map((e: { text?: string }) => e.text).filter(Boolean)).toEqual(["first turn", "first answer"]);
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success", "error"]);
    expect(shown.thread.status).toBe("error");
    expect(existsSync(join(a.home, "pending-rollback")) ? readdirSync(join(a.home, "pending-rollback")) : []).toEqual([]);

    // Its lease went with it: the thread runs again at once.
    e2e.server.setScript([{ content: "third answer" }]);
    const again = await a.run(["run", "--thread", threadId, "third turn"]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe("third answer\n");
  });

  it("a pending rollback never undoes what another machine ran on the thread meanwhile", async () => {
    proxy.restore();
    const a = machine({ DEERFLOW_DB_RETRIES: "3", DEERFLOW_LEASE_SECONDS: "3" });
    const b = e2e.sandbox();
    const onB = { env: { DEERFLOW_DATABASE_URL: db.url, DEERFLOW_HOST: "machine-b", DEERFLOW_LEASE_SECONDS: "3" } };
    e2e.server.push({ content: "first answer" });
    const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;
    e2e.server.setScript(async () => {
      proxy.cut();
      return { content: "never saved" };
    });
    expect((await a.run(["run", "--thread", threadId, "cut off turn"])).exitCode).toBe(1);

    // A stays cut off; its lease runs out and machine B carries on with the thread.
    await until(async () => {
      const listed = JSON.parse((await b.run(["threads", "--json"], onB)).stdout) as { id: string; status: string }[];
      return listed.find((t) => t.id === threadId)?.status === "interrupted";
    }, "A's lease to expire");
    e2e.server.setScript([{ content: "b's answer" }]);
    expect((await b.run(["run", "--thread", threadId, "b's turn"], onB)).exitCode).toBe(0);

    // A is back: its pending rollback finds B's run after its own and leaves the thread alone.
    proxy.restore();
    const shown = JSON.parse((await a.run(["threads", "show", threadId, "--json"])).stdout);
    expect(shown.entries.map((e: { text?: string }) => e.text).filter((t?: string) => t && t !== "cut off turn")).toEqual(["first turn", "first answer", "b's turn", "b's answer"]);
    expect(shown.thread.status).toBe("success");
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success", "error", "success"]);
    expect(shown.runs[1].error).toMatch(/not rolled back: later runs built on it/);
    expect(readdirSync(join(a.home, "pending-rollback"))).toEqual([]);
  });

  it("doctor reports the team database: unreachable in one line without the password, then reachable with its schema version", async () => {
    const a = machine();
    const dbLine = (out: string) => out.split("\n").find((l) => /^. db /.test(l)) ?? "";
    proxy.cut();
    const down = await a.run(["doctor"], { env: { DEERFLOW_DB_RETRIES: "2" } });
    proxy.restore();
    expect(down.exitCode).toBe(1);
    expect(dbLine(down.stdout)).toMatch(/^✗ db +The team database postgres:\/\/.*@127\.0\.0\.1:\d+\/\w+ is not usable: /);
    expect(down.stdout + down.stderr).not.toContain(`:${password()}@`);

    // Once deerflow has used it (any command creates the schema): at this deerflow's version.
    expect((await a.run(["threads"])).exitCode).toBe(0);
    const up = await a.run(["doctor"]);
    expect(dbLine(up.stdout)).toMatch(/^✓ db +team database postgres:\/\/.*@127\.0\.0\.1:\d+\/\w+ \(PostgreSQL \d+[.\d]*.*\) is reachable, schema version 3$/);
    expect(up.stdout).not.toContain(`:${password()}@`);

    // A database no deerflow has used yet: reachable, nothing created by doctor.
    const fresh = await createTestDatabase();
    try {
      const empty = await a.run(["doctor"], { env: { DEERFLOW_DATABASE_URL: proxy.url(fresh.url) } });
      expect(dbLine(empty.stdout)).toMatch(/is reachable; no deerflow schema yet \(created on the first run\)$/);
      const again = await a.run(["doctor"], { env: { DEERFLOW_DATABASE_URL: proxy.url(fresh.url) } });
      expect(dbLine(again.stdout)).toMatch(/no deerflow schema yet/);
    } finally {
      await fresh.drop();
    }
  });
});
