// End to end against the loopback test model: the CLI in-process (runCli: argv parsing, output formats, exit codes),
// and the built bin/deerflow spawned where the process is the contract (exit status, stdout/stderr split, one-line
// errors with no stack trace, stream-json, --version's imports, Node's own warnings).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, type Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();
let sb: Sandbox;

const noStackTrace = (s: string) => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

function userText(req: { body: any }): string {
  const msgs = req.body.messages as { role: string; content: unknown }[];
  return msgs
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

describe("deerflow run", () => {
  it("answers a prompt given as an argument: answer on stdout, progress on stderr (spawned: exit 0, the two streams)", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "Hello from the test model." });
    const r = await sb.run(["run", "say", "hi"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Hello from the test model.\n");
    expect(r.stderr).toMatch(/new thread [0-9a-f]{12}/);
    expect(e2e.server.requests).toHaveLength(1);
    expect(userText(e2e.server.requests[0]!)).toContain("say hi");
    expect(e2e.server.requests[0]!.body.model).toBe("test-model");
    expect(e2e.server.requests[0]!.body.stream).toBe(true);
    expect(e2e.server.requests[0]!.headers.authorization).toBe("Bearer sk-test-key-123456");
  });

  it("reads the prompt from piped stdin", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "Got it." });
    const r = await runCli(sb, ["run"], { input: "explain this piped prompt\n" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Got it.\n");
    expect(userText(e2e.server.requests[0]!)).toContain("explain this piped prompt");
  });

  it("refuses an empty prompt with exit 2 instead of waiting", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["run"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/No prompt given/);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("prints the documented JSON object with --output-format json", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "The answer is 42.", usage: { prompt_tokens: 11, completion_tokens: 5 } });
    e2e.server.titleReply = { content: "The answer", usage: { prompt_tokens: 3, completion_tokens: 1 } };
    const r = await runCli(sb, ["run", "--output-format", "json", "what is the answer?"]);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(["files", "final_text", "goal", "new_thread", "permission_denials", "run_id", "status", "stop_reason", "thread_id", "thread_usage", "usage"]);
    expect(out).toMatchObject({ status: "success", stop_reason: "end_turn", final_text: "The answer is 42.", goal: null, new_thread: true, permission_denials: [], files: [] });
    // The run's tokens are its answer's and its new thread's title's (usage-sources.test.ts covers every source).
    const usage = {
      input_tokens: 14,
      output_tokens: 6,
      total_tokens: 20,
      by_source: { lead: { input_tokens: 11, output_tokens: 5, total_tokens: 16 }, title: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } },
    };
    expect(out.usage).toEqual(usage);
    expect(out.thread_usage).toEqual(usage);
    expect(out.thread_id).toMatch(/^[0-9a-f]{12}$/);
  });

  it("stream-json writes one event per line, first run.started, last run.completed (spawned)", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "streamed words arrive in pieces" });
    const r = await sb.run(["run", "--output-format", "stream-json", "go"]);
    expect(r.exitCode).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("run.started");
    expect(events.at(-1)).toMatchObject({ type: "run.completed", status: "success", final_text: "streamed words arrive in pieces" });
    const deltas = events.filter((e) => e.type === "message.delta").map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("streamed words arrive in pieces");
  });

  it("an invalid .deerflowrc exits 2 with one line naming the file and the key (spawned: the usage-error contract)", async () => {
    sb = e2e.sandbox();
    const rc = join(sb.cwd, ".deerflowrc");
    writeFileSync(rc, JSON.stringify({ models: { fast: { model: "x", temperature: "hot" } } }));
    const r = await sb.run(["run", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(rc);
    expect(r.stderr).toContain("models.fast.temperature");
    noStackTrace(r.stderr);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("a misspelled key in an ancestor's .deerflowrc is reported, not ignored", async () => {
    sb = e2e.sandbox();
    const rc = join(sb.userHome, ".deerflowrc");
    writeFileSync(rc, JSON.stringify({ modles: {} }));
    const nested = join(sb.cwd, "a", "b");
    mkdirSync(nested, { recursive: true });
    const r = await runCli(sb, ["run", "hi"], { cwd: nested });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(rc);
    expect(r.stderr).toContain('"modles"');
  });

  it("exits 2 and says what to set when no model is configured", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["run", "hi"], { env: { DEERFLOW_MODEL: undefined } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/No model configured/);
    expect(r.stderr).toMatch(/DEERFLOW_MODEL/);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("an untrusted project's only model entry is not the default: one line says so, nothing is sent (the eighteenth pass's T1)", async () => {
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { "openrouter/evil-provider": { model: "openrouter/evil-provider", contextWindow: 100000 } } }));
    const r = await runCli(sb, ["run", "hi"], { env: { DEERFLOW_MODEL: undefined } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`deerflow: No model configured: ${join(sb.cwd, ".deerflowrc")} is not trusted, so its model openrouter/evil-provider is not chosen by default.`);
    expect(e2e.server.requests.filter((q) => q.body.messages)).toEqual([]);
  });

  it("uses named models from .deerflowrc with $ENV api keys", async () => {
    sb = e2e.sandbox(false);
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ defaultModel: "local", models: { local: { model: "qwen-coder", baseUrl: e2e.server.url, apiKey: "$MY_LOCAL_KEY" } } }));
    trustProject(sb);
    e2e.server.push({ content: "from the named model" });
    const r = await runCli(sb, ["run", "hi"], { env: { MY_LOCAL_KEY: "secret-local-key" } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("from the named model\n");
    expect(e2e.server.requests[0]!.body.model).toBe("qwen-coder");
    expect(e2e.server.requests[0]!.headers.authorization).toBe("Bearer secret-local-key");
    const missing = await runCli(sb, ["run", "hi"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("MY_LOCAL_KEY");
  });

  it("a dead endpoint is retried, then exit 1 with one clear line and no stack trace (spawned: the runtime-error contract)", async () => {
    sb = e2e.sandbox();
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await sb.run(["run", "hi"], { env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` } });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.trim().split("\n");
    // One line per retry (a jittered wait of 0 says "retrying now").
    const retries = lines.filter((l) => /; retrying (in [\d.]+ s|now), attempt [234] of 4$/.test(l));
    expect(retries).toHaveLength(3);
    const last = lines.at(-1)!;
    expect(last).toMatch(/^deerflow: Model request failed after 4 attempts/);
    // The waits said one by one are the waits taken: together never more than the total said at the end (three
    // 0.3 s waits once read "retrying in 1 s" three times, then "0.8 s in total").
    const waits = retries.map((l) => Number(/retrying in ([\d.]+) s/.exec(l)?.[1] ?? 0));
    for (const w of waits) expect(w).toBeLessThan(8);
    const total = Number(/\(([\d.]+) s in total\)/.exec(last)?.[1]);
    expect(total).toBeGreaterThanOrEqual(Math.round(waits.reduce((a, b) => a + b, 0) * 10) / 10);
    expect(last).toContain(`127.0.0.1:${port}`);
    noStackTrace(r.stderr);
  });

  it("a 429 followed by success is retried and answers", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ status: 429, error: "Rate limit reached" }, { content: "after the rate limit" });
    const r = await runCli(sb, ["run", "hi"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("after the rate limit\n");
    expect(e2e.server.requests).toHaveLength(2);
    // One progress line per retry on stderr (a log, so each stays): what failed, the wait, which attempt comes next.
    expect(r.stderr).toMatch(/^deerflow: model endpoint: rate limited \(HTTP 429 .*; retrying (in [\d.]+ s|now), attempt 2 of 4$/m);
  });

  it("a 401 is not retried and says the key was rejected", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ status: 401, error: "Incorrect API key provided" });
    const r = await runCli(sb, ["run", "hi"]);
    expect(r.exitCode).toBe(1);
    expect(e2e.server.requests).toHaveLength(1);
    expect(r.stderr.toLowerCase()).toContain("api key");
    noStackTrace(r.stderr);
  });

  it("continues a thread with --thread: the model receives the whole history", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ content: "First answer." });
    const first = await runCli(sb, ["run", "--output-format", "json", "first question"]);
    const { thread_id } = JSON.parse(first.stdout);
    e2e.server.push({ content: "Second answer." });
    const second = await runCli(sb, ["run", "--thread", thread_id, "second question"]);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe("Second answer.\n");
    const msgs = e2e.server.requests[1]!.body.messages.map((m: any) => [m.role, m.content]);
    // The system prompt and the hidden dated reminder aside, the model sees the conversation as it happened.
    expect(msgs.filter((m: any) => m[0] !== "system" && !String(m[1]).startsWith("<system-reminder>"))).toEqual([
      ["user", "first question"],
      ["assistant", "First answer."],
      ["user", "second question"],
    ]);
  });

  it("an unknown --thread is exit 2, not a silent new thread", async () => {
    sb = e2e.sandbox();
    const r = await runCli(sb, ["run", "--thread", "doesnotexist", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Thread doesnotexist not found/);
    expect(e2e.server.requests).toHaveLength(0);
  });
});

describe("fast paths and other commands", () => {
  it("--version prints the version without loading LangChain, Ink or the model client", async () => {
    sb = e2e.sandbox(false);
    const trace = join(sb.userHome, "imports.txt");
    const r = await execa(process.execPath, ["--import", new URL("../support/trace-imports.mjs", import.meta.url).href, BIN, "--version"], {
      env: { ...sb.env, DEERFLOW_TRACE_IMPORTS: trace },
      extendEnv: false,
      reject: false,
    });
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout).trim()).toBe(pkg.version);
    const loaded = readFileSync(trace, "utf8");
    expect(loaded).toContain("dist/cli/main.js");
    expect(loaded).not.toMatch(/langchain|@langchain|\/ink\/|openai|better-sqlite3|zod/);
  });

  it("--help lists the commands; an unknown flag is a usage error (exit 2)", async () => {
    sb = e2e.sandbox(false);
    const help = await runCli(sb, ["--help"]);
    expect(help.exitCode).toBe(0);
    for (const c of ["run", "threads", "config", "doctor"]) expect(help.stdout).toContain(c);
    const bad = await runCli(sb, ["run", "--no-such-flag", "x"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown option/);
  });

  it("config masks secrets; --json is machine readable", async () => {
    sb = e2e.sandbox();
    const text = await runCli(sb, ["config"]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).not.toContain("sk-test-key-123456");
    expect(text.stdout).toContain(e2e.server.url);
    const json = await runCli(sb, ["config", "--json"]);
    const cfg = JSON.parse(json.stdout);
    expect(cfg.model).toMatchObject({ name: "test-model", model: "test-model", baseUrl: e2e.server.url });
    expect(json.stdout).not.toContain("sk-test-key-123456");
    expect(cfg.home).toBe(sb.home);
    expect(cfg.checkpoint).toEqual({ channelMode: "delta", explicitMode: false, snapshotFrequency: 20 });
  });

  it("flags override the environment, which overrides the file", async () => {
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ home: "/from/file", checkpoint: { channelMode: "delta" } }));
    const envWins = JSON.parse((await runCli(sb, ["config", "--json"], { env: { DEERFLOW_CHECKPOINT_MODE: "full" } })).stdout);
    expect(envWins.home).toBe(sb.home);
    expect(envWins.checkpoint.channelMode).toBe("full");
    const flagWins = JSON.parse((await runCli(sb, ["--home", join(sb.userHome, "h2"), "config", "--json"])).stdout);
    expect(flagWins.home).toBe(join(sb.userHome, "h2"));
    // The file's "home" needs trust, recorded where the user's setup (no DEERFLOW_HOME: ~/.deerflow) keeps it.
    expect((await runCli(sb, ["trust"], { env: { DEERFLOW_HOME: undefined } })).exitCode).toBe(0);
    const fileOnly = JSON.parse((await runCli(sb, ["config", "--json"], { env: { DEERFLOW_HOME: undefined } })).stdout);
    expect(fileOnly.home).toBe("/from/file");
    expect(fileOnly.checkpoint.channelMode).toBe("delta");
  });

  it("doctor prints one ✓/✗ line per check and fails on a dead endpoint", async () => {
    sb = e2e.sandbox();
    const ok = await runCli(sb, ["doctor"]);
    expect(ok.exitCode).toBe(0);
    const lines = ok.stdout.trim().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[1])).toEqual(["node", "sqlite", "home", "db", "config", "model", "sandbox", "git", "search", "web", "skills", "memory"]);
    expect(lines.every((l) => l.startsWith("✓"))).toBe(true);
    const bad = await runCli(sb, ["doctor"], { env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(/✗ model\s+http:\/\/127\.0\.0\.1:9\/v1 is not reachable/);
  });

  it("a model turn with many parallel tool calls runs them all, and stderr has no Node warning (spawned: Node writes its warnings)", async () => {
    sb = e2e.sandbox();
    // Providers send 10+ tool calls in one turn (a model reading a dozen files at once): each tool task listens on
    // the run's abort signal, and Node warned "MaxListenersExceededWarning" past 10 listeners.
    const calls = Array.from({ length: 14 }, (_, i) => ({ id: `c${i}`, name: "bash", args: { command: `echo part-${i}` } }));
    e2e.server.push({ toolCalls: calls });
    e2e.server.push({ content: "all done" });
    const r = await sb.run(["run", "--yes", "run them all"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("all done\n");
    const results = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    for (let i = 0; i < 14; i++) expect(results).toContain(`part-${i}`);
    expect(r.stderr).not.toMatch(/Warning|MaxListeners/);
  });
});
