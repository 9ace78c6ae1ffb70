// Subagent verdicts through `deerflow run` and the scripted loopback model playing lead and subagent: receipts
// checked against the child's real tool calls, acceptance checks run by the runtime, a content-filter stop recorded,
// and the run's uploads told to the child. Each case asserts what the lead reads next, what the user sees in
// stream-json, and what the thread's ledger keeps. A failed acceptance check and a failed receipt run the built CLI
// (spawned: the "done when"); the other cases run in-process.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { storedLedger } from "../support/delegations.js";
import { useE2E } from "../support/e2e.js";
import { isChild } from "../support/requests.js";
import type { RecordedRequest, ScriptedReply } from "../support/openai-server.js";

const e2e = useE2E();
let sb: Sandbox;

const flat = (req: RecordedRequest) => JSON.stringify(req.body.messages);
/** The lead's tool result for the task call, as the lead's next request carries it. */
const taskResult = (req: RecordedRequest) => (req.body.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool")?.content as string;
const task = (id: string, acceptance?: { check: string; target: string }[]) => ({
  id,
  name: "task",
  args: { description: "run the tests", prompt: "Run the project's tests and report.", subagent_type: "general-purpose", ...(acceptance ? { acceptance } : {}) },
});

/** Lead replies in order; the child's replies in order (each child request takes the next). */
function script(lead: ScriptedReply[], child: ScriptedReply[]) {
  e2e.server.setScript((req) => (isChild(req) ? (child.shift() ?? { content: "child: nothing more" }) : (lead.shift() ?? { content: "lead done" })));
}

async function streamRun(args: string[], spawned = false) {
  const argv = ["run", "--output-format", "stream-json", ...args];
  const r = spawned ? await sb.run(argv) : await runCli(sb, argv);
  const events = r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { ...r, events };
}

const delegationEvents = (events: any[]) => events.filter((e) => e.type === "delegation.updated").flatMap((e) => e.delegations);
const leadRequests = () => e2e.server.requests.filter((q) => !isChild(q));

describe("the lead checks what a subagent claims", () => {
  it("a subagent that says the tests pass without running them fails the lead's acceptance check: Task Failed, not Task Succeeded (spawned CLI)", async () => {
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "check.sh"), "echo '3 passed, 1 failed'\nexit 1\n");
    script([{ toolCalls: [task("t1", [{ check: "command_exits_zero", target: "sh check.sh" }])] }, { content: "noted" }], [{ content: "I ran the tests: all 4 pass." }]);
    const r = await streamRun(["delegate the tests"], true);
    expect(r.exitCode, r.stderr).toBe(0);

    const seen = taskResult(leadRequests()[1]!);
    expect(seen).toMatch(/^Task Failed\. Verification failed: 1 of 1 acceptance checks failed: command_exits_zero sh check\.sh\./);
    expect(seen).toContain("The subagent's report (unverified): I ran the tests: all 4 pass.");
    expect(seen).toContain("- command_exits_zero sh check.sh: FAILED (exit 1: 3 passed, 1 failed)");
    expect(seen).not.toContain("Task Succeeded");

    const final = delegationEvents(r.events).find((d) => d.id === "t1" && d.status !== "running");
    expect(final).toMatchObject({ status: "failed", verdict: { verified: false, checks: [{ check: "command_exits_zero", passed: false }] } });
    expect(final.verdict.summary).toContain("acceptance checks failed");
    const ledger = await storedLedger(sb.home, r.events[0].thread_id);
    expect(ledger[0]).toMatchObject({ id: "t1", status: "failed", verdict: { verified: false } });
  });

  it("a subagent that wrote the file it claims passes file_exists and json_parses, and a broken or escaping path fails", async () => {
    sb = e2e.sandbox();
    script(
      [
        {
          toolCalls: [
            task("good", [
              { check: "file_exists", target: "report.json" },
              { check: "json_parses", target: "/mnt/user-data/workspace/report.json" },
            ]),
          ],
        },
        {
          toolCalls: [
            task("bad", [
              { check: "json_parses", target: "broken.json" },
              { check: "file_exists", target: "../../../../etc/passwd" },
            ]),
          ],
        },
        { content: "noted" },
      ],
      [
        { toolCalls: [{ id: "w1", name: "write_file", args: { path: "report.json", content: '{"ok":true}' } }] },
        { content: "Wrote report.json [receipt: w1]." },
        { toolCalls: [{ id: "w2", name: "write_file", args: { path: "broken.json", content: "{not json" } }] },
        { content: "Wrote broken.json [receipt: w2]." },
      ],
    );
    const r = await streamRun(["--yes", "write the report"]);
    expect(r.exitCode).toBe(0);
    const good = taskResult(leadRequests()[1]!);
    expect(good).toMatch(/^Task Succeeded\. Result: Wrote report\.json \[receipt: w1\]\./);
    expect(good).toContain("Verification by the runtime: passed.");
    expect(good).toContain("- receipts found in the subagent's tool calls: w1");
    const bad = (leadRequests()[2]!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").at(-1)!.content;
    expect(bad).toMatch(/^Task Failed\. Verification failed: 2 of 2 acceptance checks failed/);
    expect(bad).toContain("json_parses broken.json: FAILED (not valid JSON");
    expect(bad).toMatch(/file_exists \.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd: FAILED \([^)]*outside the thread's directories/);
    const ledger = await storedLedger(sb.home, r.events[0].thread_id);
    expect(ledger.map((d) => [d.id, d.status, d.verdict?.verified])).toEqual([
      ["good", "completed", true],
      ["bad", "failed", false],
    ]);
  });

  it("a report citing a tool call the subagent never made fails its receipts (spawned CLI)", async () => {
    sb = e2e.sandbox();
    script(
      [{ toolCalls: [task("t1")] }, { content: "noted" }],
      [{ toolCalls: [{ id: "real_ls", name: "ls", args: { path: "." } }] }, { content: "Listed the files [receipt: real_ls]; the tests pass [receipt: call_tests_42]." }],
    );
    const r = await streamRun(["delegate"], true);
    expect(r.exitCode, r.stderr).toBe(0);
    const seen = taskResult(leadRequests()[1]!);
    expect(seen).toMatch(/^Task Failed\. Verification failed: cites tool calls it never made: call_tests_42\./);
    expect(seen).toContain("- receipts found in the subagent's tool calls: real_ls");
    const final = delegationEvents(r.events).find((d) => d.id === "t1" && d.status !== "running");
    expect(final).toMatchObject({ status: "failed", verdict: { verified: false, receipts_cited: ["real_ls", "call_tests_42"], receipts_missing: ["call_tests_42"] } });
  });
});

describe("a subagent's stop and its view of the run", () => {
  it("a subagent stopped by the content filter records content_filter; the lead reads a failed task, the user sees the reason", async () => {
    sb = e2e.sandbox();
    script([{ toolCalls: [task("cf")] }, { content: "noted" }], [{ content: "Here is how to", finishReason: "content_filter" }]);
    // Text mode: the user's line on stderr.
    const r = await runCli(sb, ["run", "delegate"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('subagent general-purpose "run the tests": failed (content_filter)');
    const seen = taskResult(leadRequests()[1]!);
    expect(seen).toMatch(/^Task Failed\. The provider's content filter stopped the subagent \(stop_reason content_filter\); its work is not done\. Partial report: Here is how to/);
    const threadId = /new thread ([0-9a-f]{12})/.exec(r.stderr)![1]!;
    expect((await storedLedger(sb.home, threadId))[0]).toMatchObject({ id: "cf", status: "failed", stop_reason: "content_filter" });
  });

  it("the subagent is told about the files attached to the run, as the lead is", async () => {
    sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "spec.txt"), "the attached spec\n");
    script([{ toolCalls: [task("up")] }, { content: "noted" }], [{ content: "read it" }]);
    const r = await streamRun(["--upload", "spec.txt", "delegate with the spec"]);
    expect(r.exitCode).toBe(0);
    const child = e2e.server.requests.find(isChild)!;
    expect(flat(child)).toContain("<uploaded_files>");
    expect(flat(child)).toContain("/mnt/user-data/uploads/spec.txt");
    expect(flat(child)).toContain("the attached spec");
  });
});
