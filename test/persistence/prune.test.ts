// Pruning of step checkpoints (persistence/sqlite-prune.ts) through the real runtime: ChatSession turns against the
// loopback test model, real SQLite. Whatever pruning slims, a thread must still resume, roll a failed run back,
// rewind to before any of its runs (and undo that), and continue, in both checkpoint modes.
import Database from "better-sqlite3";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, closeChatShell, createChatSession } from "../../src/runtime/chat-session.js";
import { undoRewind } from "../../src/runtime/rewind.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { loadConfig } from "../../src/config/load.js";
import { sqliteStoreOf } from "../../src/persistence/store.js";
import type { RecordedRequest, ScriptedReply, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";

const env = useInProcessModel("deerflow-prune-", closeChatShell);
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const signal = () => new AbortController().signal;

/** Each turn: one bash call, then the answer "answer N" (so a turn is many graph steps). */
function turn(n: number): ScriptedReply[] {
  return [{ toolCalls: [{ name: "bash", args: { command: `echo step ${n}` } }] }, { content: `answer ${n}` }];
}

/** The conversation as the TUI draws it: "user: …" / "assistant: …" lines (tool rows left out). */
async function conversation(s: ChatSession, threadId: string): Promise<string[]> {
  const view = await s.resume({ threadId });
  return view.entries.flatMap((e) => (e.kind === "user" || e.kind === "assistant" ? [`${e.kind}: ${e.text}`] : []));
}

function turns(...ns: number[]): string[] {
  return ns.flatMap((n) => [`user: question ${n}`, `assistant: answer ${n}`]);
}

/** What the model was sent, as "role: text" lines (system prompt, reminders and tool traffic left out). */
function sent(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown }[])
    .filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content !== "" && !m.content.startsWith("<system-reminder>"))
    .map((m) => `${m.role}: ${m.content as string}`);
}

/** How many runs back the run asked `question` is (rewind counts every run with a start point, failed ones too). */
async function backTo(s: ChatSession, question: string): Promise<number> {
  const run = (await s.rewindable()).find((r) => r.input === question);
  if (!run) throw new Error(`no run asked ${question}`);
  return run.back;
}

function rows(threadId: string) {
  const db = new Database(join(home, "deerflow.sqlite"), { readonly: true });
  try {
    const pruned = (db.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ? AND json_extract(CAST(metadata AS TEXT), '$.deerflow_pruned') = 1").get(threadId) as { n: number }).n;
    const whole = (db.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ? AND json_extract(CAST(metadata AS TEXT), '$.deerflow_pruned') IS NULL").get(threadId) as { n: number }).n;
    // The points rollback and rewind go back to: the thread's last checkpoint before each run's mark.
    const marks = (db.prepare("SELECT mark FROM runs WHERE thread_id = ? AND mark IS NOT NULL").all(threadId) as { mark: string }[]).map((r) => JSON.parse(r.mark).checkpoints as number);
    const targets = marks.map(
      (m) =>
        db.prepare("SELECT json_extract(CAST(metadata AS TEXT), '$.deerflow_pruned') AS p FROM checkpoints WHERE thread_id = ? AND rowid <= ? ORDER BY rowid DESC LIMIT 1").get(threadId, m) as
          | { p: number | null }
          | undefined,
    );
    return { pruned, whole, targets };
  } finally {
    db.close();
  }
}

describe.each([
  { mode: "delta (the default)", env: undefined },
  { mode: "full", env: "full" },
])("pruned step checkpoints, $mode mode", ({ env: modeEnv }) => {
  beforeEach(() => {
    if (modeEnv) process.env.DEERFLOW_CHECKPOINT_MODE = modeEnv;
  });

  it("keep every point rollback and rewind go back to: the thread resumes, a failed run rolls back, rewinds and their undo work, and it continues", async () => {
    const agent: ScriptedReply[] = [...turn(1), ...turn(2), ...turn(3), ...turn(4)];
    server.setScript(() => agent.shift() ?? { content: "(unscripted reply)" });
    const s = createChatSession({ home, model: "test-model", cwd });
    let threadId = "";
    for (const n of [1, 2, 3, 4]) {
      const r = await s.send({ prompt: `question ${n}` }, () => {}, signal());
      expect(r.result.status).toBe("success");
      threadId = r.result.thread_id;
    }
    const after4 = rows(threadId);
    // Older runs' step checkpoints were slimmed; every run's starting point stayed whole.
    expect(after4.pruned).toBeGreaterThan(10);
    expect(after4.targets).toHaveLength(4);
    for (const t of after4.targets.slice(1)) expect(t).toEqual({ p: null });
    expect(await conversation(s, threadId)).toEqual(turns(1, 2, 3, 4));

    // A failing run is rolled back to its start.
    agent.push({ status: 400, error: "bad request" });
    await expect(s.send({ prompt: "question 5" }, () => {}, signal())).rejects.toThrow();
    expect(await conversation(s, threadId)).toEqual(turns(1, 2, 3, 4));

    // Rewind the conversation to before run 2 (three runs back), in a fresh process's session.
    await closeChatShell();
    const s2 = createChatSession({ home, model: "test-model", cwd });
    expect(await conversation(s2, threadId)).toEqual(turns(1, 2, 3, 4));
    const rewound = await s2.rewind(await backTo(s2, "question 2"), "conversation");
    expect(rewound.view.entries.filter((e) => e.kind === "user").map((e) => (e as { text: string }).text)).toEqual(["question 1"]);

    // Undo puts runs 2-4 back.
    const config = loadConfig({ cwd, flags: { home } });
    const runtime = ThreadRuntime.for(config);
    await undoRewind({ home, store: sqliteStoreOf(runtime.store, "Rewind"), runtime, threadId });
    expect(await conversation(s2, threadId)).toEqual(turns(1, 2, 3, 4));

    // Rewind again to before run 3, then continue: the model gets exactly turns 1-2 and the new question.
    await s2.rewind(await backTo(s2, "question 3"), "conversation");
    expect(await conversation(s2, threadId)).toEqual(turns(1, 2));
    agent.push(...turn(6));
    const before = server.requests.length;
    const r6 = await s2.send({ prompt: "question 6" }, () => {}, signal());
    expect(r6.result).toMatchObject({ status: "success", thread_id: threadId, final_text: "answer 6" });
    expect(sent(server.requests[before]!)).toEqual([...turns(1, 2), "user: question 6"]);
    expect(await conversation(s2, threadId)).toEqual([...turns(1, 2), "user: question 6", "assistant: answer 6"]);

    // Back to before the very first run: an empty conversation.
    await s2.rewind(await backTo(s2, "question 1"), "conversation");
    expect(await conversation(s2, threadId)).toEqual([]);
  }, 180_000);
});
