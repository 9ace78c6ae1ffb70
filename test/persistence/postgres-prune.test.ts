// Pruning on the team database (persistence/postgres-prune.ts, the policy in checkpoint-prune.ts) through the real
// runtime: ChatSession turns against the loopback test model, a real PostgreSQL database per test. Whatever pruning
// slims, the thread must still resume in a fresh session, roll a failed run back, and continue with exactly its
// history, in both checkpoint modes. (Rewind is refused on a team database, so only runs' start points matter here.)
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, closeChatShell, createChatSession } from "../../src/runtime/chat-session.js";
import type { RecordedRequest, ScriptedReply, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";
import { createTestDatabase, pgSkip } from "../support/postgres.js";

const env = useInProcessModel("deerflow-pg-prune-", closeChatShell);
let server: TestModelServer;
let home: string;
let cwd: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  if (!pgSkip) db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(() => {
  ({ server, home, cwd } = env());
  process.env.DEERFLOW_DATABASE_URL = db?.url;
});
afterEach(() => {
  delete process.env.DEERFLOW_DATABASE_URL;
});

const signal = () => new AbortController().signal;

async function sql<R extends pg.QueryResultRow>(text: string, args: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query<R>(text, args)).rows;
  } finally {
    await c.end();
  }
}

/** Each turn: one bash call, then the answer "answer N" (so a turn is many graph steps). */
function turn(n: number): ScriptedReply[] {
  return [{ toolCalls: [{ name: "bash", args: { command: `echo step ${n}` } }] }, { content: `answer ${n}` }];
}

async function conversation(s: ChatSession, threadId: string): Promise<string[]> {
  const view = await s.resume({ threadId });
  return view.entries.flatMap((e) => (e.kind === "user" || e.kind === "assistant" ? [`${e.kind}: ${e.text}`] : []));
}

function turns(...ns: number[]): string[] {
  return ns.flatMap((n) => [`user: question ${n}`, `assistant: answer ${n}`]);
}

function sent(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content !== "" && !m.content.startsWith("<system-reminder>"))
    .map((m) => `${m.role}: ${m.content as string}`);
}

async function rows(threadId: string) {
  const counts = (
    await sql<{ pruned: string; whole: string }>(
      `SELECT COUNT(*) FILTER (WHERE metadata ? 'deerflow_pruned') AS pruned, COUNT(*) FILTER (WHERE NOT metadata ? 'deerflow_pruned') AS whole
       FROM deerflow.checkpoints WHERE thread_id = $1`,
      [threadId],
    )
  )[0]!;
  // The points rollback goes back to: the thread's last checkpoint at or before each run's mark.
  const marks = (await sql<{ mark: string }>("SELECT mark FROM deerflow.runs WHERE thread_id = $1 AND mark IS NOT NULL ORDER BY seq", [threadId])).map((r) => JSON.parse(r.mark).checkpoints as number);
  const targets = [];
  for (const m of marks)
    targets.push(
      (await sql<{ pruned: boolean }>("SELECT metadata ? 'deerflow_pruned' AS pruned FROM deerflow.checkpoints WHERE thread_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1", [threadId, m]))[0],
    );
  // Channels of the writes pruned checkpoints still have.
  const kept = (
    await sql<{ channel: string }>(
      "SELECT DISTINCT w.channel FROM deerflow.checkpoint_writes w JOIN deerflow.checkpoints c USING (thread_id, checkpoint_ns, checkpoint_id) WHERE c.thread_id = $1 AND c.metadata ? 'deerflow_pruned'",
      [threadId],
    )
  ).map((r) => r.channel);
  return { pruned: Number(counts.pruned), whole: Number(counts.whole), targets, kept };
}

describe.skipIf(pgSkip).each([
  { mode: "delta (the default)", env: undefined, kept: ["messages"] },
  { mode: "full", env: "full", kept: [] },
])("pruned step checkpoints on the team database, $mode mode", ({ env: modeEnv, kept }) => {
  beforeEach(() => {
    if (modeEnv) process.env.DEERFLOW_CHECKPOINT_MODE = modeEnv;
  });

  it("keep every run's start point: the thread resumes in a fresh session, a failed run rolls back, and it continues with exactly its history", async () => {
    const agent: ScriptedReply[] = [...turn(1), ...turn(2), ...turn(3), ...turn(4)];
    server.setScript(() => agent.shift() ?? { content: "(unscripted reply)" });
    const s = createChatSession({ home, model: "test-model", cwd });
    let threadId = "";
    for (const n of [1, 2, 3, 4]) {
      const r = await s.send({ prompt: `question ${n}` }, () => {}, signal());
      expect(r.result.status).toBe("success");
      threadId = r.result.thread_id;
    }
    const after4 = await rows(threadId);
    // Older runs' step checkpoints were slimmed; every run's starting point stayed whole; the latest run is whole.
    expect(after4.pruned).toBeGreaterThan(10);
    expect(after4.targets).toHaveLength(4);
    for (const t of after4.targets.slice(1)) expect(t).toEqual({ pruned: false });
    // Slimmed checkpoints keep only the writes delta mode replays.
    expect(after4.kept.sort()).toEqual(kept);
    expect(await conversation(s, threadId)).toEqual(turns(1, 2, 3, 4));

    // A failing run is rolled back to its start.
    agent.push({ status: 400, error: "bad request" });
    await expect(s.send({ prompt: "question 5" }, () => {}, signal())).rejects.toThrow();
    expect(await conversation(s, threadId)).toEqual(turns(1, 2, 3, 4));

    // A fresh session (another process's view) resumes the pruned thread and continues it: the model is sent exactly
    // turns 1-4 and the new question.
    await closeChatShell();
    const s2 = createChatSession({ home, model: "test-model", cwd });
    expect(await conversation(s2, threadId)).toEqual(turns(1, 2, 3, 4));
    agent.push(...turn(6));
    const before = server.requests.length;
    const r6 = await s2.send({ prompt: "question 6" }, () => {}, signal());
    expect(r6.result).toMatchObject({ status: "success", thread_id: threadId, final_text: "answer 6" });
    expect(sent(server.requests[before]!)).toEqual([...turns(1, 2, 3, 4), "user: question 6"]);
    expect(await conversation(s2, threadId)).toEqual([...turns(1, 2, 3, 4), "user: question 6", "assistant: answer 6"]);
    // Pruning went on after that run: more slimmed, the newest run's start whole.
    const after6 = await rows(threadId);
    expect(after6.pruned).toBeGreaterThan(after4.pruned);
    expect(after6.targets.at(-1)).toEqual({ pruned: false });
  }, 300_000);
});
