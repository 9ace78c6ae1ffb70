// Plan mode through the real runtime (ChatSession on the loopback OpenAI server, real SQLite, real bash): a model
// that ignores the reminder still changes nothing — every write, edit, writing command and subagent write is refused
// with a reason it reads, reading tools run — and the plan's approval switches the mode so the same thread proceeds;
// feedback keeps planning.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../../src/runtime/chat-session.js";
import type { RunEvent } from "../../src/runtime/events.js";
import type { RecordedRequest, ScriptedReply, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";
import { PLAN_MODE_REMINDER } from "../../src/middleware/plan-mode.js";

const env = useInProcessModel("deerflow-plan-mode-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const signal = () => new AbortController().signal;
const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => ({ toolCalls: [{ id, name, args }] });
const bash = (id: string, command: string) => call(id, "bash", { command });

/** The tool results of a request, by tool call id. */
function results(req: RecordedRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of req.body.messages as { role: string; tool_call_id?: string; content: unknown }[])
    if (m.role === "tool" && m.tool_call_id) out.set(m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  return out;
}
const toolNames = (req: RecordedRequest) => ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
const texts = (req: RecordedRequest) => JSON.stringify(req.body.messages);

function gitRepo(dir: string) {
  execFileSync("git", ["init", "-q"], { cwd: dir });
  writeFileSync(join(dir, "app.txt"), "version 1\n");
}

describe("plan mode", () => {
  it("refuses writes, edits, writing commands and a subagent's write with the reason; reading tools and read-only commands run", async () => {
    gitRepo(cwd);
    const lead: ScriptedReply[] = [
      call("w", "write_file", { path: "new.txt", content: "x" }),
      call("r", "read_file", { path: "app.txt" }),
      call("e", "str_replace", { path: "app.txt", old_str: "version 1", new_str: "version 2" }),
      bash("rm", "rm app.txt"),
      bash("redir", "echo hi > out.txt"),
      bash("sub", "cat $(rm app.txt)"),
      bash("ls", "ls"),
      bash("gs", "git status --short"),
      call("t", "task", { description: "write a file", prompt: "write child.txt", subagent_type: "general-purpose" }),
    ];
    const child: ScriptedReply[] = [call("cw", "write_file", { path: "child.txt", content: "child" }), { content: "The write was refused." }];
    // The subagent (general-purpose: every tool but task) answers from its own script.
    server.setScript((req) => (toolNames(req).includes("task") ? (lead.shift() ?? { content: "Research done." }) : (child.shift() ?? { content: "(unscripted)" })));
    const s = createChatSession({ home, model: "test-model", cwd, workspace: cwd, approval: "plan" });
    const events: RunEvent[] = [];
    const r = await s.send({ prompt: "plan the version bump" }, (e) => events.push(e), signal());
    expect(r.result.status).toBe("success");

    // Nothing changed in the workspace.
    expect(readFileSync(join(cwd, "app.txt"), "utf8")).toBe("version 1\n");
    for (const f of ["new.txt", "out.txt", "child.txt"]) expect(existsSync(join(cwd, f))).toBe(false);
    expect(events.some((e) => e.type === "approval.requested")).toBe(false);

    const last = results(server.requests.filter((q) => toolNames(q).includes("task")).at(-1)!);
    const refused = /^plan mode: .* is not run \(while planning only tools that read run\)\. Finish the plan and present it with exit_plan_mode/;
    for (const id of ["w", "e", "rm", "redir", "sub"]) expect(last.get(id), id).toMatch(refused);
    expect(last.get("w")).toContain("write_file");
    expect(last.get("rm")).toContain("`rm app.txt`");
    expect(last.get("r")).toContain("version 1");
    expect(last.get("ls")).toContain("app.txt");
    expect(last.get("gs")).toContain("?? app.txt");
    // The subagent's write went through the same gate: the child read the refusal.
    const childReq = server.requests.find((q) => results(q).has("cw"));
    expect(results(childReq!).get("cw")).toMatch(refused);

    // The lead was offered exit_plan_mode and reminded of the rules in plan mode; the run's refusals are listed.
    expect(toolNames(server.requests[0]!)).toContain("exit_plan_mode");
    expect(texts(server.requests[0]!)).toContain("present it with exit_plan_mode(plan)");
    // The subagent is told too, without the tool it does not have.
    expect(texts(childReq!)).toContain("Plan mode is on");
    expect(texts(childReq!)).not.toContain("exit_plan_mode(plan)");
    expect(toolNames(childReq!)).not.toContain("exit_plan_mode");
    // (Each refusal of the lead is listed; whether a subagent's are too is the result's own rule.)
    expect(r.result.permission_denials?.map((d) => d.tool_call_id)).toEqual(expect.arrayContaining(["w", "e", "rm", "redir", "sub"]));
    expect(r.result.permission_denials?.map((d) => d.tool_call_id)).not.toContain("ls");
  }, 60_000);

  it("approving the plan switches the mode and the agent writes in the same run; feedback keeps planning", async () => {
    const script: ScriptedReply[] = [
      call("p1", "exit_plan_mode", { plan: "# Plan\n1. Write notes.txt" }),
      call("w1", "write_file", { path: "notes.txt", content: "too early" }),
      call("p2", "exit_plan_mode", { plan: "# Plan v2\n1. Write notes.txt with the date" }),
      call("w2", "write_file", { path: "notes.txt", content: "written after approval" }),
      { content: "Done: notes.txt written." },
    ];
    server.setScript(() => script.shift() ?? { content: "(unscripted)" });
    const s = createChatSession({ home, model: "test-model", cwd, workspace: cwd, approval: "plan" });
    const asked: Extract<RunEvent, { type: "approval.requested" }>[] = [];
    const r = await s.send(
      { prompt: "add notes" },
      (e) => {
        if (e.type !== "approval.requested") return;
        asked.push(e);
        // First plan: feedback; second: approved with auto-edit (the second answer).
        setTimeout(() => s.respondApproval(e.id, asked.length === 1 ? "deny" : "allow_always", asked.length === 1 ? "include the date" : undefined), 5);
      },
      signal(),
    );
    expect(asked.map((a) => [a.kind, a.tool, a.command])).toEqual([
      ["plan", "exit_plan_mode", "# Plan\n1. Write notes.txt"],
      ["plan", "exit_plan_mode", "# Plan v2\n1. Write notes.txt with the date"],
    ]);
    const after = (id: string) => results(server.requests.find((q) => results(q).has(id))!).get(id)!;
    expect(after("p1")).toContain('The user did not approve the plan and said: "include the date"');
    // Still planning after the feedback: the write is refused.
    expect(after("w1")).toMatch(/^plan mode: write_file is not run/);
    expect(after("p2")).toContain("plan mode is over (the mode is now auto-edit)");
    expect(s.approval.mode).toBe("auto-edit");
    // Approved with auto-edit: the write ran without asking, in the same run.
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("written after approval");
    expect(r.result.final_text).toBe("Done: notes.txt written.");
    expect(asked).toHaveLength(2);
    // Out of plan mode the tool is no longer offered and the reminder is gone.
    const lastReq = server.requests.at(-1)!;
    expect(toolNames(lastReq)).not.toContain("exit_plan_mode");
    expect(texts(lastReq)).not.toContain("Plan mode is on");
    expect(PLAN_MODE_REMINDER).toContain("Plan mode is on");
  }, 60_000);
});
