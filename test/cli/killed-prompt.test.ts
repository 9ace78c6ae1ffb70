// A run killed (SIGKILL) while the model is still thinking keeps what the user asked: the next run of the thread
// sends that question to the model, on the local SQLite store and on the team database (PostgreSQL). The run is
// marked interrupted, and an interrupted run keeps its work (README: "Runs never lose a thread"). On Postgres the
// question was lost: LangGraph saved the steps after the input while the model call already ran, the kill came
// before those round trips ended, and the next input discarded the input's pending write.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";
import { until } from "../support/wait.js";

const e2e = useE2E();
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => db?.drop());

function userTexts(body: { messages: { role: string; content: unknown }[] }): string[] {
  return body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

async function killWhileThinking(sb: Sandbox, env: Record<string, string>): Promise<void> {
  e2e.server.push({ content: "first answer" });
  const first = await sb.run(["run", "--output-format", "json", "first question"], { env });
  expect(first.exitCode, first.stderr).toBe(0);
  const threadId = JSON.parse(first.stdout).thread_id as string;

  e2e.server.setScript(async () => new Promise(() => {}));
  const before = e2e.server.requests.length;
  const killed = sb.spawn(["run", "--thread", threadId, "the question that was cut off"], { env });
  await until(() => e2e.server.requests.slice(before).some((r) => userTexts(r.body as never).some((t) => t.includes("cut off"))), "the model to receive the question");
  killed.kill("SIGKILL");
  await killed.catch(() => undefined);
  // On the team database the dead run's lease has to run out first.
  await until(async () => {
    const r = await sb.run(["threads", "--json"], { env });
    return (JSON.parse(r.stdout) as { id: string; status: string }[]).find((t) => t.id === threadId)?.status === "interrupted";
  }, "the killed run to show as interrupted", undefined, 250);

  e2e.server.setScript([{ content: "carried on" }]);
  const next = await sb.run(["run", "--thread", threadId, "--output-format", "json", "carry on"], { env });
  expect(next.exitCode, next.stderr).toBe(0);
  const sent = userTexts(e2e.server.requests.at(-1)!.body as never).join("\n");
  expect(sent).toContain("first question");
  expect(sent).toContain("the question that was cut off");
  expect(sent).toContain("carry on");
  // Once, not twice: the interrupted question is not replayed as a new input.
  expect(sent.split("the question that was cut off").length).toBe(2);
}

describe("a run killed while the model is thinking", () => {
  it("keeps the question on the local store", async () => {
    await killWhileThinking(e2e.sandbox(), {});
  });

  it.skipIf(pgSkip)("keeps the question on the team database", async () => {
    await killWhileThinking(e2e.sandbox(), { DEERFLOW_DATABASE_URL: db!.url, DEERFLOW_LEASE_SECONDS: "2" });
  });
});

