// An interrupted `deerflow run` (SIGINT, SIGTERM) keeps what streamed, through the built CLI: the process exits 130,
// and a new process's `threads show` prints the partial answer marked interrupted; continuing the thread sends the
// model that answer with one note between the two user messages. SQLite in both checkpoint modes, and the team
// database (PostgreSQL) where one is available.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { partialAnswer } from "../support/partial-stream.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const stores = [
  { name: "SQLite, full checkpoints", env: () => ({ DEERFLOW_CHECKPOINT_MODE: "full" }), skip: undefined },
  { name: "SQLite, delta checkpoints", env: () => ({ DEERFLOW_CHECKPOINT_MODE: "delta" }), skip: undefined },
  { name: "PostgreSQL", env: () => ({ DEERFLOW_DATABASE_URL: db!.url }), skip: pgSkip },
];

/** Starts `run`, waits until `shown` has streamed to its stdout, then sends `signal`. */
async function interruptedRun(sb: Sandbox, env: Record<string, string>, prompt: string, shown: string, signal: NodeJS.Signals) {
  const child = sb.spawn(["run", "--output-format", "stream-json", prompt], { env });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  await until(
    () =>
      out
        .split("\n")
        .filter((l) => l.includes('"message.delta"'))
        .map((l) => JSON.parse(l).text as string)
        .join("")
        .includes(shown),
    `"${shown}" to stream`,
  );
  child.kill(signal);
  const r = await child.catch((e: { exitCode?: number; stdout?: string; stderr?: string }) => e);
  const completed = out.split("\n").find((l) => l.includes('"run.completed"') || l.includes('"run.failed"') || l.includes('"thread_id"'));
  return { exitCode: r.exitCode, stderr: String(r.stderr ?? ""), threadId: JSON.parse(completed!).thread_id as string };
}

describe.each(stores)("an interrupted run ($name)", ({ env, skip }) => {
  it.skipIf(skip)("SIGINT keeps the streamed answer: `threads show` marks it interrupted; the next request has the note once", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(partialAnswer("The config loader reads three files and then merges them"));
    const r = await interruptedRun(sb, env(), "explain the loader", "reads three", "SIGINT");
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toMatch(/was interrupted/);

    const shown = await runCli(sb, ["threads", "show", r.threadId], { env: env() });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/> explain the loader\nThe config loader reads three[a-z ]*\n\[interrupted by the user\]\n$/);
    const json = JSON.parse((await runCli(sb, ["threads", "show", "--json", r.threadId], { env: env() })).stdout);
    expect(json.entries.at(-1)).toMatchObject({ kind: "assistant", interrupted: true, text: expect.stringMatching(/^The config loader reads three/) });
    expect(json.thread.status).toBe("interrupted");

    e2e.server.push({ content: "Continuing." });
    const next = await runCli(sb, ["run", "--thread", r.threadId, "go on"], { env: env() });
    expect(next.exitCode, next.stderr).toBe(0);
    const sent = (e2e.server.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role !== "system" && !String(m.content).startsWith("<system-reminder>"));
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]!.content).toMatch(/^The config loader reads three[a-z ]*\n\n\[Interrupted by the user\.\]$/);
  });
});

describe("an interrupted run (SIGTERM)", () => {
  it("SIGTERM before any text: the thread keeps the user's message and one note", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const child = sb.spawn(["run", "--output-format", "json", "long job"]);
    await until(() => e2e.server.requests.length >= 1, "the model request");
    child.kill("SIGTERM");
    const r = await child.catch((e: { exitCode?: number; stdout?: string }) => e);
    expect(r.exitCode).toBe(130);
    const threadId = JSON.parse(String(r.stdout)).thread_id as string;
    const shown = await runCli(sb, ["threads", "show", threadId]);
    expect(shown.stdout).toMatch(/> long job\n\[interrupted by the user\]\n$/);
  });
});
