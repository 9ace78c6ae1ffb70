// The debug log of a run, in-process against the loopback model: a good run leaves its requests (model, message
// count, tokens, status, duration), its tool calls (name, duration, exit code) and its start and end, never the
// conversation's text or a key; a run that fails in the field (the model answering 500) leaves every attempt, the
// retries and the error with its stack.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDebugLog, openDebugLog } from "../../src/model/debug-log.js";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";

const env = useInProcessModel("deerflow-debug-log-run-");
let server: TestModelServer;
let home: string;
let cwd: string;
let file: string;
beforeEach(() => {
  ({ server, home, cwd } = env());
  file = join(env().root, "debug.jsonl");
  openDebugLog({ file, secrets: ["sk-test-key-123456"] });
});
afterEach(() => closeDebugLog());

type Line = Record<string, unknown> & { event: string };
const lines = (): Line[] =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
const send = (prompt: string) => createChatSession({ home, model: "test-model", cwd }).send({ prompt }, () => {}, new AbortController().signal);

describe("the debug log of a run", () => {
  it("summarizes requests, tool calls and the run, and holds no text of the conversation nor the key", async () => {
    server.setScript((req) =>
      (req.body.messages as unknown[]).some((m) => (m as { role: string }).role === "tool")
        ? { content: "The folder PRIVATE-ANSWER-TEXT is missing.", usage: { prompt_tokens: 300, completion_tokens: 9 } }
        : { toolCalls: [{ id: "ls1", name: "bash", args: { command: "ls no-such-folder" } }], usage: { prompt_tokens: 200, completion_tokens: 12 } },
    );
    const r = await send("PRIVATE-PROMPT-TEXT: list no-such-folder");
    expect(r.result.status).toBe("success");

    const log = lines();
    const events = log.map((l) => l.event);
    expect(events.indexOf("run.started")).toBeLessThan(events.indexOf("tool.call"));
    expect(events.indexOf("tool.call")).toBeLessThan(events.indexOf("run.completed"));
    expect(events).toContain("run.ended");
    const requests = log.filter((l) => l.event === "model.request" && l.tools !== undefined);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ endpoint: server.url, model: "test-model", stream: true, status: 200, tokens: { input: 200, output: 12, total: 212 }, duration_ms: expect.any(Number) });
    expect(requests[1]).toMatchObject({ status: 200, tokens: { input: 300, output: 9 } });
    expect(Number(requests[1]!.messages)).toBeGreaterThan(Number(requests[0]!.messages));
    expect(log.find((l) => l.event === "tool.call")).toMatchObject({ tool: "bash", status: "ok", exit_code: 2, duration_ms: expect.any(Number) });
    expect(log.find((l) => l.event === "message.completed")).toMatchObject({ tool_calls: ["bash"], usage: { input_tokens: 200 } });
    expect(log.find((l) => l.event === "run.ended")).toMatchObject({ status: "success", stop_reason: "end_turn", duration_ms: expect.any(Number) });

    const text = readFileSync(file, "utf8");
    for (const secret of ["PRIVATE-PROMPT-TEXT", "PRIVATE-ANSWER-TEXT", "sk-test-key-123456", "no-such-folder"]) expect(text).not.toContain(secret);
  });

  it("a model failing with 500 leaves every attempt, each retry and the run's error with its stack", async () => {
    const fail = { status: 500, error: "upstream exploded (key sk-test-key-123456)", headers: { "retry-after-ms": "1" } };
    server.setScript([fail, fail, fail, fail]);
    await expect(send("hello")).rejects.toThrow(/failed after 4 attempts/);

    const log = lines();
    const attempts = log.filter((l) => l.event === "model.request" && l.tools !== undefined);
    expect(attempts).toHaveLength(4);
    for (const a of attempts) expect(a).toMatchObject({ status: 500, error: expect.stringContaining("upstream exploded"), duration_ms: expect.any(Number) });
    expect(log.filter((l) => l.event === "model.retry").map((l) => l.attempt)).toEqual([2, 3, 4]);
    expect(log.find((l) => l.event === "run.failed")).toMatchObject({ error: expect.stringMatching(/after 4 attempts/), exit_code: 1, stack: expect.stringContaining("\n    at ") });
    expect(readFileSync(file, "utf8")).not.toContain("sk-test-key-123456");
  });
});
