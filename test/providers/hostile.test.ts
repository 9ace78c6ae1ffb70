// A hostile model through the built CLI: escape sequences, huge arguments, duplicate ids, odd but legal SSE framing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { rawSse } from "./fixtures.js";

const e2e = useE2E();

function configure(sb: Sandbox): void {
  writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { p: { model: "m", baseUrl: e2e.server.url, apiKey: "sk-test-key-123456" } } }));
}
const run = (sb: Sandbox, ...args: string[]) => sb.run(["run", "-m", "p", ...args]);
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
const DONE = "data: [DONE]\n\n";
const call = (id: string, command: string, index = 0) => ({ id, index, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } });
const answer = (text: string) => rawSse([chunk({ role: "assistant", content: text }), chunk({}, "stop"), DONE]);
const toolResults = (body: any) => (body.messages as any[]).filter((m) => m.role === "tool");
const inWorkspace = (sb: Sandbox, name: string) => {
  const threads = join(sb.home, "threads");
  for (const t of existsSync(threads) ? readdirSync(threads) : []) {
    const f = join(threads, t, "workspace", name);
    if (existsSync(f)) return readFileSync(f, "utf8");
  }
  return undefined;
};

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
      rawSse([chunk({ role: "assistant", tool_calls: [{ id: "c-big", index: 0, type: "function", function: { name: "bash", arguments: "" } }] }), ...frags.map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })), chunk({}, "tool_calls"), DONE]),
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
    e2e.server.push(
      rawSse([chunk({ role: "assistant", tool_calls: [call("dup", "echo one > one.txt", 0), call("dup", "echo two > two.txt", 1)] }), chunk({}, "tool_calls"), DONE]),
      answer("Noted."),
    );
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
      { raw: [`\uFEFFretry: 1000\r\nid: 1\r\nevent: message\r\ndata: ${first}\r\n\r\n`, `data: ${JSON.stringify(chunk({ tool_calls: [objArgs] })).replace(",", ",\ndata: ")}\r\n\r\n`, `data: ${JSON.stringify(chunk({}, "tool_calls"))}\r\n\r\n`, "data: [DONE]\r\n\r\n"] },
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
