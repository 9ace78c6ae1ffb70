import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent, createMiddleware, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FORCED_STOP_TEXT, LOOP_WARNING_PREFIX, effectiveRepeats, iterationHash, loopDetectionMiddleware, toolCallHash } from "../../src/middleware/loop-detection.js";
import { stripToolCalls } from "../../src/middleware/util/strip-tool-calls.js";

type Call = { name: string; args: Record<string, unknown> };

let seq = 0;
/** A fake model that plays `turns` in order (each a list of tool calls, or a final text), with unique ids. */
function scripted(turns: (Call[] | string)[]) {
  const model = fakeModel();
  for (const turn of turns) {
    const n = ++seq;
    model.respond(
      typeof turn === "string"
        ? new AIMessage({ id: `ai-${n}`, content: turn })
        : new AIMessage({ id: `ai-${n}`, content: "", tool_calls: turn.map((c, i) => ({ ...c, id: `call-${n}-${i}`, type: "tool_call" as const })) }),
    );
  }
  return model;
}

const executed: string[] = [];
const readFile = tool(
  async ({ path, start_line, end_line }: { path: string; start_line?: number; end_line?: number }) => {
    executed.push(`read_file:${path}`);
    return `${path} ${start_line ?? 1}-${end_line ?? "end"}`;
  },
  {
    name: "read_file",
    description: "read",
    schema: z.object({ path: z.string(), start_line: z.number().optional(), end_line: z.number().optional() }),
  },
);
const bash = tool(
  async ({ command }: { command: string }) => {
    executed.push(`bash:${command}`);
    return `ran ${command}`;
  },
  { name: "bash", description: "bash", schema: z.object({ command: z.string() }) },
);

const rf = (path: string, start_line?: number, end_line?: number): Call => ({
  name: "read_file",
  args: { path, ...(start_line !== undefined ? { start_line } : {}), ...(end_line !== undefined ? { end_line } : {}) },
});
const sh = (command: string): Call => ({ name: "bash", args: { command } });

const warningIn = (msgs: BaseMessage[]) => msgs.find((m) => String(m.content).includes("[LOOP DETECTED]"));

function agentFor(model: ReturnType<typeof fakeModel>, opts: Parameters<typeof loopDetectionMiddleware>[0] = {}, before: AgentMiddleware[] = []) {
  const middleware: AgentMiddleware[] = [...before, loopDetectionMiddleware(opts)];
  return createAgent({ model, tools: [readFile, bash], middleware });
}

type LoopState = { messages: BaseMessage[]; stop_reason: string | null; loop_window: string[]; tool_call_counts: Record<string, number>; loop_pending_warning: string | null };

describe("LoopDetection in createAgent", () => {
  it("warns at the 3rd identical iteration: the warning reaches the next model call and is never stored", async () => {
    const model = scripted([[sh("ls")], [sh("ls")], [sh("ls")], "ok, stopping"]);
    const out = (await agentFor(model).invoke({ messages: [new HumanMessage("go")] })) as unknown as LoopState;
    expect(model.callCount).toBe(4);
    expect(warningIn(model.calls[2]!.messages)).toBeUndefined();
    const w = warningIn(model.calls[3]!.messages)!;
    expect(w).toBeDefined();
    expect(String(w.content)).toContain(LOOP_WARNING_PREFIX);
    expect(String(w.content)).toMatch(/try a different approach or finish/i);
    expect(model.calls[3]!.messages.at(-1)).toBe(w); // appended after the tool results, just for that call
    // not in the thread: no HumanMessage (nor any message) carries it
    expect(warningIn(out.messages)).toBeUndefined();
    expect(out.messages.filter(HumanMessage.isInstance)).toHaveLength(1);
    expect(out.stop_reason).toBeNull();
    expect(out.loop_pending_warning).toBeNull();
  });

  it("warns once per pattern, then stops at the 5th repeat: tool calls stripped, [FORCED STOP], stop_reason loop_capped", async () => {
    executed.length = 0;
    const afterAgentRan: string[] = [];
    const outer = createMiddleware({ name: "Outer", afterAgent: () => void afterAgentRan.push("Outer.afterAgent") });
    const model = scripted(Array.from({ length: 8 }, () => [sh("make test")]));
    const out = (await agentFor(model, {}, [outer]).invoke({ messages: [new HumanMessage("go")] })) as unknown as LoopState;
    expect(model.callCount).toBe(5);
    expect(executed).toEqual(Array(4).fill("bash:make test")); // the 5th call never ran
    expect([3, 4].map((i) => Boolean(warningIn(model.calls[i]!.messages)))).toEqual([true, false]);
    const last = out.messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect((last as AIMessage).tool_calls ?? []).toEqual([]);
    expect(String(last.content)).toContain(FORCED_STOP_TEXT);
    expect(last.id).toBe(`ai-${seq - 3}`); // replaced in place (same id), not appended
    expect(out.stop_reason).toBe("loop_capped");
    // no dangling call was left behind, and the run left through the normal exit (afterAgent hooks ran)
    expect(out.messages.filter(ToolMessage.isInstance)).toHaveLength(4);
    expect(afterAgentRan).toEqual(["Outer.afterAgent"]);
  });

  it("hashes an iteration order-independently (same calls, other order, other key order = repeat)", async () => {
    const model = scripted([[sh("ls"), rf("/a.txt", 1, 10)], [{ name: "read_file", args: { end_line: 10, path: "/a.txt", start_line: 1 } }, sh("ls")], [rf("/a.txt", 1, 10), sh("ls")], "done"]);
    await agentFor(model).invoke({ messages: [new HumanMessage("go")] });
    expect(warningIn(model.calls[3]!.messages)).toBeDefined();
  });

  it("buckets read_file lines by 200: nearby ranges repeat, far ranges do not", async () => {
    const near = scripted([[rf("/big.ts", 1, 100)], [rf("/big.ts", 50, 150)], [rf("/big.ts", 101, 200)], "done"]);
    await agentFor(near).invoke({ messages: [new HumanMessage("go")] });
    expect(warningIn(near.calls[3]!.messages)).toBeDefined();

    const far = scripted([[rf("/big.ts", 1, 200)], [rf("/big.ts", 201, 400)], [rf("/big.ts", 401, 600)], [rf("/big.ts", 601, 800)], "done"]);
    const out = (await agentFor(far).invoke({ messages: [new HumanMessage("go")] })) as unknown as LoopState;
    expect(far.calls.some((c) => warningIn(c.messages))).toBe(false);
    expect(out.stop_reason).toBeNull();
  });

  it("detects an A-B-A-B cycle: warns after 4 alternating iterations, stops at the 6th", async () => {
    const A = [rf("/x.ts")];
    const B = [sh("npm test")];
    const model = scripted([A, B, A, B, A, B, A, "never"]);
    const out = (await agentFor(model).invoke({ messages: [new HumanMessage("go")] })) as unknown as LoopState;
    expect(warningIn(model.calls[3]!.messages)).toBeUndefined();
    const w = warningIn(model.calls[4]!.messages);
    expect(String(w?.content)).toContain("in a cycle");
    expect(model.callCount).toBe(6);
    expect(out.stop_reason).toBe("loop_capped");
    expect(String(out.messages.at(-1)!.content)).toContain(FORCED_STOP_TEXT);
  });

  it("different calls never trigger anything", async () => {
    const turns: (Call[] | string)[] = Array.from({ length: 25 }, (_, i) => (i % 2 ? [sh(`echo ${i}`)] : [rf(`/f${i}.ts`)]));
    const model = scripted([...turns, "done"]);
    const out = (await agentFor(model).invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 })) as unknown as LoopState;
    expect(model.callCount).toBe(26);
    expect(model.calls.some((c) => warningIn(c.messages))).toBe(false);
    expect(out.stop_reason).toBeNull();
    expect(out.loop_window).toHaveLength(20); // the window keeps the last 20
    expect(out.tool_call_counts).toEqual({ read_file: 13, bash: 12 });
  });

  it("per-tool caps: warn at toolWarn calls, stop at toolHardLimit, even with all-different arguments", async () => {
    const model = scripted([...Array.from({ length: 6 }, (_, i) => [sh(`step ${i}`)]), "never"]);
    const out = (await agentFor(model, { toolWarn: 3, toolHardLimit: 5 }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LoopState;
    const w = warningIn(model.calls[3]!.messages);
    expect(String(w?.content)).toContain("'bash' has been called 3 times");
    expect(model.callCount).toBe(5);
    expect(out.stop_reason).toBe("loop_capped");
    expect(String(out.messages.at(-1)!.content)).toContain("'bash' was called 5 times");
  });

  it("thresholds are options, and every run starts from a clean window (beforeAgent reset)", async () => {
    const model = scripted([[sh("x")], [sh("x")], [sh("x")], "done"]);
    const agent = createAgent({ model, tools: [bash], middleware: [loopDetectionMiddleware({ warnThreshold: 2, hardLimit: 2 })], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "loop-reset" } };
    const run1 = (await agent.invoke({ messages: [new HumanMessage("first")] }, config)) as unknown as LoopState;
    expect(run1.stop_reason).toBe("loop_capped");
    expect(model.callCount).toBe(2);
    // run 2 repeats x once more: with run 1's window it would be the 3rd x (stop); the window starts empty instead
    const run2 = (await agent.invoke({ messages: [new HumanMessage("second")] }, config)) as unknown as LoopState;
    expect(model.callCount).toBe(4);
    expect(run2.stop_reason).toBeNull();
    expect(run2.loop_window).toHaveLength(1);
    expect(run2.tool_call_counts).toEqual({ bash: 1 });
    expect(run2.messages.at(-1)!.content).toBe("done");
  });
});

describe("LoopDetection helpers", () => {
  it("effectiveRepeats: count vs period-2 cycle", () => {
    expect(effectiveRepeats(["A", "A", "A"]).repeats).toBe(3);
    expect(effectiveRepeats(["A", "B", "A"])).toEqual({ repeats: 2, count: 2, cycle: 0 });
    expect(effectiveRepeats(["A", "B", "A", "B"])).toEqual({ repeats: 3, count: 2, cycle: 3 });
    expect(effectiveRepeats(["C", "A", "B", "A", "B", "A"])).toEqual({ repeats: 4, count: 3, cycle: 4 });
    expect(effectiveRepeats(["A", "A", "B", "B"]).cycle).toBe(0);
  });

  it("call hashes: stable key order, read_file buckets, other tools keep exact lines", () => {
    expect(toolCallHash({ name: "t", args: { b: 1, a: { d: 2, c: 3 } } })).toBe(toolCallHash({ name: "t", args: { a: { c: 3, d: 2 }, b: 1 } }));
    expect(toolCallHash(rf("/a", 1, 200))).toBe(toolCallHash(rf("/a", 200, 150)));
    expect(toolCallHash(rf("/a", 1, 200))).not.toBe(toolCallHash(rf("/a", 201, 200)));
    expect(toolCallHash(rf("/a"))).not.toBe(toolCallHash(rf("/a", 1, 200))); // whole file ≠ first lines
    expect(toolCallHash({ name: "other", args: { start_line: 1 } })).not.toBe(toolCallHash({ name: "other", args: { start_line: 2 } }));
    expect(iterationHash([sh("a"), sh("b")])).toBe(iterationHash([sh("b"), sh("a")]));
    expect(iterationHash([sh("a"), sh("a")])).not.toBe(iterationHash([sh("a")]));
  });

  it("stripToolCalls keeps id and text, drops provider-format tool calls too", () => {
    const msg = new AIMessage({
      id: "m1",
      content: "Let me look again.",
      tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }], reasoning_content: "hm" },
      response_metadata: { finish_reason: "tool_calls" },
    });
    const s = stripToolCalls(msg, FORCED_STOP_TEXT);
    expect(s.id).toBe("m1");
    expect(s.tool_calls).toEqual([]);
    expect(s.additional_kwargs.tool_calls).toBeUndefined();
    expect(s.additional_kwargs.reasoning_content).toBe("hm");
    expect(s.content).toBe(`Let me look again.\n\n${FORCED_STOP_TEXT}`);
    const blocks = stripToolCalls(
      new AIMessage({
        id: "m2",
        content: [
          { type: "text", text: "hi" },
          { type: "tool_use", id: "c", name: "bash", input: {} },
        ] as never,
      }),
      FORCED_STOP_TEXT,
    );
    expect(blocks.content).toEqual([
      { type: "text", text: "hi" },
      { type: "text", text: FORCED_STOP_TEXT },
    ]);
  });
});
