// A hostile model through the built CLI: escape sequences, huge arguments, duplicate ids, odd but legal SSE framing;
// and a hostile or sloppy provider/proxy on the wire: bytes split anywhere, glued events, early [DONE], redirects to
// another host, gzip, runaway answers, long retry-after, every error-body shape.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { rawJson, rawSse } from "./fixtures.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();

function configure(sb: Sandbox, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { p: { model: "m", baseUrl: e2e.server.url, apiKey: "sk-test-key-123456", ...extra } } }));
  trustProject(sb);
}
const run = (sb: Sandbox, ...args: string[]) => runCli(sb, ["run", "-m", "p", ...args]);
const KEY = "sk-test-key-123456";
const clean = (stderr: string) => expect(stderr).not.toMatch(/internal error|From chunk|\n\s+at .+:\d+:\d+/);
const sseText = (...events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + DONE;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const DONE = "data: [DONE]\n\n";
const call = (id: string, command: string, index = 0) => ({ id, index, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } });
const answer = (text: string) => rawSse([chunk({ role: "assistant", content: text }), chunk({}, "stop"), DONE]);
const toolResults = (body: any) => (body.messages as any[]).filter((m) => m.role === "tool");
// A new thread works in the directory it was started in: the sandbox's project folder.
const inWorkspace = (sb: Sandbox, name: string) => (existsSync(join(sb.cwd, name)) ? readFileSync(join(sb.cwd, name), "utf8") : undefined);

describe("hostile model", () => {
  it("escape sequences in the answer and in tool arguments never reach the terminal raw", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [call("c1", "printf 'ok\\033]52;c;ZXZpbA==\\007\\033[2J'")] }), chunk({}, "tool_calls"), DONE]),
      answer("Done \u001b[2J\u001b]52;c;ZXZpbA==\u0007 clean."),
    );
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/\u001b|\u0007/);
    expect(r.stdout).toContain("Done");
  });

  it("a megabyte of arguments from a model that reports no usage: the estimate makes the token budget stop it", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const big = "x".repeat(1_000_000);
    const args = JSON.stringify({ command: `echo ${big.slice(0, 10)} > big.txt`, padding: big });
    const frags = args.match(/[\s\S]{1,4096}/g)!;
    e2e.server.push(
      rawSse([
        chunk({ role: "assistant", tool_calls: [{ id: "c-big", index: 0, type: "function", function: { name: "bash", arguments: "" } }] }),
        ...frags.map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        chunk({}, "tool_calls"),
        DONE,
      ]),
      answer("Handled."),
    );
    const r = await run(sb, "--output-format", "json", "go");
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out.stop_reason).toBe("token_capped");
    expect(out.usage.estimated).toBe(true);
    expect(out.usage.total_tokens).toBeGreaterThan(250_000);
    expect(inWorkspace(sb, "big.txt")).toBeUndefined();
  });

  it("two calls with the same id in one answer: the first runs, the duplicate is refused with the reason", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(rawSse([chunk({ role: "assistant", tool_calls: [call("dup", "echo one > one.txt", 0), call("dup", "echo two > two.txt", 1)] }), chunk({}, "tool_calls"), DONE]), answer("Noted."));
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    expect(inWorkspace(sb, "one.txt")).toBe("one\n");
    expect(inWorkspace(sb, "two.txt")).toBeUndefined();
    const results = toolResults(e2e.server.requests[1]!.body);
    expect(results).toHaveLength(2);
    expect(new Set(results.map((m: any) => m.tool_call_id)).size).toBe(2);
    expect(results.map((m: any) => String(m.content)).join("\n")).toMatch(/the call id "dup" was used twice in one answer/);
  });

  it("the same tool call id in two turns: both results stay paired with their own call", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [call("call_0", "echo first")] }), chunk({}, "tool_calls"), DONE]),
      rawSse([chunk({ role: "assistant", tool_calls: [call("call_0", "echo second")] }), chunk({}, "tool_calls"), DONE]),
      answer("Both done."),
    );
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    const msgs = (e2e.server.requests[2]!.body.messages as any[]).filter((m) => m.role === "tool" || m.tool_calls);
    expect(msgs.map((m) => (m.role === "tool" ? String(m.content).trim() : JSON.parse(m.tool_calls[0].function.arguments).command))).toEqual(["echo first", "first", "echo second", "second"]);
  });

  it("legal but unusual framing: a BOM, CRLF line ends, multi-line data, id/event/retry fields, arguments as an object", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const first = JSON.stringify(chunk({ role: "assistant", content: "" }));
    const objArgs = { id: "c-obj", index: 0, type: "function", function: { name: "bash", arguments: { command: "echo object-args" } } };
    e2e.server.push(
      {
        raw: [
          `\uFEFFretry: 1000\r\nid: 1\r\nevent: message\r\ndata: ${first}\r\n\r\n`,
          `data: ${JSON.stringify(chunk({ tool_calls: [objArgs] })).replace(",", ",\ndata: ")}\r\n\r\n`,
          `data: ${JSON.stringify(chunk({}, "tool_calls"))}\r\n\r\n`,
          "data: [DONE]\r\n\r\n",
        ],
      },
      answer("Framing survived."),
    );
    const r = await run(sb, "go");
    expect(r.stderr).not.toMatch(/internal error|not valid|not server-sent/);
    expect(r.exitCode).toBe(0);
    expect(String(toolResults(e2e.server.requests[1]!.body)[0].content)).toContain("object-args");
  });

  it("an event stream mislabelled application/json (some proxies) is read as the stream it is", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push({ ...answer("Mislabelled but fine."), headers: { "content-type": "application/json" } });
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Mislabelled but fine.\n");
  });

  it("a call to a tool that does not exist gets an error result, the run goes on", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "c-x", index: 0, type: "function", function: { name: "rm_rf_everything", arguments: "{}" } }] }), chunk({}, "tool_calls"), DONE]),
      answer("Okay."),
    );
    const r = await run(sb, "go");
    expect(r.exitCode).toBe(0);
    expect(String(toolResults(e2e.server.requests[1]!.body)[0].content)).toMatch(/rm_rf_everything/);
  });
});

describe("hostile provider on the wire", () => {
  it("bytes split mid-UTF-8 and mid `data:` line, `data:` without a space, CRLF: read as the text it is", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const body = Buffer.from(`data:${JSON.stringify(chunk({ role: "assistant", content: "héllo wörld 🦌" }))}\r\n\r\ndata:${JSON.stringify(chunk({}, "stop"))}\r\n\r\ndata:[DONE]\r\n\r\n`);
    const o = body.indexOf(Buffer.from("ö")) + 1;
    const deer = body.indexOf(Buffer.from("🦌")) + 2;
    e2e.server.push({ raw: [body.subarray(0, 3), body.subarray(3, o), body.subarray(o, deer), body.subarray(deer)], chunkDelayMs: 20 });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("héllo wörld 🦌\n");
  });

  it("several chunks glued into one event (`{…}{…}`, seen from proxies) are read as several chunks", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push({
      raw: [`data: ${JSON.stringify(chunk({ role: "assistant", content: "glued " }))}${JSON.stringify(chunk({ content: "but whole" }))}\n\n`, `data: ${JSON.stringify(chunk({}, "stop"))}\n\n${DONE}`],
    });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("glued but whole\n");
  });

  it("[DONE] before any finish_reason, in the middle of the arguments: nothing runs, the model is told", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "c1", index: 0, type: "function", function: { name: "bash", arguments: '{"command": "echo hi > early.txt' } }] }), DONE]),
      answer("Understood."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(inWorkspace(sb, "early.txt")).toBeUndefined();
    expect(String(toolResults(e2e.server.requests[1]!.body)[0].content)).toMatch(/arguments were not valid JSON/);
  });

  it("finish_reason tool_calls with no tool calls and null content: an empty answer, asked again, then the real one", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(rawSse([chunk({ role: "assistant", content: null }), chunk({}, "tool_calls"), DONE]), answer("Real answer."));
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Real answer.\n");
  });

  it("a tool call without `type` and with arguments as an object runs once, as meant", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "c1", index: 0, function: { name: "bash", arguments: { command: "echo typed > notype.txt" } } }] }), chunk({}, "tool_calls"), DONE]),
      answer("Done."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(inWorkspace(sb, "notype.txt")).toBe("typed\n");
  });

  it("cumulative usage in every chunk is not counted twice", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const u = (n: number) => ({ usage: { prompt_tokens: 100, completion_tokens: n, total_tokens: 100 + n } });
    e2e.server.push(rawSse([{ ...chunk({ role: "assistant", content: "a" }), ...u(1) }, { ...chunk({ content: "b" }), ...u(2) }, { ...chunk({}, "stop"), ...u(2) }, DONE]));
    const r = await run(sb, "--output-format", "json", "go");
    clean(r.stderr);
    // The lead's call (the run's usage also holds the new thread's title call).
    expect(JSON.parse(r.stdout).usage.by_source.lead).toEqual({ input_tokens: 100, output_tokens: 2, total_tokens: 102 });
  });

  it("a gzip-encoded stream is decoded", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const body = gzipSync(sseText(chunk({ role: "assistant", content: "zipped" }), chunk({}, "stop")));
    e2e.server.push({ raw: [body.subarray(0, 10), body.subarray(10)], headers: { "content-type": "text/event-stream", "content-encoding": "gzip" } });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.stdout).toBe("zipped\n");
  });

  it("a 200 with content-type text/plain: one line naming the endpoint, not retried", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push({ raw: ["Service temporarily moved"], headers: { "content-type": "text/plain" } });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`the stream from ${e2e.server.url} is not server-sent events`);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("429 with retry-after 3600: fails at once and says why, instead of sleeping an hour", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.setScript(() => ({ status: 429, error: "slow down", headers: { "retry-after": "3600" } }));
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/rate limited \(HTTP 429 from .* for model "m"\): slow down\. The server asks to wait 3600 s \(retry-after\), longer than deerflow waits \(30 s\), so it did not retry\./);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("401 whose body echoes the bearer token: masked, not retried", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.setScript(() => ({ status: 401, error: `Invalid token: Bearer ${KEY}` }));
    const r = await run(sb, "--output-format", "json", "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(JSON.parse(r.stdout).error).toMatch(/the API key was rejected \(HTTP 401 from .* for model "m"\)/);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it("a redirect to another host is not followed (the conversation would go there); same-origin ones are", async () => {
    const seen: string[] = [];
    const other = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sseText(chunk({ role: "assistant", content: "elsewhere" }), chunk({}, "stop")));
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
    try {
      const sb = e2e.sandbox();
      configure(sb);
      e2e.server.push({ raw: [], status: 307, headers: { location: `http://localhost:${(other.address() as { port: number }).port}/v1/chat/completions` } });
      const r = await run(sb, "go");
      clean(r.stderr);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/answered HTTP 307, a redirect to another host \(http:\/\/localhost:\d+\); deerflow does not follow it/);
      expect(seen).toEqual([]);
      // doctor's look at the endpoint does not call the other host "reachable" either (A42a-1).
      const redirector = http.createServer((req, res) => {
        res.writeHead(307, { location: `http://localhost:${(other.address() as { port: number }).port}${req.url}` });
        res.end();
      });
      await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", () => r()));
      try {
        const doctor = await sb.run(["doctor"], { env: { OPENAI_BASE_URL: `http://127.0.0.1:${(redirector.address() as { port: number }).port}/v1` } });
        expect(doctor.stdout).toMatch(/model .* is not reachable: .*answered HTTP 307, a redirect to another host/);
        expect(seen).toEqual([]);
      } finally {
        redirector.close();
      }

      // A proxy that redirects within its own origin keeps the POST and its body.
      e2e.server.push({ raw: [], status: 308, headers: { location: "/v1/chat/completions?again" } }, answer("Same origin is fine."));
      const ok = await run(sb, "go");
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout).toBe("Same origin is fine.\n");
      expect(e2e.server.requests.at(-1)!.body.messages.at(-1).content).toContain("go");
    } finally {
      other.close();
    }
  });

  it("an answer that never ends (max_tokens ignored) is stopped, nothing of it is kept, and the thread works next time", async () => {
    const sb = e2e.sandbox();
    configure(sb, { maxTokens: 200 });
    const forever = Array.from({ length: 5000 }, () => `data: ${JSON.stringify(chunk({ content: "more words forever " }))}\n\n`);
    e2e.server.push({ raw: [`data: ${JSON.stringify(chunk({ role: "assistant", content: "" }))}\n\n`, ...forever], end: "hang" });
    const r = await run(sb, "--output-format", "json", "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatch(/the answer from .* went past 64,000 characters without ending \(the provider ignores max_tokens\).*Set a smaller maxTokens/);
    expect(out.final_text).toBe("");
    expect(e2e.server.requests).toHaveLength(1);

    e2e.server.push(answer("Back to normal."));
    const again = await run(sb, "--thread", out.thread_id, "again");
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe("Back to normal.\n");
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).not.toContain("more words forever");
  });

  it("one enormous SSE line (10 MB) is stopped at the output cap instead of being held whole", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    const line = `data: ${JSON.stringify(chunk({ role: "assistant", content: "y".repeat(10_000_000) }))}\n\n`;
    e2e.server.push({ raw: [...line.match(/[\s\S]{1,65536}/g)!, `data: ${JSON.stringify(chunk({}, "stop"))}\n\n${DONE}`] });
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/went past 2,000,000 characters without ending/);
  });

  it('every error-body shape gives the provider\'s own words (masked): {error:{message}}, {detail}, {message}, {error:"…"}, text', async () => {
    const cases: [string, string, RegExp][] = [
      [`{"error":{"message":"bad param","type":"invalid_request_error"}}`, "application/json", /: bad param\./],
      [`{"detail":"Model not loaded: m"}`, "application/json", /: Model not loaded: m\./],
      [`{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`, "application/json", /: field required\./],
      [`{"message":"quota exceeded for key ${KEY}"}`, "application/json", /: quota exceeded for key \*\*\*\./],
      [`{"error":"just a string"}`, "application/json", /: just a string\./],
      ["upstream connect error", "text/plain", /: upstream connect error\./],
    ];
    for (const [body, type, expected] of cases) {
      const sb = e2e.sandbox();
      configure(sb);
      e2e.server.push({ raw: [body], status: 400, headers: { "content-type": type } });
      const r = await run(sb, "go");
      clean(r.stderr);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/the request was refused \(HTTP 400 from .* for model "m"\)/);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr).not.toContain(KEY);
    }
  }, 180_000);

  it("non-streaming: a tool call with arguments as an object and no `type` runs once, without SDK warnings", async () => {
    const sb = e2e.sandbox();
    configure(sb, { stream: false });
    const whole = (message: unknown, finish: string) => rawJson({ id: "x", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message, finish_reason: finish }] });
    e2e.server.push(
      whole({ role: "assistant", content: null, tool_calls: [{ id: "c1", function: { name: "bash", arguments: { command: "echo whole > whole.txt" } } }] }, "tool_calls"),
      whole({ role: "assistant", content: "Done." }, "stop"),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.stderr).not.toMatch(/New LangChain packages|upgrade your packages/);
    expect(r.exitCode).toBe(0);
    expect(inWorkspace(sb, "whole.txt")).toBe("whole\n");
  });

  it("non-streaming: a 5 MB answer to a model with maxTokens 100 is refused whole, nothing of it kept", async () => {
    const sb = e2e.sandbox();
    configure(sb, { stream: false, maxTokens: 100 });
    e2e.server.push(
      rawJson({ id: "x", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "z".repeat(5_000_000) }, finish_reason: "stop" }] }),
    );
    const r = await run(sb, "--output-format", "json", "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatch(/was 5,000,\d{3} characters, far past 64,000 \(the provider ignores max_tokens\)/);
    expect(out.final_text).toBe("");
  });

  it("a gateway's HTML 502 page is named by its title, and retried", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      { raw: ["<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center>cloudflare</center></body></html>"], status: 502, headers: { "content-type": "text/html" } },
      answer("Recovered."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/model endpoint: HTTP 502 from .* for model "m" \(an HTML page: 502 Bad Gateway\); retrying (in [\d.]+ s|now), attempt 2 of \d+\n/);
    expect(r.stdout).toBe("Recovered.\n");
  });

  it("an `event: error` in the stream (Anthropic-style proxies) is the provider's failure, in its own words", async () => {
    const sb = e2e.sandbox();
    configure(sb);
    e2e.server.push(
      { raw: [`data: ${JSON.stringify(chunk({ role: "assistant", content: "par" }))}\n\n`, `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`] },
      answer("Second try worked."),
    );
    const r = await run(sb, "go");
    clean(r.stderr);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/model endpoint: .* reported an error inside its answer: Overloaded; retrying (in [\d.]+ s|now), attempt 2 of \d+\n/);
    expect(r.stdout).toBe("Second try worked.\n");
  });
});
