// Provider compatibility, end to end: for each provider, its recorded framing (fixtures.ts) is replayed by the
// loopback server to the built `deerflow run`, which must run the tool call, answer, and — in a second run on the
// same thread — send the provider the whole history (nothing replaced, nothing lost, nothing the provider rejects).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { PROVIDERS, type ProviderFixture } from "./fixtures.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();

function configure(sb: Sandbox, url: string, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ models: { p: { model: "provider-model", baseUrl: url, apiKey: "sk-test-key-123456", ...extra } } }));
  trustProject(sb);
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
/** The conversation the provider received, without system prompts and the dated reminder. */
const conversation = (body: any) =>
  (body.messages as any[]).filter((m) => m.role !== "system" && !(m.role === "user" && String(typeof m.content === "string" ? m.content : JSON.stringify(m.content)).startsWith("<system-reminder>")));
const text = (m: any) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((b: any) => b.text ?? "").join("") : "");

describe.each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderFixture]))("%s", (_name, p) => {
  it("runs the tool call, answers, and the next run on the thread sends the whole history", async () => {
    const sb = e2e.sandbox();
    configure(sb, e2e.server.url, p.config);
    const marker = `hello-${slug(p.name)}`;
    e2e.server.push(p.toolTurn(`echo ${marker}`), p.answerTurn(`Done for ${p.name}.`));
    const first = await runCli(sb, ["run", "-m", "p", "--output-format", "json", "run the marker command"]);
    expect(first.stderr).not.toMatch(/internal error|From chunk/);
    expect(first.exitCode).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.final_text).toBe(`Done for ${p.name}.`);
    if (p.reasoning) expect(out.final_text).not.toContain(p.reasoning.trim().split(" ")[0]);
    // Usage is never 0: reported, or estimated (and said so) when the provider sent none.
    expect(out.usage.total_tokens).toBeGreaterThan(0);
    if (p.noUsage) expect(out.usage.estimated).toBe(true);
    else expect(out.usage).not.toHaveProperty("estimated");

    // The second request carries the executed call and its real result; assistant messages carry no `name`.
    const second = conversation(e2e.server.requests[1]!.body);
    const call = second.find((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(call.tool_calls).toHaveLength(1);
    expect(call.tool_calls[0].id).toBe(p.callId);
    expect(call.tool_calls[0].function.name).toBe("bash");
    expect(JSON.parse(call.tool_calls[0].function.arguments)).toEqual({ command: `echo ${marker}` });
    const result = second.find((m) => m.role === "tool");
    expect(result.tool_call_id).toBe(p.callId);
    expect(text(result)).toContain(marker);
    for (const m of second.filter((m) => m.role === "assistant")) expect(m).not.toHaveProperty("name");
    if (p.config?.passBackReasoning) expect(call.reasoning_content).toBe(p.reasoning);
    else expect(call).not.toHaveProperty("reasoning_content");

    // Second run on the same thread: the provider reuses its ids, deerflow does not.
    e2e.server.push(p.answerTurn(`Second answer for ${p.name}.`));
    const again = await runCli(sb, ["run", "-m", "p", "--thread", out.thread_id, "and again"]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(`Second answer for ${p.name}.\n`);
    const history = conversation(e2e.server.requests[2]!.body).map((m) => [m.role, m.tool_calls?.[0]?.id ?? m.tool_call_id ?? text(m)]);
    expect(history).toEqual([
      ["user", "run the marker command"],
      ["assistant", p.callId],
      ["tool", p.callId],
      ["assistant", `Done for ${p.name}.`],
      ["user", "and again"],
    ]);
  });
});
