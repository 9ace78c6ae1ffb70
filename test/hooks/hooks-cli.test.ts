// Hooks through the CLI against the loopback model server, with real sh scripts as the hooks: a PreToolUse hook
// that blocks `git push` (its stderr is what the model reads) beside one that only logs; a PostToolUse formatter
// that rewrites the edited file (the model's next read sees it); an untrusted project's hook never run; a hook that
// hangs (killed at its timeout, the call goes on) and hooks printing 10 MB; stream-json reporting every run.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/openai-server.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { hookScript, isSideRequest, userHooks } from "../support/hooks.js";
import { messageText } from "../support/requests.js";

const e2e = useE2E();

/** The tool results the model read, in order. */
const toolResults = (rs: RecordedRequest[]) => (rs.filter((r) => !isSideRequest(r)).at(-1)?.body.messages ?? []).filter((m: any) => m.role === "tool").map(messageText);

describe("hooks through the CLI", () => {
  it("a PreToolUse hook blocks `git push` with its reason to the model; a logging hook sees every call's JSON and blocks nothing", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "hook-log.jsonl");
    userHooks(sb, {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: hookScript(sb, "no-push", `if grep -q '"git push'; then echo "pushing is for humans: open a PR instead" >&2; exit 2; fi`) }] },
        { hooks: [{ type: "command", command: hookScript(sb, "log", `cat >> ${log}; echo >> ${log}`) }] },
      ],
    });
    e2e.server.push({ toolCalls: [{ name: "bash", args: { command: "git push origin main" } }] }, { toolCalls: [{ name: "bash", args: { command: "echo RAN-FINE" } }] }, { content: "done" });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "ship it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const results = toolResults(e2e.server.requests);
    expect(results[0]).toMatch(/Refused by the user's PreToolUse hook \(sh .*no-push\.sh\): pushing is for humans: open a PR instead/);
    expect(results[1]).toContain("RAN-FINE");
    // The first hook blocked the push, so the logger after it saw only the second call.
    const logged = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "bash", tool_input: { command: "echo RAN-FINE" }, cwd: sb.cwd });
    expect(logged[0].session_id).toMatch(/\S/);
    // doctor lists them, in the order they run.
    expect((await runCli(sb, ["doctor"])).stdout).toMatch(/hooks {3}2 configured: PreToolUse \[Bash\]: sh \S+no-push\.sh \(timeout 60 s; \S+\.deerflowrc\); PreToolUse: sh \S+log\.sh/);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "hook.run");
    expect(events.map((e) => [e.event, e.tool, e.status, e.exit_code])).toEqual([
      ["PreToolUse", "bash", "blocked", 2],
      ["PreToolUse", "bash", "ok", 0],
      ["PreToolUse", "bash", "ok", 0],
    ]);
  });

  it("a PostToolUse formatter rewrites the file the agent wrote: the model's next read sees the formatted file", async () => {
    const sb = e2e.sandbox();
    const fmt = hookScript(sb, "fmt", `f=$(sed -n 's/.*"path":"\\([^"]*\\)".*/\\1/p'); sed -i 's/   */ /g' "$f"; echo '{"hookSpecificOutput":{"additionalContext":"formatted '"$f"'"}}'`);
    userHooks(sb, { PostToolUse: [{ matcher: "write_file|str_replace", hooks: [{ type: "command", command: fmt }] }] });
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "x   =    1\n" } }] }, { toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] }, { content: "done" });
    const r = await runCli(sb, ["run", "write it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(sb.cwd, "a.txt"), "utf8")).toBe("x = 1\n");
    const results = toolResults(e2e.server.requests);
    expect(results[0]).toMatch(/PostToolUse hook: formatted a\.txt/);
    expect(results[1]).toContain("x = 1");
    expect(results[1]).not.toContain("x   =");
  });

  it("a PostToolUse hook gets the result masked, as the model reads it", async () => {
    const sb = e2e.sandbox();
    const log = join(sb.userHome, "post-log.jsonl");
    writeFileSync(join(sb.cwd, ".env"), "GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n");
    userHooks(sb, { PostToolUse: [{ matcher: "read_file", hooks: [{ type: "command", command: hookScript(sb, "log", `cat >> ${log}; echo >> ${log}`) }] }] });
    e2e.server.push({ toolCalls: [{ name: "read_file", args: { path: ".env" } }] }, { content: "done" });
    const r = await runCli(sb, ["run", "read it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const logged = JSON.parse(readFileSync(log, "utf8").trim());
    expect(logged.tool_response).toContain("GH=***");
    expect(logged.tool_response).not.toContain("abcdefghijklmnop");
  });

  it("an untrusted project's hooks never run: the run is refused in one line naming them", async () => {
    const sb = e2e.sandbox();
    const marker = join(sb.userHome, "PROJECT-HOOK-RAN");
    writeFileSync(
      join(sb.cwd, ".deerflowrc"),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }], PreToolUse: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] } }),
    );
    e2e.server.push({ toolCalls: [{ name: "bash", args: { command: "echo hi" } }] }, { content: "done" });
    const r = await runCli(sb, ["run", "hello"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\.deerflowrc is not trusted, and its hooks apply only in a trusted folder: review it, then run "deerflow trust/);
    expect(existsSync(marker)).toBe(false);
    expect(e2e.server.requests).toHaveLength(0);
    // `deerflow config` lists what it would run, so the user can review before trusting.
    const shown = await runCli(sb, ["config"]);
    expect(shown.stdout + shown.stderr).toMatch(/ignoring hooks from .*\.deerflowrc \(not trusted/);
  });

  it("a hook that hangs is killed at its timeout and the call goes on; hooks printing 10 MB neither stall nor flood the model", async () => {
    const sb = e2e.sandbox();
    userHooks(sb, {
      PreToolUse: [
        { matcher: "bash", hooks: [{ type: "command", command: hookScript(sb, "hang", "sleep 300"), timeout: 1 }] },
        { matcher: "bash", hooks: [{ type: "command", command: hookScript(sb, "loud", "head -c 10000000 /dev/zero | tr '\\0' x") }] },
      ],
      PostToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: hookScript(sb, "loud-block", "head -c 10000000 /dev/zero | tr '\\0' y >&2; exit 2") }] }],
    });
    e2e.server.push({ toolCalls: [{ name: "bash", args: { command: "echo STILL-RAN" } }] }, { content: "done" });
    const started = Date.now();
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "go"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [result] = toolResults(e2e.server.requests);
    expect(result).toContain("STILL-RAN");
    expect(result).toMatch(/The user's PostToolUse hook \(sh .*loud-block\.sh\) says: y{100}/);
    expect(result!.length).toBeLessThan(20_000);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "hook.run");
    expect(events.map((e) => [e.event, e.status, e.timed_out])).toEqual([
      ["PreToolUse", "error", true],
      ["PreToolUse", "ok", false],
      ["PostToolUse", "blocked", false],
    ]);
    expect(events[0].reason).toBe("timed out after 1 s (killed)");
  });

  it("a UserPromptSubmit hook stops a prompt before any run (its reason the one line, exit 5) or adds its context to it, after SessionStart's", async () => {
    const sb = e2e.sandbox();
    const gate = hookScript(sb, "gate", `if grep -q 'secret-project'; then echo "do not send that project's name" >&2; exit 2; fi; echo '{"additionalContext":"TICKET-42 is the current ticket"}'`);
    const start = hookScript(sb, "start", `grep -q '"source":"startup"' && echo '{"hookSpecificOutput":{"additionalContext":"SESSION-CTX: main is frozen"}}'`);
    userHooks(sb, { UserPromptSubmit: [{ hooks: [{ type: "command", command: gate }] }], SessionStart: [{ hooks: [{ type: "command", command: start }] }] });
    const blocked = await runCli(sb, ["run", "work on secret-project"]);
    expect(blocked.exitCode).toBe(5);
    expect(blocked.stderr).toMatch(/Your prompt was not sent: a UserPromptSubmit hook blocked it: do not send that project's name \(sh .*gate\.sh\)/);
    expect(e2e.server.requests).toHaveLength(0);

    e2e.server.push({ content: "on it" });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "work on the bug"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const user = (e2e.server.requests.find((q) => !isSideRequest(q))!.body.messages as any[])
      .filter((m) => m.role === "user")
      .map(messageText)
      .join("\n");
    expect(user).toMatch(/work on the bug\s+\[SessionStart hook\] SESSION-CTX: main is frozen\s+\[UserPromptSubmit hook\] TICKET-42 is the current ticket/);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe("run.started");
    expect(events.filter((e) => e.type === "hook.run")).toMatchObject([
      { event: "SessionStart", status: "ok", run_id: events[0].run_id },
      { event: "UserPromptSubmit", status: "ok", run_id: events[0].run_id },
    ]);
  });
});
