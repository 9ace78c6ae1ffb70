// A long, tool-heavy conversation through the built CLI against the loopback model server, which records every
// request: 3 runs on one thread, 12 model turns each, every turn a read_file of a 2–8 KB file, a 20k context
// window. How often the history is compacted depends on the window, not on the number of turns: 39 turns in a 20k
// window compact it several times (a run's turns alone overflow it), as 416 turns in a 32k one did; a run after the
// first starts from a compacted history, so three runs prove what five did. Every request the provider receives fits the
// window and carries the first user message, the latest user message, the dated reminder and whole tool-call pairs.
// Then the model reads an archived message back with read_history, and a process killed (SIGKILL) while its summary
// call is in flight leaves a thread that resumes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/openai-server.js";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { trustProject } from "../support/trust.js";
import { isSummaryRequest, messageText } from "../support/requests.js";

const e2e = useE2E();
const WINDOW = 20_480;
const TURNS = 12;
const RUNS = 3;
/** Read in the order (step × 7) mod FILES: every file once per run, f3 (recalled later) at the 9th turn. */
const FILES = 12;

function setUp(sb: Sandbox) {
  writeFileSync(
    join(sb.cwd, ".deerflowrc"),
    JSON.stringify({
      models: { "test-model": { model: "test-model", contextWindow: WINDOW } },
      guards: { toolCallWarn: 5000, toolCallStop: 6000, tokenBudget: 100_000_000 },
    }),
  );
  trustProject(sb);
  for (let i = 0; i < FILES; i++) {
    const size = 2000 + ((i * 2654435761) % 6000);
    const lines = [`FILE-${i} start`];
    while (lines.join("\n").length < size) lines.push(`line ${lines.length} of file ${i} `.padEnd(78, "."));
    writeFileSync(join(sb.cwd, `f${i}.txt`), `${lines.join("\n")}\n`);
  }
}

/** The conversation's turns: each user message starts `TURNS` read_file calls over the files, then a final answer. */
function script(state: { step: number; hangSummary: boolean }) {
  return (req: RecordedRequest) => {
    if (isSummaryRequest(req)) return state.hangSummary ? { hang: true as const } : { content: "Summary: the user asked to read the project files one by one; they were read." };
    if (messageText(req.body.messages[0]).startsWith("Write a short title")) return { content: "Reading files" };
    const last = req.body.messages.at(-1);
    if (last.role === "user" && messageText(last).includes("recall")) return { toolCalls: [{ name: "read_history", args: { search: "FILE-3 start" } }] };
    // Found, with the file's own text (the query alone is echoed by "No archived message matches …" too).
    if (last.role === "tool" && messageText(last).includes("match"))
      return { content: /\d+ archived message\(s\) match/.test(messageText(last)) && messageText(last).includes("line 1 of file 3 ") ? "recalled FILE-3" : "not found" };
    if (last.role === "user") state.step = 0;
    state.step += 1;
    if (state.step > TURNS) return { content: "read them all" };
    return { toolCalls: [{ name: "read_file", args: { path: `f${(state.step * 7) % FILES}.txt` } }] };
  };
}

function checkRequest(r: RecordedRequest, first: string, latest: string) {
  const msgs = r.body.messages as any[];
  expect((JSON.stringify(msgs).length + JSON.stringify(r.body.tools ?? []).length) / 4).toBeLessThan(WINDOW);
  const users = msgs.filter((m) => m.role === "user").map(messageText);
  expect(users.some((u) => u.includes(first))).toBe(true);
  expect(users.some((u) => u.includes(latest))).toBe(true);
  expect(msgs[0].role).toBe("system");
  expect(messageText(msgs[1])).toContain("<system-reminder>");
  for (let i = 0; i < msgs.length; i++) {
    const ids = (msgs[i].tool_calls ?? []).map((c: any) => c.id);
    if (ids.length) expect(msgs.slice(i + 1, i + 1 + ids.length).map((m) => m.tool_call_id)).toEqual(ids);
    if (msgs[i].role === "tool")
      expect(
        msgs
          .slice(0, i)
          .reverse()
          .find((m) => m.role === "assistant")
          ?.tool_calls?.map((c: any) => c.id),
      ).toContain(msgs[i].tool_call_id);
  }
}

describe("a 39-turn conversation through the built CLI", () => {
  it("stays inside a 20k window with its invariants, reads an archived message back, and survives kill -9 mid-compaction", async () => {
    const sb = e2e.sandbox();
    setUp(sb);
    const state = { step: 0, hangSummary: false };
    e2e.server.setScript(script(state));
    const asks = Array.from({ length: RUNS }, (_, i) => `task ${String.fromCharCode(65 + i)}: read the files`);
    const first = await sb.run(["run", "--yes", "-w", sb.cwd, "--output-format", "json", asks[0]!], { timeoutMs: 600_000 });
    expect(first.exitCode, first.stderr).toBe(0);
    const thread = JSON.parse(first.stdout).thread_id as string;
    expect(first.stderr).toMatch(/Context compacted: \d+ older messages summarized and archived, ~[\d.k]+ → ~[\d.k]+ tokens/);
    for (const ask of asks.slice(1)) {
      const r = await sb.run(["run", "--yes", "--thread", thread, ask], { timeoutMs: 600_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe("read them all\n");
    }
    const turns = e2e.server.requests.filter((r) => !isSummaryRequest(r) && !messageText(r.body.messages[0]).startsWith("Write a short title"));
    expect(turns.length).toBe(asks.length * (TURNS + 1));
    expect(e2e.server.requests.filter(isSummaryRequest).length).toBeGreaterThan(4);
    // Request k belongs to run floor(k / (TURNS + 1)): its own user message must be there.
    turns.forEach((r, k) => checkRequest(r, asks[0]!, asks[Math.floor(k / (TURNS + 1))]!));

    // The model reads an archived original back.
    const recall = await sb.run(["run", "--yes", "--thread", thread, "recall the start of FILE-3"], { timeoutMs: 120_000 });
    expect(recall.exitCode, recall.stderr).toBe(0);
    expect(recall.stdout).toBe("recalled FILE-3\n");

    // kill -9 while the summary call hangs: the thread resumes, nothing half-written.
    state.hangSummary = true;
    const before = e2e.server.requests.filter(isSummaryRequest).length;
    const child = sb.spawn(["run", "--yes", "--thread", thread, "fifth task: and again"]);
    for (let i = 0; i < 6000 && e2e.server.requests.filter(isSummaryRequest).length === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(e2e.server.requests.filter(isSummaryRequest).length).toBeGreaterThan(before);
    child.kill("SIGKILL");
    await child.catch(() => {});
    state.hangSummary = false;
    const resumed = await sb.run(["run", "--yes", "--thread", thread, "sixth task: finish"], { timeoutMs: 600_000 });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("read them all\n");
    checkRequest(e2e.server.requests.filter((r) => !isSummaryRequest(r)).at(-1)!, asks[0]!, "sixth task: finish");
  }, 1_200_000);
});
