// End to end in a real terminal: three subagents in the delegations panel, and Esc cancelling a long run while the
// thread stays usable.
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { listThreads } from "../support/requests.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { processesMatching } from "../support/processes.js";
import { statusLine, statusShowsThread, submit, usePty, waitReady, type PtyProcess } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const systemText = (req: RecordedRequest) => {
  const c = req.body.messages[0]?.content;
  return typeof c === "string" ? c : (c ?? []).map((b: { text?: string }) => b.text ?? "").join("");
};
const isChild = (req: RecordedRequest) => systemText(req).includes("subagent of deerflow");
const flat = (req: RecordedRequest) => JSON.stringify(req.body.messages);

describe("subagents in the terminal", () => {
  it("three task calls in one turn: the Subagents panel lists the three, all end completed (✓), then the answer", async () => {
    const sb = e2e.sandbox();
    const task = (id: string, what: string) => ({ id, name: "task", args: { description: `research ${what}`, prompt: `child ${what}`, subagent_type: "general-purpose" } });
    const parent = [{ toolCalls: [task("t1", "alpha"), task("t2", "beta"), task("t3", "gamma")] }, { content: "All three subagents reported back." }];
    // Children answer slowly enough for the running panel to be seen; the parent's replies go in order.
    e2e.server.setScript((req) => (isChild(req) ? { content: `${flat(req).match(/child (\w+)/)?.[1]} findings`, delayMs: 1500 } : (parent.shift() ?? { content: "unexpected extra turn" })));
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "split the research three ways");

    await t.waitFor("Subagents (3 running)", { where: "screen" });
    const running = t.screen();
    for (const what of ["alpha", "beta", "gamma"]) expect(running).toMatch(new RegExp(`research ${what} \\(general-purpose\\) running`));

    await t.waitFor("All three subagents reported back.");
    // The finished run's panel is one summary line; ctrl+t prints it in full.
    await t.waitFor("Subagents (3 done) · ctrl+t opens it", { where: "screen" });
    expect(t.screen()).not.toMatch(/✓ research \w+ \(general-purpose\) completed/);
    await t.press("ctrl-t");
    await t.waitFor(/^Subagents \(3 done\)$/m, { where: "screen" });
    const done = t.screen();
    for (const what of ["alpha", "beta", "gamma"]) {
      expect(done).toMatch(new RegExp(`✓ research ${what} \\(general-purpose\\) completed`));
      expect(done).toMatch(new RegExp(`✓ task research ${what} .*Task Succeeded\\. Result: ${what} findings`));
    }
    expect(done).not.toContain("running");
    expect(e2e.server.requests.filter(isChild)).toHaveLength(3);
  }, 60_000);
});

/** Presses Esc while the run works; "Interrupted" must show (the model or tool would otherwise never finish). */
async function cancelRun(t: PtyProcess): Promise<void> {
  await t.press("esc");
  await t.waitFor("Interrupted. The thread is saved", { timeoutMs: 30_000 });
  await t.waitForGone("Working…");
}

/** The prompt after a cancel: a new turn answers on the same thread. */
async function continueAfterCancel(t: PtyProcess, sb: Sandbox, firstPrompt: string): Promise<void> {
  const [thread] = await listThreads(sb);
  expect(statusShowsThread(t, thread!.id)).toBe(true);
  const shown = statusLine(t).match(/\b[0-9a-f]{8,}/)![0];
  e2e.server.push({ content: "Picking up where we left off." });
  const before = e2e.server.requests.length;
  await submit(t, "try again, quicker");
  await t.waitFor("Picking up where we left off.");
  const next = e2e.server.requests[before]!;
  // Same thread: the model sees the first, cancelled prompt too.
  expect(flat(next)).toContain(firstPrompt);
  expect(flat(next)).toContain("try again, quicker");
  // The status line still shows the same thread (after the run it may add a title and tokens).
  await t.waitFor(() => statusLine(t).match(/\b[0-9a-f]{8,}/)?.[0] === shown, { where: "screen" });
  const after = await listThreads(sb);
  expect(after.map((x) => x.id)).toEqual([thread!.id]);
}

describe("esc cancels a long run in the terminal", () => {
  it("a model that never answers: esc shows Interrupted within seconds; the next prompt continues the same thread", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ hang: true });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "think about it forever");
    await t.waitFor("esc to cancel", { where: "screen" });
    await t.waitFor(() => e2e.server.requests.length === 1, { timeoutMs: 10_000 });
    await sleep(300);
    await cancelRun(t);
    await continueAfterCancel(t, sb, "think about it forever");
  }, 60_000);

  it("a bash tool running sleep: esc kills it (the card says cancelled) and the thread goes on", async () => {
    const sb = e2e.sandbox();
    // A unique duration marks the sleep's process, to prove it is gone after the cancel.
    const marker = `${30 + (process.pid % 50)}.${Date.now() % 997}`;
    e2e.server.push({ toolCalls: [{ id: "s1", name: "bash", args: { command: `sleep ${marker}` } }] });
    const t = tui.spawn(sb, ["chat"]);
    await waitReady(t);
    await submit(t, "wait for the slow job");
    await t.waitFor(`bash sleep ${marker} ·`, { where: "screen" });
    const deadline = Date.now() + 10_000;
    while (processesMatching(marker).length === 0 && Date.now() < deadline) await sleep(50);
    expect(processesMatching(marker).length).toBeGreaterThan(0);

    await cancelRun(t);
    expect(t.scrollback()).toMatch(new RegExp(`✗ bash sleep ${marker.replace(".", "\\.")} .*cancelled`));
    for (let i = 0; i < 40 && processesMatching(marker).length > 0; i++) await sleep(50);
    expect(processesMatching(marker)).toEqual([]);
    await continueAfterCancel(t, sb, "wait for the slow job");
  }, 60_000);
});

describe("the terminal closes during a run", () => {
  it.each(["SIGHUP", "SIGTERM"])(
    "%s: the run is cancelled, the thread saved as interrupted and unlocked, the process ends",
    async (signal) => {
      const sb = e2e.sandbox();
      e2e.server.push({ hang: true });
      const t = tui.spawn(sb, ["chat"]);
      await waitReady(t);
      await submit(t, "a long think");
      await t.waitFor(() => e2e.server.requests.length === 1, { timeoutMs: 10_000 });
      await sleep(300);
      t.signal(signal);
      // The model hangs forever: the process ending at all proves the run was cancelled.
      const exit = await t.exited;
      expect(exit.exitCode).toBe(0);
      const [thread] = await listThreads(sb);
      expect(thread!.status).toBe("interrupted");
      // Unlocked: a headless run continues the thread at once.
      e2e.server.push({ content: "continued" });
      const r = await sb.run(["run", "--thread", thread!.id, "go on"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("continued");
    },
    60_000,
  );
});
