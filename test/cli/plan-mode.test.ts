// `deerflow run --permission-mode plan` through the built CLI and the loopback test model: a write and an `rm` are
// refused with plan mode's reason, the run exits 0 with the plan as its result and the workspace unchanged; a later
// `run --thread` in the default mode carries the plan out. Flag mistakes are one line each (in-process).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import type { RecordedRequest } from "../support/openai-server.js";

const e2e = useE2E();

const toolResult = (req: RecordedRequest, id: string) =>
  (req.body.messages as { role: string; tool_call_id?: string; content: string }[]).find((m) => m.role === "tool" && m.tool_call_id === id)?.content;

const PLAN = "# Plan\n\n1. Add CHANGELOG.md with the 2.0 entry\n2. Remove app.txt";

describe("deerflow run --permission-mode plan", () => {
  it("refuses a write and an rm, exits 0 with the plan and the workspace unchanged; run --thread then proceeds", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "app.txt"), "version 1\n");
    e2e.server.push(
      { toolCalls: [{ id: "w", name: "write_file", args: { path: "CHANGELOG.md", content: "2.0" } }] },
      { toolCalls: [{ id: "rm", name: "bash", args: { command: "rm app.txt" } }] },
      { toolCalls: [{ id: "p", name: "exit_plan_mode", args: { plan: PLAN } }] },
    );
    const planned = await sb.run(["run", "--permission-mode", "plan", "--output-format", "json", "release 2.0"]);
    expect(planned.stderr).not.toMatch(/Error|at .*\.js/);
    expect(planned.exitCode).toBe(0);
    const result = JSON.parse(planned.stdout);
    expect(result).toMatchObject({ status: "success", stop_reason: "end_turn", final_text: PLAN });
    expect(result.permission_denials.map((d: { tool: string; denied_by: string }) => `${d.tool}/${d.denied_by}`)).toEqual(["write_file/policy", "bash/policy"]);
    expect(toolResult(e2e.server.requests[1]!, "w")).toMatch(/^plan mode: write_file is not run/);
    expect(toolResult(e2e.server.requests[2]!, "rm")).toMatch(/^plan mode: the command `rm app.txt` .* is not run/);
    // The plan ended the run: three model calls, nothing written or removed.
    expect(e2e.server.requests).toHaveLength(3);
    expect(readFileSync(join(sb.cwd, "app.txt"), "utf8")).toBe("version 1\n");
    expect(existsSync(join(sb.cwd, "CHANGELOG.md"))).toBe(false);

    e2e.server.push({ toolCalls: [{ id: "w2", name: "write_file", args: { path: "CHANGELOG.md", content: "2.0" } }] }, { content: "Released." });
    const proceeded = await sb.run(["run", "--thread", result.thread_id, "go ahead with the plan"]);
    expect(proceeded.exitCode).toBe(0);
    expect(proceeded.stdout).toContain("Released.");
    expect(readFileSync(join(sb.cwd, "CHANGELOG.md"), "utf8")).toBe("2.0");
    // The same thread: the model saw its plan, and was no longer offered exit_plan_mode.
    const next = e2e.server.requests[3]!;
    expect(JSON.stringify(next.body.messages)).toContain("Add CHANGELOG.md with the 2.0 entry");
    expect((next.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).not.toContain("exit_plan_mode");
  }, 60_000);

  it("a mode it does not know, two flags naming different modes, or a goal in plan mode is one line and exit 2", async () => {
    const sb = e2e.sandbox();
    const bad = await runCli(sb, ["run", "--permission-mode", "readonly", "hi"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("Allowed choices are default, acceptEdits, bypassPermissions, plan, ask, auto-edit, yolo.");
    const both = await runCli(sb, ["run", "--approval", "yolo", "--permission-mode", "plan", "hi"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr.trim().split("\n")).toHaveLength(1);
    expect(both.stderr).toContain("--approval yolo and --permission-mode ask for different modes. Give one of them.");
    const goal = await runCli(sb, ["run", "--permission-mode", "plan", "--goal", "tests pass"]);
    expect(goal.exitCode).toBe(2);
    expect(goal.stderr).toContain("--goal cannot work in plan mode");
    expect(e2e.server.requests).toHaveLength(0);
  });
});
