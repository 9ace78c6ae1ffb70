// What misbehaving providers and proxies send, through the built CLI: every case ends in a clear outcome — the run
// succeeds on a retry, or one line names the endpoint and the cause — never "internal error", never a command run
// from arguments that were cut or malformed.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { RawReply } from "../support/openai-server.js";
import { rawSse } from "./fixtures.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();

function configure(sb: Sandbox, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { p: { model: "provider-model", baseUrl: e2e.server.url, apiKey: "sk-test-key-123456", ...extra } } }));
  trustProject(sb);
}
const run = (sb: Sandbox, ...args: string[]) => runCli(sb, ["run", "-m", "p", ...args]);

/** Ollama-style chunk (the framing that reuses ids). */
const chunk = (delta: Record<string, unknown>, finish: string | null = null, id = "chatcmpl-7") => ({
  id,
  object: "chat.completion.chunk",
  created: 1744438886,
  model: "qwen2.5-coder:7b",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const DONE = "data: [DONE]\n\n";
const toolTurn = (command: string, callId: string, id = "chatcmpl-7"): RawReply =>
  rawSse([
    chunk({ role: "assistant", content: "", tool_calls: [{ id: callId, index: 0, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }] }, null, id),
    chunk({}, "tool_calls", id),
    DONE,
  ]);
const answer = (text: string, id = "chatcmpl-7"): RawReply => rawSse([chunk({ role: "assistant", content: text }, null, id), chunk({}, "stop", id), DONE]);

const clean = (stderr: string) => {
  expect(stderr).not.toMatch(/internal error|From chunk|Could not parse|\n\s+at .+:\d+:\d+/);
};
// A new thread works in the directory it was started in: the sandbox's project folder.
const workspaceFile = (sb: Sandbox, name: string) => existsSync(join(sb.cwd, name));
const toolResults = (body: any) => (body.messages as any[]).filter((m) => m.role === "tool").map((m) => String(m.content));

describe("ids, roles and fragments", () => {
  it("a provider that reuses one completion id for 30 answers loses nothing: every call and result stays in the thread", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    let n = 0;
    e2e.server.setScript(() => (++n <= 30 ? toolTurn(`echo step-${n}`, `call_${n}`) : answer(`All ${n - 1} steps done.`)));
    const r = await run(sb, "--max-turns", "40", "--output-format", "json", "do the steps");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.final_text).toBe("All 30 steps done.");
    const last = e2e.server.requests.at(-1)!.body;
    expect((last.messages as any[]).filter((m) => m.role === "assistant" && m.tool_calls).map((m) => m.tool_calls[0].id)).toEqual(Array.from({ length: 30 }, (_, i) => `call_${i + 1}`));
    expect(toolResults(last).map((c) => c.match(/step-\d+/)?.[0])).toEqual(Array.from({ length: 30 }, (_, i) => `step-${i + 1}`));

    e2e.server.setScript([answer("Still here.")]);
    const again = await run(sb, "--thread", out.thread_id, "anything left?");
    expect(again.exitCode).toBe(0);
    const history = e2e.server.requests.at(-1)!.body.messages as any[];
    expect(history.filter((m) => m.role === "tool")).toHaveLength(30);
    expect(history.filter((m) => m.role === "assistant" && m.content === "All 30 steps done.")).toHaveLength(1);
  });

  it("a stream that never sends delta.role is an assistant answer, not a crash", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(rawSse([chunk({ content: "No " }), chunk({ content: "role here." }), chunk({}, "stop"), DONE]));
    const r = await run(sb, "hi");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("No role here.\n");
  });

  it("indexless fragments of two calls are joined per call", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const a = JSON.stringify({ command: "echo first-call" });
    const b = JSON.stringify({ command: "echo second-call" });
    e2e.server.push(
      rawSse([
        chunk({ role: "assistant", tool_calls: [{ id: "fc-1", type: "function", function: { name: "bash", arguments: a.slice(0, 9) } }] }),
        chunk({ tool_calls: [{ function: { arguments: a.slice(9) } }] }),
        chunk({ tool_calls: [{ id: "fc-2", type: "function", function: { name: "bash", arguments: b.slice(0, 5) } }] }),
        chunk({ tool_calls: [{ function: { arguments: b.slice(5) } }] }),
        chunk({}, "tool_calls"),
        DONE,
      ]),
      answer("Both ran."),
    );
    const r = await run(sb, "two calls");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    const results = toolResults(e2e.server.requests[1]!.body);
    expect(results).toHaveLength(2);
    expect(results[0]).toContain("first-call");
    expect(results[1]).toContain("second-call");
  });
});

describe("tool calls run only when complete and valid", () => {
  it("truncated arguments are not repaired and run: the model is told what was wrong", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const truncated = '{"command": "echo partial > marker.txt';
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "call_t", index: 0, type: "function", function: { name: "bash", arguments: truncated } }] }), chunk({}, "tool_calls"), DONE]),
      answer("I will resend it."),
    );
    const r = await run(sb, "write the marker");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(workspaceFile(sb, "marker.txt")).toBe(false);
    const [result] = toolResults(e2e.server.requests[1]!.body);
    expect(result).toMatch(/arguments were not valid JSON: .*; nothing was run, resend the complete call/);
  });

  it("a call without an id does not disappear: it is answered with an error and nothing runs", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [{ index: 0, type: "function", function: { name: "bash", arguments: '{"command":"echo ran > noid.txt"}' } }] }), chunk({}, "tool_calls"), DONE]),
      answer("Understood."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(workspaceFile(sb, "noid.txt")).toBe(false);
    expect(toolResults(e2e.server.requests[1]!.body)[0]).toMatch(/the call had no id/);
  });

  it("a stream cut in the middle of the arguments is never acted on: it is retried", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      {
        ...rawSse([chunk({ role: "assistant", tool_calls: [{ id: "call_c", index: 0, type: "function", function: { name: "bash", arguments: '{"command": "echo half > cut.txt' } }] })]),
        end: "destroy",
      },
      toolTurn("echo whole > whole.txt", "call_w"),
      answer("Done after the retry."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Done after the retry.\n");
    expect(workspaceFile(sb, "cut.txt")).toBe(false);
    expect(workspaceFile(sb, "whole.txt")).toBe(true);
    expect(r.stderr).toMatch(/retrying/);
  });

  it("a stream that ends cleanly but without finish_reason or [DONE] is incomplete, retried, and finally a clear error", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.setScript(() =>
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "call_i", index: 0, type: "function", function: { name: "bash", arguments: '{"command":"echo x > inc.txt"}' } }] })]),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(workspaceFile(sb, "inc.txt")).toBe(false);
    expect(r.stderr).toMatch(/Model request failed after 4 attempts \([\d.]+ s in total\): the stream from http:\/\/127\.0\.0\.1:\d+\/v1 ended before the answer was complete/);
    expect(e2e.server.requests).toHaveLength(4);
  });
});

describe("stalls and protocol errors", () => {
  it("one chunk, then keep-alive comments and silence: the idle timeout ends it within the configured bound", async () => {
    const sb = e2e.sandbox();
    // Every attempt stalls, so a short bound cannot cut a healthy stream here (four waits of it, plus backoff).
    configure(sb, { idleTimeout: 0.3 });
    e2e.server.setScript(() => ({ ...rawSse([chunk({ role: "assistant", content: "Thinking" }), ": keep-alive\n\n", ": keep-alive\n\n"]), end: "hang" as const }));
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Model request failed after 4 attempts \([\d.]+ s in total\): no data from http:\/\/127\.0\.0\.1:\d+\/v1 for 0\.3 s \(idle timeout\)\./);
    expect(e2e.server.requests).toHaveLength(4);
  });

  it("a stall followed by a good answer on the retry succeeds", async () => {
    const sb = e2e.sandbox();
    configure(sb, { idleTimeout: 1 });
    e2e.server.push({ ...rawSse([chunk({ role: "assistant", content: "Thin" })]), end: "hang" }, answer("Recovered."));
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Recovered.\n");
  });

  it("garbage SSE: one line naming the endpoint, not retried, no SDK noise", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push({ raw: [`data: ${JSON.stringify(chunk({ role: "assistant", content: "ok" }))}\n\n`, "data: {not json at all\n\n", DONE] });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Model request failed: the stream from http:\/\/127\.0\.0\.1:\d+\/v1 is not valid server-sent events \(unparsable data: "\{not json at all"\)\./);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("a stream whose chunks carry no choices is a protocol error", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.setScript(() => rawSse([{ id: "x", object: "chat.completion.chunk", choices: [] }, { id: "x", object: "chat.completion.chunk" }, DONE]));
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/carried no choices/);
  });

  it("an HTML page with status 200 (a captive portal, a wrong baseUrl): not the OpenAI API", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push({ raw: ["<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please log in</body></html>"], headers: { "content-type": "text/html; charset=utf-8" } });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/answered HTTP 200 with text\/html; charset=utf-8, not the OpenAI API \("<!DOCTYPE html>.*"\).*baseUrl/);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("an error object inside a 200 stream (OpenRouter mid-stream) is retried as the provider's failure", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([
        chunk({ role: "assistant", content: "Par" }),
        {
          id: "gen-1",
          object: "chat.completion.chunk",
          created: 1,
          model: "m",
          provider: "x",
          error: { code: 502, message: "Provider returned error" },
          choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
        },
      ]),
      answer("Second time lucky."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Second time lucky.\n");
  });
});

describe("secrets the provider echoes", () => {
  it("a 400 that quotes the API key: masked on stderr, in stream-json and in the database", async () => {
    const sb = e2e.sandbox();
    const key = "zz9-plural-z-alpha-key"; // not shaped like a key: only the configured secret can mask it
    configure(sb, { apiKey: key });
    const body = JSON.stringify({ error: { message: `Invalid request: unknown field 'api_key=${key}' (Authorization: Bearer ${key})`, type: "invalid_request_error", code: null } });
    e2e.server.push({ raw: [body], status: 400, headers: { "content-type": "application/json" } });
    const r = await run(sb, "--output-format", "stream-json", "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Model request failed: the request was refused \(HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1 for model "provider-model"\): .*Invalid request/);
    expect(e2e.server.requests).toHaveLength(1);
    expect(r.stderr + r.stdout).toContain("***");
    expect(r.stderr + r.stdout).not.toContain(key);
    const db = new Database(join(sb.home, "deerflow.sqlite"), { readonly: true });
    try {
      const runs = db.prepare("SELECT error FROM runs").all() as { error: string | null }[];
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.map((x) => x.error).join("\n")).toContain("HTTP 400");
    } finally {
      db.close();
    }
    for (const f of readdirSync(sb.home).filter((f) => f.startsWith("deerflow.sqlite"))) {
      expect(readFileSync(join(sb.home, f)).includes(Buffer.from(key))).toBe(false);
    }
  });
});

describe("reasoning", () => {
  it("reasoning_content streams as message.reasoning, never as answer text (stream-json)", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", content: null, reasoning_content: "Secret plan. " }), chunk({ reasoning: "More plan." }), chunk({ content: "The answer." }), chunk({}, "stop"), DONE]),
    );
    const r = await run(sb, "--output-format", "stream-json", "go");
    expect(r.exitCode).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(
      events
        .filter((e) => e.type === "message.reasoning")
        .map((e) => e.text)
        .join(""),
    ).toBe("Secret plan. More plan.");
    expect(
      events
        .filter((e) => e.type === "message.delta")
        .map((e) => e.text)
        .join(""),
    ).toBe("The answer.");
    expect(events.at(-1)).toMatchObject({ type: "run.completed", final_text: "The answer." });
  });
});

// The twenty-ninth pass (A29c-4/5/9): a key split across reasoning pieces, the configured key without a key's shape,
// and a key in an edit's diff reached stream-json whole.
describe("keys in what stream-json prints", () => {
  const GH = "ghp_Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h0J2k4";
  const events = (stdout: string) =>
    stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));

  it("a key split across reasoning pieces is masked as a whole", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([
        chunk({ role: "assistant", content: null, reasoning_content: `thinking about ${GH.slice(0, 10)}` }),
        chunk({ reasoning_content: `${GH.slice(10)} done` }),
        chunk({ content: "ok" }),
        chunk({}, "stop"),
        DONE,
      ]),
    );
    const r = await run(sb, "--output-format", "stream-json", "go");
    expect(r.exitCode).toBe(0);
    const thought = events(r.stdout)
      .filter((e) => e.type === "message.reasoning")
      .map((e) => e.text)
      .join("");
    expect(thought).toBe("thinking about *** done");
  });

  it("the model key from the configuration, without a key's shape, is masked in the answer and an edit's diff", async () => {
    const sb = e2e.sandbox();
    const key = "Gw7Tq3Xn9Lp2Vr5Ks8Hd4Mb6Yc1Za0";
    configure(sb, { apiKey: key });
    const write = JSON.stringify({ path: "notes.txt", content: `x ${GH} y\n` });
    e2e.server.push(
      rawSse([chunk({ role: "assistant", content: "", tool_calls: [{ id: "w1", index: 0, type: "function", function: { name: "write_file", arguments: write } }] }), chunk({}, "tool_calls"), DONE]),
      answer(`the key is ${key}`),
    );
    const r = await run(sb, "--yes", "--output-format", "stream-json", "go");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(key);
    expect(r.stdout).not.toContain(GH);
    const done = events(r.stdout).find((e) => e.type === "tool.completed" && e.name === "write_file");
    expect(JSON.stringify(done.diff)).toContain("***");
  });
});
