import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loopDetectionMiddleware } from "../../src/middleware/loop-detection.js";
import { SUBAGENT_LIMIT_PREFIX, SUBAGENT_LIMIT_REACHED, applySubagentLimit, subagentLimitMiddleware } from "../../src/middleware/subagent-limit.js";
import { keepToolCalls } from "../../src/middleware/util/strip-tool-calls.js";

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

function stubs() {
  const executed: string[] = [];
  const task = tool(
    async ({ description }: { description: string; prompt: string; subagent_type: string }) => {
      executed.push(`task:${description}`);
      return `Task Succeeded. Result: did ${description}`;
    },
    {
      name: "task",
      description: "delegate",
      schema: z.object({ description: z.string(), prompt: z.string(), subagent_type: z.string() }),
    },
  );
  const bash = tool(
    async ({ command }: { command: string }) => {
      executed.push(`bash:${command}`);
      return `ran ${command}`;
    },
    { name: "bash", description: "bash", schema: z.object({ command: z.string() }) },
  );
  return { executed, tools: [task, bash] };
}

const t = (description: string, subagent_type = "general-purpose"): Call => ({ name: "task", args: { description, prompt: `do ${description}`, subagent_type } });
const sh = (command: string): Call => ({ name: "bash", args: { command } });

type LimitState = { messages: BaseMessage[]; subagent_tasks_used: number; tool_call_counts?: Record<string, number> };

const aiMessages = (msgs: BaseMessage[]) => msgs.filter((m): m is AIMessage => AIMessage.isInstance(m));

describe("SubagentLimit in createAgent", () => {
  it("keeps 3 of 4 task calls in one turn; the 4th never runs and the next model call reads the note", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("a"), t("b"), t("c"), t("d", "bash")], "done"]);
    const agent = createAgent({ model, tools, middleware: [subagentLimitMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;

    expect(executed).toEqual(["task:a", "task:b", "task:c"]);
    expect(model.callCount).toBe(2);
    const first = aiMessages(out.messages)[0]!;
    expect(first.id).toBe(`ai-${seq - 1}`); // replaced in place
    expect(first.tool_calls!.map((c) => c.args.description)).toEqual(["a", "b", "c"]);
    expect(String(first.content)).toContain(`${SUBAGENT_LIMIT_PREFIX} Only 3 task calls run per turn; these were not run: "d" (bash)`);
    // the model's next request carries the rewritten AI message (with the note), and results for the kept calls only
    const seen = model.calls[1]!.messages;
    const seenAi = seen.find((m) => AIMessage.isInstance(m))!;
    expect(String(seenAi.content)).toContain(SUBAGENT_LIMIT_PREFIX);
    expect((seenAi as AIMessage).tool_calls).toHaveLength(3);
    expect(seen.filter(ToolMessage.isInstance)).toHaveLength(3);
    expect(out.messages.filter(ToolMessage.isInstance).map((m) => m.tool_call_id)).toEqual(first.tool_calls!.map((c) => c.id));
    expect(out.subagent_tasks_used).toBe(3);
  });

  it("keeps every non-task call alongside the first 3 task calls", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("a"), sh("ls"), t("b"), t("c"), t("d"), sh("pwd")], "done"]);
    const out = (await createAgent({ model, tools, middleware: [subagentLimitMiddleware()] }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;
    expect(executed.sort()).toEqual(["bash:ls", "bash:pwd", "task:a", "task:b", "task:c"]);
    expect(aiMessages(out.messages)[0]!.tool_calls!.map((c) => c.name)).toEqual(["task", "bash", "task", "task", "bash"]);
  });

  it("refuses the 7th task call of a run with [SUBAGENT LIMIT REACHED]; non-task calls in that message still run", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("1"), t("2"), t("3")], [t("4"), t("5"), t("6")], [t("7"), sh("make")], "done myself"]);
    const out = (await createAgent({ model, tools, middleware: [subagentLimitMiddleware()] }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;

    expect(executed).toEqual(["task:1", "task:2", "task:3", "task:4", "task:5", "task:6", "bash:make"]);
    expect(model.callCount).toBe(4);
    const third = aiMessages(out.messages)[2]!;
    expect(third.tool_calls!.map((c) => c.name)).toEqual(["bash"]);
    expect(String(third.content)).toContain(`${SUBAGENT_LIMIT_REACHED} This run may delegate at most 6 tasks; do the remaining work yourself or finish.`);
    expect(String(third.content)).toContain('"7" (general-purpose)');
    expect(model.calls[3]!.messages.some((m) => String(m.content).includes(SUBAGENT_LIMIT_REACHED))).toBe(true);
    expect(out.subagent_tasks_used).toBe(6);
    expect(out.messages.at(-1)!.content).toBe("done myself");
  });

  it("a message with only refused task calls ends the run with the note as the final reply", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("1"), t("2")], [t("3"), t("4")], "never"]);
    const out = (await createAgent({ model, tools, middleware: [subagentLimitMiddleware({ maxPerTurn: 2, maxPerRun: 2 })] }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;
    expect(executed).toEqual(["task:1", "task:2"]);
    expect(model.callCount).toBe(2);
    const last = out.messages.at(-1)! as AIMessage;
    expect(last.tool_calls ?? []).toEqual([]);
    expect(String(last.content)).toContain(`${SUBAGENT_LIMIT_REACHED} This run may delegate at most 2 tasks`);
    expect(out.messages.filter(ToolMessage.isInstance)).toHaveLength(2); // no dangling call
  });

  it("when the run's budget is the binding limit, it keeps what is left and says LIMIT REACHED", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("1"), t("2"), t("3")], [t("4"), t("5"), t("6")], "done"]);
    const out = (await createAgent({ model, tools, middleware: [subagentLimitMiddleware({ maxPerRun: 4 })] }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;
    expect(executed).toEqual(["task:1", "task:2", "task:3", "task:4"]);
    const second = aiMessages(out.messages)[1]!;
    expect(String(second.content)).toContain(`${SUBAGENT_LIMIT_REACHED} This run may delegate at most 4 tasks`);
    expect(String(second.content)).toContain('Not run: "5" (general-purpose); "6" (general-purpose).');
    expect(out.subagent_tasks_used).toBe(4);
  });

  it("the per-run counter starts at 0 on every run of a thread", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("1"), t("2")], [t("3")], "run 1 done", [t("4"), t("5")], "run 2 done"]);
    const agent = createAgent({ model, tools, middleware: [subagentLimitMiddleware({ maxPerRun: 3 })], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "subagent-reset" } };
    const run1 = (await agent.invoke({ messages: [new HumanMessage("first")] }, config)) as unknown as LimitState;
    expect(run1.subagent_tasks_used).toBe(3);
    const run2 = (await agent.invoke({ messages: [new HumanMessage("second")] }, config)) as unknown as LimitState;
    expect(executed).toEqual(["task:1", "task:2", "task:3", "task:4", "task:5"]); // run 1's 3 did not block run 2
    expect(run2.subagent_tasks_used).toBe(2);
    expect(run2.messages.some((m) => String(m.content).includes(SUBAGENT_LIMIT_REACHED))).toBe(false);
  });

  it("in DeerFlow's order (SubagentLimit before LoopDetection) LoopDetection never sees the stripped calls", async () => {
    const { executed, tools } = stubs();
    const model = scripted([[t("a"), t("b"), t("c"), t("d"), t("e")], [t("f"), t("g"), t("h"), t("i")], "done"]);
    const middleware: AgentMiddleware[] = [subagentLimitMiddleware({ maxPerRun: 5 }), loopDetectionMiddleware()];
    const out = (await createAgent({ model, tools, middleware }).invoke({ messages: [new HumanMessage("go")] })) as unknown as LimitState;
    expect(executed).toHaveLength(5);
    expect(out.tool_call_counts).toEqual({ task: 5 }); // not 9: the 4 stripped calls were never counted
    expect(out.subagent_tasks_used).toBe(5);
  });

  it("rejects invalid limits", () => {
    expect(() => subagentLimitMiddleware({ maxPerTurn: 0 })).toThrow(RangeError);
    expect(() => subagentLimitMiddleware({ maxPerRun: 2.5 })).toThrow(/maxPerRun/);
  });
});

describe("SubagentLimit helpers", () => {
  const limits = { maxPerTurn: 3, maxPerRun: 6 };
  const msg = (calls: Call[], extra: Partial<ConstructorParameters<typeof AIMessage>[0] & object> = {}) =>
    new AIMessage({ id: "m", content: "", tool_calls: calls.map((c, i) => ({ ...c, id: `c${i}`, type: "tool_call" as const })), ...extra });

  it("applySubagentLimit is idempotent and leaves messages within the limits alone", () => {
    expect(applySubagentLimit(msg([t("a"), sh("x")]), 0, limits)).toEqual({ message: null, kept: 1, dropped: 0 });
    const first = applySubagentLimit(msg([t("a"), t("b"), t("c"), t("d")]), 0, limits);
    expect(first).toMatchObject({ kept: 3, dropped: 1 });
    expect(applySubagentLimit(first.message!, 0, limits)).toEqual({ message: null, kept: 3, dropped: 0 });
    const exhausted = applySubagentLimit(msg([t("a"), sh("x")]), 6, limits);
    expect(exhausted).toMatchObject({ kept: 0, dropped: 1 });
    expect(exhausted.message!.tool_calls!.map((c) => c.name)).toEqual(["bash"]);
    expect(applySubagentLimit(exhausted.message!, 6, limits).message).toBeNull();
  });

  it("keepToolCalls keeps id and text, drops provider-format copies of the removed calls only", () => {
    const m = new AIMessage({
      id: "m1",
      content: [
        { type: "text", text: "Delegating." },
        { type: "tool_use", id: "c0", name: "task", input: {} },
        { type: "tool_use", id: "c1", name: "task", input: {} },
      ] as never,
      tool_calls: [
        { id: "c0", name: "task", args: {}, type: "tool_call" },
        { id: "c1", name: "task", args: {}, type: "tool_call" },
      ],
      additional_kwargs: {
        tool_calls: [
          { id: "c0", type: "function", function: { name: "task", arguments: "{}" } },
          { id: "c1", type: "function", function: { name: "task", arguments: "{}" } },
        ],
        reasoning_content: "hm",
      },
    });
    const k = keepToolCalls(m, [m.tool_calls![0]!], "NOTE");
    expect(k.id).toBe("m1");
    expect(k.tool_calls!.map((c) => c.id)).toEqual(["c0"]);
    expect((k.additional_kwargs.tool_calls as { id: string }[]).map((c) => c.id)).toEqual(["c0"]);
    expect(k.additional_kwargs.reasoning_content).toBe("hm");
    expect(k.content).toEqual([
      { type: "text", text: "Delegating." },
      { type: "tool_use", id: "c0", name: "task", input: {} },
      { type: "text", text: "NOTE" },
    ]);
    expect(keepToolCalls(new AIMessage({ id: "m2", content: "Let me delegate." }), [], "NOTE").content).toBe("Let me delegate.\n\nNOTE");
  });
});
