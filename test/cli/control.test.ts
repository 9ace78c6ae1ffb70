// End to end through `deerflow run` and the test model: the control middlewares as a user meets them.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { fixture, writeRc } from "../support/mcp.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();
let sb: Sandbox;

const flat = (req: RecordedRequest) => JSON.stringify(req.body.messages);
const systemText = (req: RecordedRequest) => {
  const first = req.body.messages[0];
  expect(first.role).toBe("system");
  return typeof first.content === "string" ? first.content : first.content.map((b: { text: string }) => b.text).join("");
};

async function runJson(args: string[]) {
  const r = await runCli(sb, ["run", "--output-format", "json", ...args]);
  return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

describe("control middlewares through deerflow run", () => {
  it("a clarification exits 3 with the question; the answer continues the thread and the model sees both", async () => {
    sb = e2e.sandbox();
    e2e.server.push({
      toolCalls: [
        {
          id: "q1",
          name: "ask_clarification",
          args: { question: "Which database should I use?", clarification_type: "approach_choice", options: ["SQLite", "Postgres"] },
        },
      ],
    });
    const asked = await runCli(sb, ["run", "set up persistence"]);
    expect(asked.exitCode).toBe(3);
    expect(asked.stdout).toContain("Which database should I use?");
    expect(asked.stdout).toMatch(/1\. SQLite/);
    expect(asked.stdout).toMatch(/2\. Postgres/);
    const threadId = /--thread ([0-9a-f]{12})/.exec(asked.stderr)![1]!;
    expect(e2e.server.requests).toHaveLength(1);

    e2e.server.push({ content: "Using SQLite." });
    const answered = await runCli(sb, ["run", "--thread", threadId, "SQLite please"]);
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toBe("Using SQLite.\n");
    const next = flat(e2e.server.requests[1]!);
    expect(next).toContain("Which database should I use?");
    expect(next).toContain("SQLite please");
  });

  it("a model that repeats one tool call forever is warned, then stopped: exit 5, loop_capped", async () => {
    sb = e2e.sandbox();
    e2e.server.setScript(() => ({ toolCalls: [{ name: "bash", args: { command: "echo same" } }] }));
    const r = await runJson(["do it"]);
    expect(r.exitCode).toBe(5);
    expect(r.json.stop_reason).toBe("loop_capped");
    expect(r.json.final_text).toContain("[FORCED STOP]");
    const warned = e2e.server.requests.findIndex((q) => flat(q).includes("[LOOP DETECTED]"));
    expect(warned).toBeGreaterThan(0);
    expect(e2e.server.requests.length).toBeGreaterThan(warned);
    expect(e2e.server.requests.length).toBeLessThanOrEqual(6);
  });

  it("guards come from .deerflowrc: a tighter loop limit stops sooner", async () => {
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ guards: { loopWarn: 2, loopStop: 3 } }));
    trustProject(sb);
    e2e.server.setScript(() => ({ toolCalls: [{ name: "bash", args: { command: "echo same" } }] }));
    const r = await runJson(["do it"]);
    expect(r.exitCode).toBe(5);
    expect(r.json.stop_reason).toBe("loop_capped");
    expect(e2e.server.requests).toHaveLength(3);
    expect(flat(e2e.server.requests[2]!)).toContain("[LOOP DETECTED]");
  });

  it("a 500 followed by success is retried and answers", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ status: 500, error: "upstream exploded" }, { content: "recovered" });
    const r = await runCli(sb, ["run", "hi"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("recovered\n");
    expect(e2e.server.requests).toHaveLength(2);
  });

  it("a tool call in a length-truncated answer never executes: exit 5, model_length_capped", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "w1", name: "write_file", args: { path: "truncated.txt", content: "should not exist" } }], finishReason: "length" });
    const r = await runJson(["write it"]);
    expect(r.exitCode).toBe(5);
    expect(r.json.stop_reason).toBe("model_length_capped");
    expect(existsSync(join(sb.cwd, "truncated.txt"))).toBe(false);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("the system prompt sent to the model is byte-identical on turn 1 and turn 5 of a thread (60 deferred MCP tools, one promoted on turn 3)", async () => {
    sb = e2e.sandbox();
    // The deferred tools' listing is part of the system prompt; promoting one changes the tool list only.
    writeRc(sb, { s1: fixture("--tools", "20", "--prefix", "a"), s2: fixture("--tools", "20", "--prefix", "b"), s3: fixture("--tools", "20", "--prefix", "c") });
    e2e.server.push({ content: "one" });
    const first = await runJson(["turn 1"]);
    let spent = first.json.usage.total_tokens;
    for (let turn = 2; turn <= 5; turn++) {
      if (turn === 3) e2e.server.push({ toolCalls: [{ id: "ts", name: "tool_search", args: { query: "select:mcp__s2__b_3" } }] });
      e2e.server.push({ content: `answer ${turn}` });
      const r = await runJson(["--thread", first.json.thread_id, `turn ${turn}`]);
      expect(r.exitCode).toBe(0);
      spent += r.json.usage.total_tokens;
      // Token usage per run and per thread: the thread's total is the sum of its runs, plus what memory extraction
      // spent after them (the thread's, never a run's: docs/events.md, Token usage).
      expect(r.json.thread_usage.total_tokens - (r.json.thread_usage.by_source?.memory?.total_tokens ?? 0)).toBe(spent);
    }
    expect(e2e.server.requests).toHaveLength(6);
    expect(systemText(e2e.server.requests[0]!)).toContain("- mcp__s2__b_3: ");
    for (const req of e2e.server.requests) expect(systemText(req)).toBe(systemText(e2e.server.requests[0]!));
    const tools = (req: RecordedRequest) => (req.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    expect(tools(e2e.server.requests[3]!)).toContain("mcp__s2__b_3");
    expect(tools(e2e.server.requests[2]!)).not.toContain("mcp__s2__b_3");
    // Exactly one system message, first; the date reminder is a hidden user-role message, sent once per day.
    for (const req of e2e.server.requests) expect(req.body.messages.filter((m: { role: string }) => m.role === "system")).toHaveLength(1);
    expect(flat(e2e.server.requests[4]!).match(/<system-reminder>/g)).toHaveLength(1);
  });

  it("write_todos updates stream as todos.updated events; the title lands in the thread index", async () => {
    sb = e2e.sandbox();
    e2e.server.push(
      {
        toolCalls: [
          {
            id: "t1",
            name: "write_todos",
            args: {
              todos: [
                { content: "read the code", status: "in_progress" },
                { content: "fix the bug", status: "pending" },
              ],
            },
          },
        ],
      },
      { content: "planned" },
    );
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "fix the login bug in the app"]);
    expect(r.exitCode).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const todos = events.find((e) => e.type === "todos.updated");
    expect(todos.todos).toEqual([
      { content: "read the code", status: "in_progress" },
      { content: "fix the bug", status: "pending" },
    ]);
    const threads = JSON.parse((await runCli(sb, ["threads", "--json"])).stdout);
    expect(threads[0].title).toBe("Test thread title");
    expect(e2e.server.titleRequests).toHaveLength(1);
  });

  it("todos by default: the model has write_todos (described without plan mode) and its list streams", async () => {
    sb = e2e.sandbox();
    const toolOf = (req: RecordedRequest) => (req.body.tools as { function: { name: string; description: string } }[]).find((t) => t.function.name === "write_todos");
    e2e.server.push({ toolCalls: [{ id: "t1", name: "write_todos", args: { todos: [{ content: "look at the code", status: "in_progress" }] } }] }, { content: "listed" });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "tidy the repo"]);
    expect(r.exitCode).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === "todos.updated").todos).toEqual([{ content: "look at the code", status: "in_progress" }]);
    const plain = toolOf(e2e.server.requests[0]!);
    expect(plain?.function.description).not.toMatch(/plan mode/i);
  });
});
