// Denied tool calls are part of a run's result (`permission_denials`, docs/events.md): a command deerflow never runs
// (policy) and a guarded command nobody could approve (the headless default) show in the json result, in
// stream-json's tool.completed and run.completed, and as one summary line on stderr in text mode; --fail-on-denial
// turns an otherwise clean exit into 6. A subagent's refused calls are the run's too, marked with the delegation that
// made them. The built CLI is spawned for json, stream-json and text (the process's stdout and stderr are the
// contract), the rest runs in-process; the user's own "no" is the chat's path (test/runtime/chat-session.test.ts).
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { ScriptedReply } from "../support/openai-server.js";
import { isChild } from "../support/requests.js";

const e2e = useE2E();

const KEY = "sk-proj-abcdefghijklmnop1234";

/** One answer asking for a blocked command, a guarded one (holding a key-shaped secret) and a harmless one, then the end. */
function scriptDenials(): void {
  const calls: ScriptedReply = {
    toolCalls: [
      { id: "b1", name: "bash", args: { command: "rm -rf / --no-preserve-root" } },
      { id: "h1", name: "bash", args: { command: `git reset --hard HEAD~3 # token ${KEY}` } },
      { id: "ok1", name: "bash", args: { command: "echo fine" } },
    ],
  };
  e2e.server.push(calls, { content: "I left it alone." });
}

const POLICY = { tool: "bash", tool_call_id: "b1", arguments: "rm -rf / --no-preserve-root", denied_by: "policy", reason: expect.any(String) };
const HEADLESS = { tool: "bash", tool_call_id: "h1", arguments: expect.stringMatching(/^git reset --hard HEAD~3 # token /), denied_by: "headless", reason: expect.any(String) };

const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });

describe("permission_denials", () => {
  let sb: Sandbox;

  it("json: the result lists the blocked and the headless-denied call, secrets masked; exit unchanged (0) (spawned)", async () => {
    sb = e2e.sandbox();
    scriptDenials();
    const r = await sb.run(["run", "--output-format", "json", "clean up"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { status: string; permission_denials: Record<string, string>[] };
    expect(result.status).toBe("success");
    expect(result.permission_denials).toEqual([POLICY, HEADLESS]);
    expect(r.stdout).not.toContain(KEY);
    expect(result.permission_denials[1]!.reason).not.toBe("");
  });

  it("stream-json: each denied tool.completed carries its denial, and run.completed (the last line) lists them", async () => {
    sb = e2e.sandbox();
    scriptDenials();
    const r = await sb.run(["run", "--output-format", "stream-json", "clean up"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = lines(r.stdout);
    const done = events.filter((e) => e.type === "tool.completed");
    expect(done.map((e) => [e.tool_call_id, (e.denial as { denied_by?: string } | undefined)?.denied_by])).toEqual([
      ["b1", "policy"],
      ["h1", "headless"],
      ["ok1", undefined],
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run.completed", status: "success", permission_denials: [POLICY, HEADLESS] });
  });

  it("text: one summary line on stderr naming each denied call and who denied it; the answer alone on stdout", async () => {
    sb = e2e.sandbox();
    scriptDenials();
    const r = await sb.run(["run", "clean up"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("I left it alone.\n");
    const summary = r.stderr.split("\n").filter((l) => l.includes("were denied"));
    expect(summary).toHaveLength(1);
    // The summary masks key-shaped secrets (the progress line of the call itself is not this test's concern).
    expect(summary[0]).not.toContain(KEY);
    expect(summary[0]).toMatch(
      /^deerflow: 2 tool calls were denied: bash "rm -rf \/ --no-preserve-root" \(blocked by policy\), bash "git reset --hard HEAD~3 # token [^"]+" \(denied: nobody to ask, run with --yes to approve\)$/,
    );
  });

  it("--fail-on-denial: the same clean run exits 6; a run with nothing denied still exits 0", async () => {
    sb = e2e.sandbox();
    scriptDenials();
    const denied = await runCli(sb, ["run", "--fail-on-denial", "--output-format", "json", "clean up"]);
    expect(denied.exitCode).toBe(6);
    expect(JSON.parse(denied.stdout)).toMatchObject({ status: "success", permission_denials: [POLICY, HEADLESS] });

    e2e.server.push({ toolCalls: [{ id: "ok2", name: "bash", args: { command: "echo fine" } }] }, { content: "done" });
    const clean = await runCli(sb, ["run", "--fail-on-denial", "--output-format", "json", "just echo"]);
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ permission_denials: [] });
  });

  it("the sandbox refusing a path outside the thread's directories is a policy denial", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "o1", name: "write_file", args: { path: "/etc/deerflow-test.txt", content: "x\n" } }] }, { content: "could not" });
    const r = await runCli(sb, ["run", "--output-format", "json", "write outside"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).permission_denials).toEqual([
      { tool: "write_file", tool_call_id: "o1", arguments: expect.stringContaining("/etc/deerflow-test.txt"), reason: expect.stringMatching(/outside the thread's directories/), denied_by: "policy" },
    ]);
  });

  it("--approval ask headless: a denied file edit is listed with its summary and the reason it asked", async () => {
    sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "w1", name: "write_file", args: { path: "a.txt", content: "x\n" } }] }, { content: "could not write" });
    const r = await runCli(sb, ["run", "--approval", "ask", "--output-format", "json", "write a"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).permission_denials).toEqual([
      { tool: "write_file", tool_call_id: "w1", arguments: expect.stringContaining("a.txt"), reason: expect.any(String), denied_by: "headless" },
    ]);
  });
});

describe("a subagent's denials", () => {
  /** The lead delegates once; the subagent asks for the blocked and the guarded command, then reports. */
  function scriptChildDenials(): void {
    const child: ScriptedReply[] = [
      {
        toolCalls: [
          { id: "b1", name: "bash", args: { command: "rm -rf / --no-preserve-root" } },
          { id: "h1", name: "bash", args: { command: `git reset --hard HEAD~3 # token ${KEY}` } },
        ],
      },
      { content: "I could not clean up." },
    ];
    const lead: ScriptedReply[] = [
      { toolCalls: [{ id: "t1", name: "task", args: { description: "clean up", prompt: "Clean up the repository.", subagent_type: "general-purpose" } }] },
      { content: "The helper could not clean up." },
    ];
    e2e.server.setScript((req) => (isChild(req) ? (child.shift() ?? { content: "child done" }) : (lead.shift() ?? { content: "lead done" })));
  }
  const FROM_CHILD = [
    { ...POLICY, delegation_id: "t1" },
    { ...HEADLESS, delegation_id: "t1" },
  ];

  it("stream-json: run.completed lists the subagent's refused calls with its delegation; the ledger entry keeps them (spawned)", async () => {
    const sb = e2e.sandbox();
    scriptChildDenials();
    const r = await sb.run(["run", "--output-format", "stream-json", "delegate the clean-up"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = lines(r.stdout);
    expect(e2e.server.requests.filter(isChild)).toHaveLength(2);
    // The lead's own calls were not refused: its task call completed without a denial of its own.
    expect(events.filter((e) => e.type === "tool.completed").map((e) => [e.name, e.denial])).toEqual([["task", undefined]]);
    const finished = events
      .filter((e) => e.type === "delegation.updated")
      .flatMap((e) => e.delegations as { id: string; status: string; permission_denials?: unknown[] }[])
      .find((d) => d.status !== "running");
    expect(finished).toMatchObject({ id: "t1", permission_denials: [POLICY, HEADLESS] });
    expect(events.at(-1)).toMatchObject({ type: "run.completed", status: "success", permission_denials: FROM_CHILD });
    expect(r.stdout).not.toContain(KEY);
  });

  it("json and --fail-on-denial count them as the lead's: the result lists them and the run exits 6", async () => {
    const sb = e2e.sandbox();
    scriptChildDenials();
    const r = await runCli(sb, ["run", "--fail-on-denial", "--output-format", "json", "delegate the clean-up"]);
    expect(r.exitCode, r.stderr).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "success", final_text: "The helper could not clean up.", permission_denials: FROM_CHILD });
  });
});
