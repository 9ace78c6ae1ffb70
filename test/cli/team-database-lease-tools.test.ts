// A machine paused (SIGSTOP) on a team database while a tool it started is still running: the bash command is a
// child process and runs on, the machine's lease runs out, and another machine takes the thread over. Woken, the
// machine gets its tool's result but must not write it, nor its status, nor a rollback, into the thread that is
// now the other machine's. (Paused during the model call instead: team-database-leases.test.ts.)
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { takeOverWhileFrozen, teamMachine } from "../support/team-machine.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const machine = (name: string): Sandbox => teamMachine(e2e.sandbox(), db.url, name);

type Body = { messages: { role: string; content: unknown }[] };
const lastUser = (body: Body) => JSON.stringify(body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
const show = async (m: Sandbox, id: string) => JSON.parse((await m.run(["threads", "show", id, "--json"])).stdout);

describe.skipIf(pgSkip)("a machine paused while its tool runs, on a team database", { timeout: 300_000 }, () => {
  it("woken after another machine took the thread, it writes neither the tool's result nor anything else", async () => {
    const a = machine("machine-a");
    const b = machine("machine-b");
    e2e.server.push({ content: "first answer" });
    const threadId = JSON.parse((await a.run(["run", "--output-format", "json", "first turn"])).stdout).thread_id as string;
    const workspace = a.cwd; // the thread works where machine a started it

    // The command says it started, then waits for the test's go (the tool runs on while its machine is frozen).
    const command = "touch started; until [ -f go ]; do sleep 0.1; done; echo result-$((6 * 7))";
    e2e.server.setScript(async (req) => {
      if (!lastUser(req.body).includes("tool turn")) return { content: "b took over" };
      return req.body.messages.at(-1)?.role === "tool" ? { content: "a's answer after its tool" } : { toolCalls: [{ name: "bash", args: { command } }] };
    });
    const owner = a.spawn(["run", "--yes", "--thread", threadId, "tool turn"]);
    await until(() => existsSync(join(workspace, "started")), "machine A's bash command to start");
    // A's lease runs out while it is frozen; B sees the thread interrupted and takes it over.
    await takeOverWhileFrozen(owner, b, threadId);
    writeFileSync(join(workspace, "go"), "");
    const woken = await owner.catch((e: { exitCode?: number; stderr?: string }) => e);
    expect(woken.exitCode).toBe(1);
    expect(String(woken.stderr).trim().split("\n").at(-1)).toMatch(new RegExp(`^deerflow: Run run-\\w+ lost thread ${threadId}'s lease`));

    const shown = await show(b, threadId);
    const all = JSON.stringify(shown);
    expect(all).not.toContain("result-42"); // the tool's output (its command says it as arithmetic)
    // B found A's call without a result and answered it as interrupted; A's late result did not replace that.
    expect(shown.entries.find((e: { kind: string }) => e.kind === "tool")).toMatchObject({ status: "error", output: expect.stringContaining("interrupted") });
    expect(all).not.toContain("a's answer after its tool");
    expect(all).toContain("b took over");
    expect(shown.thread).toMatchObject({ status: "success", host: "machine-b" });
    expect(shown.runs.map((r: { status: string }) => r.status)).toEqual(["success", "interrupted", "success"]);
    // A asked the model nothing after it woke.
    expect(e2e.server.requests.filter((r) => (r.body as Body).messages.at(-1)?.role === "tool" && lastUser(r.body as Body).includes("tool turn"))).toHaveLength(0);
  });
});
