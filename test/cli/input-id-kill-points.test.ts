// `--input-id` survives kill -9 at every point of a run: the id is written with the user's message in one checkpoint,
// so a retry with the same id either answers from the thread (the first run got as far as its answer) or continues it;
// a tool that ran is never run again by the retry and a finished answer is never lost. The killed process is the built
// CLI (the kill is what is tested); each point is reached by an event (the test model holding a request, the tool's
// own file), not by a delay. On SQLite and on PostgreSQL.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest, ScriptedReply } from "../support/openai-server.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { userTexts } from "../support/requests.js";
import { until } from "../support/wait.js";

const e2e = useE2E();

type KillPoint = "first model call" | "tool running" | "second model call" | "after the answer (title call)";
const POINTS: KillPoint[] = ["first model call", "tool running", "second model call", "after the answer (title call)"];

const lastRole = (req: RecordedRequest) => (req.body.messages as { role: string }[]).at(-1)?.role;
const toolRuns = (sb: Sandbox) => (existsSync(join(sb.cwd, "runs.txt")) ? readFileSync(join(sb.cwd, "runs.txt"), "utf8").split("\n").filter(Boolean).length : 0);

/**
 * The job: one bash call that appends a line to runs.txt (counting how often the tool really ran), then "job done".
 * `hold` makes the request at the kill point hang; the tool call sleeps when it is the point (the kill comes first).
 */
function script(point: KillPoint | undefined): (req: RecordedRequest) => ScriptedReply {
  return (req) => {
    const afterTool = lastRole(req) === "tool";
    if (point === "first model call" && !afterTool) return { hang: true };
    if (point === "second model call" && afterTool) return { hang: true };
    if (afterTool) return { content: "job done" };
    const sleep = point === "tool running" ? "; sleep 20" : "";
    return { toolCalls: [{ id: "job", name: "bash", args: { command: `echo ran >> runs.txt${sleep}` } }] };
  };
}

async function killAt(sb: Sandbox, point: KillPoint, env: Record<string, string>): Promise<string> {
  e2e.server.setScript(script(point));
  if (point === "after the answer (title call)") e2e.server.titleReply = { hang: true };
  const child = sb.spawn(["run", "--input-id", "job-1", "--output-format", "stream-json", "do the job"], { env });
  let out = "";
  child.stdout!.on("data", (d) => (out += String(d)));
  if (point === "first model call") await until(() => e2e.server.requests.length === 1, "the first model call");
  if (point === "tool running") await until(() => toolRuns(sb) === 1, "the tool to run");
  if (point === "second model call") await until(() => e2e.server.requests.length === 2, "the second model call");
  if (point === "after the answer (title call)") await until(() => e2e.server.titleRequests.length === 1, "the title call");
  child.kill("SIGKILL");
  await child.catch(() => undefined);
  e2e.server.titleReply = { content: "Test thread title" };
  return JSON.parse(out.split("\n")[0]!).thread_id as string;
}

async function retryAfterEachKillPoint(env: Record<string, string>): Promise<void> {
  for (const point of POINTS) {
    const sb = e2e.sandbox();
    Object.assign(sb.env, env);
    e2e.server.requests.length = 0;
    e2e.server.titleRequests.length = 0;
    const threadId = await killAt(sb, point, env);
    const before = e2e.server.requests.length;
    e2e.server.setScript(script(undefined));
    const args = ["run", "--thread", threadId, "--input-id", "job-1", "--output-format", "json", "do the job"];
    // The team database frees a dead process's thread when its lease runs out (SQLite sees the process gone at once).
    let retry = await runCli(sb, args);
    await until(async () => !/is busy/.test(retry.stderr) || !/is busy/.test((retry = await runCli(sb, args)).stderr), "the dead run's lease to expire");
    expect(retry.exitCode, `${point}: ${retry.stderr}`).toBe(0);
    expect(JSON.parse(retry.stdout).final_text, point).toBe("job done");
    expect(toolRuns(sb), `${point}: the tool ran once`).toBe(1);
    const retried = e2e.server.requests.slice(before);
    // Killed after its answer: the retry answers from the thread without the model.
    if (point === "after the answer (title call)") expect(retried, point).toHaveLength(0);
    for (const req of retried)
      expect(
        userTexts(req).filter((t) => t === "do the job"),
        `${point}: the input once`,
      ).toHaveLength(1);
    // And a repeat of the retry reads the recorded result.
    const again = await runCli(sb, ["run", "--thread", threadId, "--input-id", "job-1", "--output-format", "json", "do the job"]);
    expect(JSON.parse(again.stdout).final_text, point).toBe("job done");
    expect(e2e.server.requests.length, `${point}: the repeat called no model`).toBe(before + retried.length);
    expect(toolRuns(sb), point).toBe(1);
  }
}

describe("--input-id across kill -9 at each point of a run", () => {
  it("SQLite: a retry never runs the tool twice and never loses the answer", async () => {
    await retryAfterEachKillPoint({});
  }, 240_000);

  describe.skipIf(pgSkip)("PostgreSQL", () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => db?.drop());

    it("the same on the team database", async () => {
      // A 2 s lease (as killed-prompt.test.ts): each of the four retries waits out the dead run's lease.
      await retryAfterEachKillPoint({ DEERFLOW_DATABASE_URL: db.url, DEERFLOW_LEASE_SECONDS: "2" });
    }, 240_000);
  });
});
