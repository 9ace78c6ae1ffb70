// A run killed (SIGKILL) while the model is still thinking keeps what the user asked: the next run of the thread
// sends that question to the model, on the local SQLite store and on the team database (PostgreSQL). The run is
// marked interrupted, and an interrupted run keeps its work (docs/cli.md: "Runs never lose a thread"). On Postgres the
// question was lost: LangGraph saved the steps after the input while the model call already ran, the kill came
// before those round trips ended, and the next input discarded the input's pending write.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
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
  const first = await runCli(sb, ["run", "--output-format", "json", "first question"], { env });
  expect(first.exitCode, first.stderr).toBe(0);
  const threadId = JSON.parse(first.stdout).thread_id as string;

  e2e.server.setScript(async () => new Promise(() => {}));
  const before = e2e.server.requests.length;
  const killed = sb.spawn(["run", "--thread", threadId, "the question that was cut off"], { env });
  await until(() => e2e.server.requests.slice(before).some((r) => userTexts(r.body as never).some((t) => t.includes("cut off"))), "the model to receive the question");
  killed.kill("SIGKILL");
  await killed.catch(() => undefined);
  // On the team database the dead run's lease has to run out first.
  await until(
    async () => {
      const r = await runCli(sb, ["threads", "--json"], { env });
      return (JSON.parse(r.stdout) as { id: string; status: string }[]).find((t) => t.id === threadId)?.status === "interrupted";
    },
    "the killed run to show as interrupted",
    undefined,
    250,
  );

  e2e.server.setScript([{ content: "carried on" }]);
  const next = await runCli(sb, ["run", "--thread", threadId, "--output-format", "json", "carry on"], { env });
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

// A run killed while a tool runs keeps the steps before it: the tool call that finished (with its output) and the
// one that was running (answered as interrupted, never sent dangling), on both stores. On the team database each
// step waits for its checkpoint, so what the model and the first tool did is saved before the next step starts.
async function killMidTool(sb: Sandbox, env: Record<string, string>): Promise<void> {
  e2e.server.setScript([
    { toolCalls: [{ id: "done1", name: "bash", args: { command: "echo first-tool-output" } }] },
    { toolCalls: [{ id: "slow2", name: "bash", args: { command: "echo started > started.txt; sleep 600" } }] },
  ]);
  const killed = sb.spawn(["run", "--output-format", "json", "do two things"], { env });
  const started = () => {
    const r = spawnSync("find", [sb.home, sb.cwd, "-name", "started.txt"], { encoding: "utf8" });
    return r.stdout.trim() !== "";
  };
  await until(started, "the second tool to start");
  killed.kill("SIGKILL");
  await killed.catch(() => undefined);
  let threadId = "";
  await until(
    async () => {
      const r = await runCli(sb, ["threads", "--json"], { env });
      const t = (JSON.parse(r.stdout) as { id: string; status: string }[])[0];
      threadId = t?.id ?? "";
      return t?.status === "interrupted";
    },
    "the killed run to show as interrupted",
    undefined,
    250,
  );

  e2e.server.setScript([{ content: "carried on" }]);
  const next = await runCli(sb, ["run", "--thread", threadId, "--output-format", "json", "carry on"], { env });
  expect(next.exitCode, next.stderr).toBe(0);
  const msgs = (e2e.server.requests.at(-1)!.body as { messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
  const calls = msgs.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
  expect(calls).toEqual(["done1", "slow2"]);
  const results = msgs.filter((m) => m.role === "tool");
  expect(results.map((m) => m.tool_call_id)).toEqual(["done1", "slow2"]);
  expect(JSON.stringify(results[0]!.content)).toContain("first-tool-output");
  expect(userTexts({ messages: msgs }).join("\n")).toContain("do two things");
}

describe("a run killed while a tool runs", () => {
  it("keeps the steps before it on the local store", async () => {
    await killMidTool(e2e.sandbox(), {});
  });

  it.skipIf(pgSkip)("keeps the steps before it on the team database", async () => {
    await killMidTool(e2e.sandbox(), { DEERFLOW_DATABASE_URL: db!.url, DEERFLOW_LEASE_SECONDS: "2" });
  });
});
