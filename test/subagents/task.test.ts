import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import type { DelegationEntry } from "../../src/state/types.js";
import { SubagentRegistry } from "../../src/subagents/registry.js";
import { SubagentRuntime } from "../../src/subagents/runtime.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createTaskTool, taskResultText } from "../../src/subagents/task-tool.js";
import { runSubagent } from "../../src/subagents/executor.js";
import { callTask, makeMounts, sleep, sleepyTool } from "./helpers.js";

const sleeperChild = (ms: number, answer = "child done") =>
  fakeModel()
    .respondWithTools([{ name: "sleepy", args: { ms } }])
    .respond(new AIMessage(answer));

function taskCall(id: string, description: string, subagent_type = "general-purpose") {
  return { id, name: "task", args: { description, prompt: `do ${description}`, subagent_type } };
}

describe("task tool in a parent agent", () => {
  it("runs three task calls of one turn concurrently and records three completed delegations", async () => {
    const mounts = makeMounts();
    const runtime = new SubagentRuntime();
    const log = { aborted: 0, calls: 0, spans: [] as Array<[number, number]> };
    const sleepy = sleepyTool(log);
    const parentTools: unknown[] = [];
    const taskTool = createTaskTool({ runtime, registry: new SubagentRegistry(), model: () => sleeperChild(600), tools: () => parentTools as never });
    parentTools.push(taskTool, sleepy);
    const parentModel = fakeModel()
      .respondWithTools([taskCall("call_a", "a"), taskCall("call_b", "b"), taskCall("call_c", "c")])
      .respond(new AIMessage("all delegated work is done"));
    const saver = new MemorySaver();
    const parent = createDeerflowAgent(parentModel, [taskTool, sleepy], { features: { sandbox: false }, checkpointer: saver });

    const out = (await parent.invoke(
      { messages: [new HumanMessage("go")] } as never,
      {
        configurable: { thread_id: "p1", thread_data: mounts, deerflow_run_id: "run-42" },
      } as never,
    )) as { delegations: DelegationEntry[]; messages: unknown[] };

    // Concurrent by count, not by the clock: all three children held a slot at once.
    expect(log.spans).toHaveLength(3);
    expect(runtime.stats.maxSeenActive).toBe(3);
    // The children ran outside the parent's run: no checkpoints of theirs under the parent's thread.
    expect(Object.keys(saver.storage)).toEqual(["p1"]);
    expect(Object.keys(saver.storage.p1!)).toEqual([""]);
    expect(out.delegations.map((d) => d.id).sort()).toEqual(["call_a", "call_b", "call_c"]);
    for (const d of out.delegations) {
      expect(d.status).toBe("completed");
      expect(d.run_id).toBe("run-42");
      expect(d.result_brief).toBe("child done");
      expect(d.result_sha256).toBe(createHash("sha256").update("child done").digest("hex"));
      expect(d.result_ref).toBe(`/mnt/user-data/outputs/.subagent-results/${d.id}.md`);
    }
    const texts = (out.messages as Array<{ content: unknown; name?: string }>).filter((m) => m.name === "task").map((m) => String(m.content));
    expect(texts).toEqual(["Task Succeeded. Result: child done", "Task Succeeded. Result: child done", "Task Succeeded. Result: child done"]);
  });

  it("shares one capacity: maxConcurrent 2 with three tasks never runs more than two", async () => {
    const mounts = makeMounts();
    const runtime = new SubagentRuntime({ maxConcurrent: 2 });
    const sleepy = sleepyTool();
    const taskTool = createTaskTool({ runtime, registry: new SubagentRegistry(), model: () => sleeperChild(200), tools: () => [sleepy] });
    const t0 = Date.now();
    const results = await Promise.all(["x", "y", "z"].map((d) => callTask(taskTool, { description: d, prompt: d, subagent_type: "general-purpose" }, { mounts })));
    const elapsed = Date.now() - t0;
    expect(results.every((r) => r.entry.status === "completed")).toBe(true);
    expect(runtime.stats.maxSeenActive).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(390); // the third waited for a slot
  });
});

describe("task tool results", () => {
  it("an unknown subagent_type is an error result listing the available types", async () => {
    const taskTool = createTaskTool({ runtime: new SubagentRuntime(), registry: new SubagentRegistry(), model: () => fakeModel(), tools: () => [] });
    const r = await callTask(taskTool, { description: "d", prompt: "p", subagent_type: "wizard" }, { mounts: makeMounts() });
    expect(r.status).toBe("error");
    expect(r.text).toMatch(/^Task Failed\. Error: Unknown subagent_type "wizard"\. Available subagent types: general-purpose, bash\./);
    expect(r.entry.status).toBe("failed");
  });

  it("keeps a 2000-char brief in the ledger and the full result in the result_ref file", async () => {
    const mounts = makeMounts();
    const long = "L".repeat(1500) + "M".repeat(3500);
    const taskTool = createTaskTool({
      runtime: new SubagentRuntime(),
      registry: new SubagentRegistry(),
      model: () => fakeModel().respond(new AIMessage(long)),
      tools: () => [],
    });
    const r = await callTask(taskTool, { description: "long", prompt: "p", subagent_type: "general-purpose" }, { mounts, id: "call_long" });
    expect(r.entry.result_brief).toBe(long.slice(0, 2000));
    expect(r.entry.result_sha256).toBe(createHash("sha256").update(long).digest("hex"));
    expect(r.entry.result_ref).toBe("/mnt/user-data/outputs/.subagent-results/call_long.md");
    expect(readFileSync(join(mounts.outputs_path, ".subagent-results", "call_long.md"), "utf8")).toBe(long);
    expect(r.text.startsWith(`Task Succeeded. Result: ${long.slice(0, 2000)}`)).toBe(true);
    expect(r.text).toContain("/mnt/user-data/outputs/.subagent-results/call_long.md");
  });

  it("never writes a result through a link a command planted in outputs/: a linked folder is refused, a linked file replaced", async () => {
    const mounts = makeMounts();
    const outside = join(mounts.workspace_path, "..", "home");
    mkdirSync(outside);
    writeFileSync(join(outside, "notes.md"), "the user's notes\n");
    const taskTool = () => createTaskTool({ runtime: new SubagentRuntime(), registry: new SubagentRegistry(), model: () => fakeModel().respond(new AIMessage("OVERWRITTEN")), tools: () => [] });
    // The folder is a link to the user's home (the tenth adversarial pass overwrote ~/notes.md this way).
    symlinkSync(outside, join(mounts.outputs_path, ".subagent-results"));
    const viaDir = await callTask(taskTool(), { description: "d", prompt: "p", subagent_type: "general-purpose" }, { mounts, id: "notes" });
    expect(viaDir.entry.status).toBe("completed");
    expect(viaDir.entry.result_ref).toBeUndefined();
    expect(viaDir.text).toContain("OVERWRITTEN"); // the brief still reaches the model
    expect(readdirSync(outside)).toEqual(["notes.md"]);
    expect(readFileSync(join(outside, "notes.md"), "utf8")).toBe("the user's notes\n");

    // A real folder with a linked file in it: the link is replaced by the result; its target is untouched.
    const m2 = makeMounts();
    mkdirSync(join(m2.outputs_path, ".subagent-results"));
    symlinkSync(join(outside, "notes.md"), join(m2.outputs_path, ".subagent-results", "notes.md"));
    const viaFile = await callTask(taskTool(), { description: "d", prompt: "p", subagent_type: "general-purpose" }, { mounts: m2, id: "notes" });
    expect(viaFile.entry.result_ref).toBe("/mnt/user-data/outputs/.subagent-results/notes.md");
    expect(readFileSync(join(m2.outputs_path, ".subagent-results", "notes.md"), "utf8")).toBe("OVERWRITTEN");
    expect(readFileSync(join(outside, "notes.md"), "utf8")).toBe("the user's notes\n");
  });

  it("a looping child is capped by LoopDetection and the result says so", async () => {
    const child = fakeModel();
    for (let i = 0; i < 12; i++) child.respond(new AIMessage({ content: "trying again", tool_calls: [{ id: `c${i}`, name: "sleepy", args: { ms: 1 } }] }));
    const taskTool = createTaskTool({ runtime: new SubagentRuntime(), registry: new SubagentRegistry(), model: () => child, tools: () => [sleepyTool()] });
    const r = await callTask(taskTool, { description: "loop", prompt: "p", subagent_type: "general-purpose" }, { mounts: makeMounts() });
    expect(r.entry.status).toBe("completed");
    expect(r.entry.stop_reason).toBe("loop_capped");
    expect(r.text).toMatch(/^Task Succeeded \(capped: loop guard\)\. Result: /);
    expect(r.text).toContain("[FORCED STOP]");
  });

  it("a child is capped by its type's turn limit", async () => {
    const child = fakeModel();
    for (let i = 0; i < 5; i++) child.respond(new AIMessage({ content: `step ${i}`, tool_calls: [{ id: `c${i}`, name: "sleepy", args: { ms: i + 1 } }] }));
    const registry = new SubagentRegistry([{ name: "short", description: "two turns", tools: ["sleepy"], maxTurns: 2, systemPrompt: "be brief" }]);
    const taskTool = createTaskTool({ runtime: new SubagentRuntime(), registry, model: () => child, tools: () => [sleepyTool()] });
    const r = await callTask(taskTool, { description: "turns", prompt: "p", subagent_type: "short" }, { mounts: makeMounts() });
    expect(r.entry.stop_reason).toBe("turn_capped");
    expect(r.text).toMatch(/^Task Succeeded \(capped: turn limit\)\. Result: .*TURN LIMIT REACHED/s);
    expect(child.callCount).toBe(2);
  });

  it("times out a child that takes too long", async () => {
    const taskTool = createTaskTool({
      runtime: new SubagentRuntime(),
      registry: new SubagentRegistry(),
      model: () => sleeperChild(3000),
      tools: () => [sleepyTool()],
      timeoutMs: 200,
    });
    // The child would take 3 s and succeed: the timed-out result itself is the proof.
    const r = await callTask(taskTool, { description: "slow", prompt: "p", subagent_type: "general-purpose" }, { mounts: makeMounts() });
    expect(r.text).toBe("Task Timed Out after 0.2 s.");
    expect(r.entry.status).toBe("timed_out");
    expect(r.status).toBe("error");
  });

  it("the bash subagent runs in the parent's workspace and gets only its tools (never task)", async () => {
    const mounts = makeMounts();
    const seen: string[][] = [];
    const child = fakeModel()
      .respondWithTools([{ name: "bash", args: { command: "pwd" } }])
      .respond((messages) => new AIMessage(`pwd said: ${String(messages.at(-1)?.content).trim()}`));
    const spy = { bindTools: child.bindTools.bind(child) };
    child.bindTools = ((tools: Array<{ name: string }>) => {
      seen.push(tools.map((t) => t.name));
      return spy.bindTools(tools as never);
    }) as never;
    const parentTools: unknown[] = [];
    const taskTool = createTaskTool({ runtime: new SubagentRuntime(), registry: new SubagentRegistry(), model: () => child, tools: () => parentTools as never });
    parentTools.push(taskTool, createBashTool(), sleepyTool());
    const r = await callTask(taskTool, { description: "pwd", prompt: "run pwd", subagent_type: "bash" }, { mounts });
    expect(r.text).toBe(`Task Succeeded. Result: pwd said: ${mounts.workspace_path}`);
    expect(seen[0]).toContain("bash");
    expect(seen[0]).not.toContain("task");
    expect(seen[0]).not.toContain("sleepy");
    expect(seen[0]).not.toContain("ask_clarification");
  });
});

describe("cancellation", () => {
  it("runSubagent: an aborted signal cancels a running child promptly and its tools see the abort", async () => {
    const log = { aborted: 0, calls: 0 };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const r = await runSubagent({
      type: new SubagentRegistry().resolveType("general-purpose"),
      prompt: "p",
      model: sleeperChild(5000),
      tools: [sleepyTool(log)],
      mounts: makeMounts(),
      signal: ac.signal,
    });
    expect(r.status).toBe("cancelled");
    expect(taskResultText(r, "", 1000, 0)).toBe("Task Cancelled.");
    expect(log.calls).toBe(1);
    expect(log.aborted).toBe(1);
  });

  it("the task tool's runtime signal reaches the child; the slot is released", async () => {
    const log = { aborted: 0, calls: 0 };
    const runtime = new SubagentRuntime();
    const taskTool = createTaskTool({ runtime, registry: new SubagentRegistry(), model: () => sleeperChild(5000), tools: () => [sleepyTool(log, true)] });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    // Invoked with a signal, the tool call itself rejects on abort (as inside a cancelled graph run).
    await expect(callTask(taskTool, { description: "c", prompt: "p", subagent_type: "general-purpose" }, { mounts: makeMounts(), signal: ac.signal })).rejects.toThrow(/abort/i);
    await sleep(50);
    expect(log.calls).toBe(1);
    expect(log.aborted).toBe(1);
    expect(runtime.stats.active).toBe(0);
  });

  it("a task queued for a slot is cancelled without ever starting", async () => {
    const runtime = new SubagentRuntime({ maxConcurrent: 1 });
    const taskTool = createTaskTool({ runtime, registry: new SubagentRegistry(), model: () => sleeperChild(300), tools: () => [sleepyTool()] });
    const mounts = makeMounts();
    const first = callTask(taskTool, { description: "1", prompt: "p", subagent_type: "general-purpose" }, { mounts });
    const ac = new AbortController();
    const second = callTask(taskTool, { description: "2", prompt: "p", subagent_type: "general-purpose" }, { mounts, signal: ac.signal });
    second.catch(() => undefined);
    await sleep(50);
    expect(runtime.stats.queued).toBe(1);
    ac.abort();
    await expect(second).rejects.toThrow(/abort/i);
    expect(runtime.stats.queued).toBe(0);
    expect(runtime.stats.cancelledWhileQueued).toBe(1);
    expect((await first).entry.status).toBe("completed");
    expect(runtime.stats.started).toBe(1);
  });

  it("aborting the parent agent run reaches the children", async () => {
    const log = { aborted: 0, calls: 0 };
    const sleepy = sleepyTool(log, true);
    const runtime = new SubagentRuntime();
    const taskTool = createTaskTool({ runtime, registry: new SubagentRegistry(), model: () => sleeperChild(5000), tools: () => [sleepy] });
    const parentModel = fakeModel()
      .respondWithTools([taskCall("call_p1", "p1"), taskCall("call_p2", "p2")])
      .respond(new AIMessage("done"));
    const parent = createDeerflowAgent(parentModel, [taskTool], { features: { sandbox: false }, checkpointer: new MemorySaver() });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await expect(parent.invoke({ messages: [new HumanMessage("go")] } as never, { configurable: { thread_id: "p2", thread_data: makeMounts() }, signal: ac.signal } as never)).rejects.toThrow();
    await sleep(100);
    expect(log.calls).toBe(2);
    expect(log.aborted).toBe(2);
    expect(runtime.stats.active).toBe(0);
  });
});
