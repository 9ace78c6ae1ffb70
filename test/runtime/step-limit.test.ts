// A run that reaches its step limit (a model that never stops calling tools) is a guard stop: exit 5, the limit and
// a hint in its message, the thread rolled back to how the last good run left it. In-process (ChatSession) with
// DEERFLOW_RUN_STEP_LIMIT at 24 steps, so six model turns prove what the default's hundred would.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, createChatSession } from "../../src/runtime/chat-session.js";
import { runStepLimit } from "../../src/runtime/run-limits.js";
import type { TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";

const env = useInProcessModel("deerflow-step-limit-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => {
  ({ server, home, cwd } = env());
  process.env.DEERFLOW_RUN_STEP_LIMIT = "24";
});
afterEach(() => {
  delete process.env.DEERFLOW_RUN_STEP_LIMIT;
});

const session = (): ChatSession => createChatSession({ home, model: "test-model", cwd });
const quiet = () => new AbortController().signal;
/** Every call different, so loop detection and the per-tool caps stay quiet. */
const tools = [
  (i: number) => ({ name: "glob", args: { pattern: `*.n${i}` } }),
  (i: number) => ({ name: "grep", args: { pattern: `never-${i}` } }),
  (i: number) => ({ name: "ls", args: { path: ".", description: `look ${i}` } }),
];

describe("the step limit of one run", () => {
  it("stops a model that never ends as a guard (exit 5) naming the limit, with a hint, and rolls the run back", async () => {
    server.setScript([{ content: "first answer" }]);
    const s = session();
    await s.send({ prompt: "start" }, () => {}, quiet());
    const threadId = s.threadId!;

    server.setScript((_req, i) => ({ toolCalls: [{ ...tools[i % tools.length]!(i), id: `c${i}` }] }));
    const before = server.requests.length;
    const err = await s
      .send({ prompt: "work forever" }, () => {}, quiet())
      .then(
        () => undefined,
        (e: { exitCode?: number; message?: string; hint?: string }) => e,
      );
    expect(err).toMatchObject({ exitCode: 5, message: "The run reached deerflow's limit of 24 graph steps (about 6 model turns) and was rolled back." });
    expect(err!.hint).toContain(`deerflow run --thread ${threadId}`);
    // Stopped by the limit, not by anything else: about limit / 4 model turns went out.
    expect(server.requests.length - before).toBeGreaterThanOrEqual(5);
    expect(server.requests.length - before).toBeLessThanOrEqual(7);

    // Rolled back: the next run sees the thread as the first run left it.
    server.setScript([{ content: "fine" }]);
    await s.send({ prompt: "and now?" }, () => {}, quiet());
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("work forever");
  });

  it("takes the default of 400 steps when DEERFLOW_RUN_STEP_LIMIT is not a whole number ≥ 1", () => {
    for (const bad of ["", "abc", "0", "-3", "2.5"]) {
      process.env.DEERFLOW_RUN_STEP_LIMIT = bad;
      expect(runStepLimit()).toBe(400);
    }
    process.env.DEERFLOW_RUN_STEP_LIMIT = "40";
    expect(runStepLimit()).toBe(40);
  });
});
