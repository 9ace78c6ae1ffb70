// The hook events that end, compact or wait, through `deerflow run` in-process against the loopback model with real sh
// scripts as hooks: a Stop hook that blocks once (the agent goes on once with its reason, then stops) and one that
// always blocks (bounded); SubagentStop (a subagent goes on once); PreCompact with its trigger (auto in a run, manual
// from /compact, the matcher reading it); Notification when an approval waits in the chat; and an untrusted
// project's hooks of these events never run. stream-json reports each run as `hook.run`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_STOP_CONTINUATIONS } from "../../src/middleware/stop-hooks.js";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { RunEvent } from "../../src/runtime/events.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { until } from "../support/wait.js";
import { hookScript, isSideRequest, userHooks } from "../support/hooks.js";
import { messageText } from "../support/requests.js";

const e2e = useE2E();

const isChild = (r: RecordedRequest) => (r.body.messages ?? []).some((m: any) => m.role === "user" && messageText(m) === "child work");
const leadRequests = () => e2e.server.requests.filter((r) => !isSideRequest(r) && !isChild(r));

const logged = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const hookRuns = (stdout: string) => events(stdout).filter((e) => e.type === "hook.run");

// A ChatSession in this process reads the sandbox's environment (its HOME's .deerflowrc, the model server): set for
// the test, put back after it.
let savedEnv: NodeJS.ProcessEnv | undefined;
function useSandboxEnv(sb: Sandbox) {
  savedEnv ??= { ...process.env };
  Object.assign(process.env, sb.env);
}
afterEach(() => {
  if (!savedEnv) return;
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  savedEnv = undefined;
});

describe("Stop hooks", () => {
  it("a hook that blocks once makes the agent go on once with its reason, then the agent stops", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "stop.jsonl");
    const flag = join(sb.userHome, "blocked-once");
    userHooks(sb, {
      Stop: [{ hooks: [{ type: "command", command: hookScript(sb, "once", `cat >> ${log}; echo >> ${log}; [ -e ${flag} ] && exit 0; touch ${flag}; echo "run the tests first" >&2; exit 2`) }] }],
    });
    e2e.server.push({ content: "all done" }, { content: "tests pass, now done" });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "fix it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(leadRequests()).toHaveLength(2);
    const fed = leadRequests()[1]!
      .body.messages.filter((m: any) => m.role === "user")
      .map(messageText);
    expect(fed.at(-1)).toBe("[Stop hook] The user's hook did not let you stop yet: run the tests first");
    expect(events(r.stdout).at(-1)).toMatchObject({ type: "run.completed", final_text: "tests pass, now done", stop_reason: "end_turn" });
    expect(hookRuns(r.stdout).map((e) => [e.event, e.status, e.exit_code])).toEqual([
      ["Stop", "blocked", 2],
      ["Stop", "ok", 0],
    ]);
    expect(logged(log).map((i) => [i.hook_event_name, i.stop_hook_active, i.last_assistant_message])).toEqual([
      ["Stop", false, "all done"],
      ["Stop", true, "tests pass, now done"],
    ]);
    // doctor (and the chat's /hooks, the same lines) lists it.
    expect((await runCli(sb, ["doctor"])).stdout).toMatch(/hooks {3}1 configured: Stop: sh \S+once\.sh \(timeout 60 s; /);
  });

  it(`a hook that always blocks is followed ${MAX_STOP_CONTINUATIONS} times, then the run ends and says so`, async () => {
    const sb = e2e.sandbox();
    userHooks(sb, { Stop: [{ hooks: [{ type: "command", command: hookScript(sb, "never", `echo '{"decision":"block","reason":"never done"}'`) }] }] });
    let n = 0;
    e2e.server.setScript((req) => (isSideRequest(req) ? { content: "title" } : { content: `answer ${++n}` }));
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "work"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(leadRequests()).toHaveLength(MAX_STOP_CONTINUATIONS + 1);
    const runs = hookRuns(r.stdout);
    expect(runs.map((e) => e.status)).toEqual(Array(MAX_STOP_CONTINUATIONS + 1).fill("blocked"));
    expect(runs.at(-1).reason).toBe(`never done (not followed: the agent already went on ${MAX_STOP_CONTINUATIONS} times for Stop hooks in this run)`);
    expect(events(r.stdout).at(-1)).toMatchObject({ type: "run.completed", final_text: `answer ${MAX_STOP_CONTINUATIONS + 1}` });
  });

  it("never takes a run past --max-turns: a block on the last allowed call is reported, not followed", async () => {
    const sb = e2e.sandbox();
    userHooks(sb, { Stop: [{ hooks: [{ type: "command", command: "echo more >&2; exit 2" }] }] });
    let n = 0;
    e2e.server.setScript((req) => (isSideRequest(req) ? { content: "title" } : { content: `answer ${++n}` }));
    const r = await runCli(sb, ["run", "--max-turns", "2", "--output-format", "stream-json", "work"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(leadRequests()).toHaveLength(2);
    expect(hookRuns(r.stdout).map((e) => e.reason)).toEqual(["more", "more (not followed: the run made its 2 model calls (its turn limit))"]);
  });

  it("does not run when a guard stopped the run (--max-turns): a guard's stop is final", async () => {
    const sb = e2e.sandbox();
    const marker = join(sb.userHome, "STOP-RAN");
    userHooks(sb, { Stop: [{ hooks: [{ type: "command", command: `touch ${marker}; exit 2` }] }] });
    e2e.server.push({ toolCalls: [{ name: "ls", args: { path: "." } }] });
    const r = await runCli(sb, ["run", "--max-turns", "1", "--output-format", "json", "look"]);
    expect(JSON.parse(r.stdout).stop_reason).toBe("turn_capped");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("SubagentStop hooks", () => {
  it("a subagent whose hook blocks once goes on once with the reason; the lead gets its second report", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "substop.jsonl");
    const flag = join(sb.userHome, "sub-blocked");
    userHooks(sb, {
      SubagentStop: [{ hooks: [{ type: "command", command: hookScript(sb, "sub", `cat >> ${log}; echo >> ${log}; [ -e ${flag} ] && exit 0; touch ${flag}; echo "cite the file" >&2; exit 2`) }] }],
    });
    let child = 0;
    let lead = 0;
    e2e.server.setScript((req) => {
      if (isSideRequest(req)) return { content: "title" };
      if (isChild(req)) return { content: `child report ${++child}` };
      return ++lead === 1 ? { toolCalls: [{ name: "task", args: { description: "look", prompt: "child work", subagent_type: "general-purpose" } }] } : { content: "lead done" };
    });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "delegate"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(child).toBe(2);
    const second = e2e.server.requests.filter(isChild)[1]!;
    expect(messageText(second.body.messages.at(-1))).toBe("[SubagentStop hook] The user's hook did not let you stop yet: cite the file");
    expect(hookRuns(r.stdout).map((e) => [e.event, e.status])).toEqual([
      ["SubagentStop", "blocked"],
      ["SubagentStop", "ok"],
    ]);
    expect(logged(log).map((i) => [i.stop_hook_active, i.agent_type, i.last_assistant_message])).toEqual([
      [false, "general-purpose", "child report 1"],
      [true, "general-purpose", "child report 2"],
    ]);
    const lastLead = leadRequests().at(-1)!;
    expect(
      lastLead.body.messages
        .filter((m: any) => m.role === "tool")
        .map(messageText)
        .join("\n"),
    ).toContain("child report 2");
  });
});

describe("SubagentStop hooks and a subagent's turn limit", () => {
  it("a block on the last model call the subagent type allows is reported, not followed", async () => {
    const sb = e2e.sandbox();
    userHooks(
      sb,
      { SubagentStop: [{ hooks: [{ type: "command", command: "echo again >&2; exit 2" }] }] },
      { subagents: { quick: { description: "one call", systemPrompt: "Answer in one call.", maxTurns: 1 } } },
    );
    let child = 0;
    let lead = 0;
    e2e.server.setScript((req) => {
      if (isSideRequest(req)) return { content: "title" };
      if (isChild(req)) return { content: `child report ${++child}` };
      return ++lead === 1 ? { toolCalls: [{ name: "task", args: { description: "look", prompt: "child work", subagent_type: "quick" } }] } : { content: "lead done" };
    });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "delegate"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(child).toBe(1);
    expect(hookRuns(r.stdout).map((e) => [e.event, e.reason])).toEqual([["SubagentStop", "again (not followed: the run made its 1 model calls (its turn limit))"]]);
  });
});

describe("PreCompact hooks", () => {
  it("run before a compaction with its trigger (auto in a run, manual from /compact); the matcher reads the trigger", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "compact.jsonl");
    const autoOnly = join(sb.userHome, "auto-only.jsonl");
    userHooks(
      sb,
      {
        PreCompact: [
          { hooks: [{ type: "command", command: hookScript(sb, "pc", `cat >> ${log}; echo >> ${log}`) }] },
          { matcher: "auto", hooks: [{ type: "command", command: hookScript(sb, "pca", `cat >> ${autoOnly}; echo >> ${autoOnly}`) }] },
        ],
      },
      { compaction: { maxMessages: 10, keepRecentTokens: 256 } },
    );
    e2e.server.setScript((req) => (isSideRequest(req) ? { content: "Summary: earlier turns." } : { content: `answer ${"z".repeat(300)}` }));
    let r = await runCli(sb, ["run", "--output-format", "stream-json", "turn 1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const threadId: string = events(r.stdout)[0].thread_id;
    // Runs until one compacts (more than 10 messages).
    for (let i = 2; i <= 10 && !events(r.stdout).some((e) => e.type === "context.compacted"); i++) r = await runCli(sb, ["run", "--thread", threadId, "--output-format", "stream-json", `turn ${i}`]);
    const compacted = events(r.stdout).some((e) => e.type === "context.compacted");
    expect(compacted, "the third run compacts").toBe(true);
    expect(hookRuns(r.stdout).map((e) => [e.event, e.status])).toEqual([
      ["PreCompact", "ok"],
      ["PreCompact", "ok"],
    ]);
    const autos = logged(log);
    expect(autos.at(-1)).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "", thread_id: threadId });
    expect(logged(autoOnly)).toHaveLength(autos.length);

    // /compact in the chat: manual, with the focus as custom_instructions; the "auto" hook stays out of it.
    useSandboxEnv(sb);
    const s = createChatSession({ home: sb.env.DEERFLOW_HOME, model: "test-model", cwd: sb.cwd });
    await s.resume({ threadId });
    await s.send({ prompt: "four" }, () => {}, new AbortController().signal);
    const before = logged(log).length;
    const reports: { event: string; status: string; command: string }[] = [];
    expect(await s.compact("keep the API names", (report) => reports.push(report))).not.toBeNull();
    // Reported to the chat (its /compact says the ones that fail): only the hook whose matcher selects "manual" ran.
    expect(reports.map((x) => [x.event, x.status, x.command.includes("pc.sh")])).toEqual([["PreCompact", "ok", true]]);
    expect(logged(log).slice(before)).toEqual([expect.objectContaining({ trigger: "manual", custom_instructions: "keep the API names" })]);
    expect(logged(autoOnly).every((i) => i.trigger === "auto")).toBe(true);
    await ThreadRuntime.closeAll();
  });
});

describe("Notification hooks", () => {
  it("run when an approval question waits in the chat, with its message; their output changes nothing", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "notify.jsonl");
    userHooks(sb, { Notification: [{ hooks: [{ type: "command", command: hookScript(sb, "bell", `cat >> ${log}; echo >> ${log}; echo '{"decision":"block"}'`) }] }] });
    useSandboxEnv(sb);
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "x\n" } }] }, { content: "done" });
    const s = createChatSession({ home: sb.env.DEERFLOW_HOME, model: "test-model", cwd: sb.cwd, workspace: sb.cwd, approval: "ask" });
    const seen: RunEvent[] = [];
    const turn = s.send({ prompt: "write it" }, (e) => seen.push(e), new AbortController().signal);
    await until(() => seen.some((e) => e.type === "hook.run" && e.event === "Notification"), "the Notification hook's report");
    const asked = seen.find((e) => e.type === "approval.requested")!;
    expect(asked).toBeDefined();
    expect(s.respondApproval((asked as { id: string }).id, "allow_once")).toBe(true);
    const done = await turn;
    expect(done.result.final_text).toBe("done");
    expect(readFileSync(join(sb.cwd, "a.txt"), "utf8")).toBe("x\n");
    expect(logged(log)).toEqual([
      expect.objectContaining({ hook_event_name: "Notification", notification_type: "permission_prompt", message: expect.stringMatching(/^deerflow needs your permission to use write_file: /) }),
    ]);
    await ThreadRuntime.closeAll();
  });

  it("run when the agent asks a clarification question the chat waits on", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "notify-q.jsonl");
    userHooks(sb, { Notification: [{ hooks: [{ type: "command", command: hookScript(sb, "bell-q", `cat >> ${log}; echo >> ${log}`) }] }] });
    useSandboxEnv(sb);
    e2e.server.push({ toolCalls: [{ id: "q", name: "ask_clarification", args: { question: "Tabs or spaces?", clarification_type: "approach_choice" } }] });
    const s = createChatSession({ home: sb.env.DEERFLOW_HOME, model: "test-model", cwd: sb.cwd });
    const seen: RunEvent[] = [];
    const done = await s.send({ prompt: "format it" }, (e) => seen.push(e), new AbortController().signal);
    expect(done.result.stop_reason).toBe("clarification");
    await s.notifications.settled();
    expect(logged(log)).toEqual([expect.objectContaining({ hook_event_name: "Notification", notification_type: "clarification", message: "deerflow asks: Tabs or spaces?", thread_id: s.threadId })]);
    expect(seen.filter((e) => e.type === "hook.run").map((e) => (e as { event: string }).event)).toEqual(["Notification"]);
    await ThreadRuntime.closeAll();
  });

  it("an untrusted project's Stop, SubagentStop, PreCompact and Notification hooks never run", async () => {
    const sb = e2e.sandbox();
    const marker = join(sb.userHome, "PROJECT-HOOK-RAN");
    const touch = [{ hooks: [{ type: "command", command: `touch ${marker}` }] }];
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ hooks: { Stop: touch, SubagentStop: touch, PreCompact: touch, Notification: touch } }));
    useSandboxEnv(sb);
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "x\n" } }] }, { content: "done" });
    const s = createChatSession({ home: sb.env.DEERFLOW_HOME, model: "test-model", cwd: sb.cwd, workspace: sb.cwd, approval: "ask", ignoreUntrusted: true });
    expect(s.config.hooks).toEqual([]);
    const seen: RunEvent[] = [];
    const turn = s.send({ prompt: "write it" }, (e) => seen.push(e), new AbortController().signal);
    await until(() => seen.some((e) => e.type === "approval.requested"), "the approval question");
    s.respondApproval((seen.find((e) => e.type === "approval.requested") as { id: string }).id, "deny");
    await turn;
    await s.compact();
    await s.notifications.settled();
    expect(existsSync(marker)).toBe(false);
    await ThreadRuntime.closeAll();
  });
});
