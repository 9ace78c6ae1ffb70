import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tokenUsageMiddleware, usageOf } from "../../src/middleware/token-usage.js";
import { RunUsage } from "../../src/runtime/run-usage.js";

type Usage = { input_tokens: number; output_tokens: number; total_tokens: number; by_source?: Record<string, Usage> };
type UsageState = { messages: BaseMessage[]; run_usage: Usage; thread_usage: Usage };

let seq = 0;
const u = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens, total_tokens: input_tokens + output_tokens });
/** The lead's calls only: the breakdown names the lead alone. */
const lead = (input_tokens: number, output_tokens: number) => ({ ...u(input_tokens, output_tokens), by_source: { lead: u(input_tokens, output_tokens) } });
const toolTurn = (usage?: Usage) => {
  const n = ++seq;
  return new AIMessage({ id: `ai-${n}`, content: "", tool_calls: [{ name: "echo", args: { text: `t${n}` }, id: `call-${n}`, type: "tool_call" }], ...(usage ? { usage_metadata: usage } : {}) });
};
const finalTurn = (usage?: Usage) => new AIMessage({ id: `ai-${++seq}`, content: "done", ...(usage ? { usage_metadata: usage } : {}) });
const echo = tool(async ({ text }: { text: string }) => text, { name: "echo", description: "echo", schema: z.object({ text: z.string() }) });
const cfg = { configurable: { thread_id: "usage-thread" } };

describe("TokenUsage middleware in createAgent", () => {
  it("sums usage_metadata per run (reset each run) and per thread (cumulative)", async () => {
    const model = fakeModel()
      .respond(toolTurn(u(100, 10)))
      .respond(toolTurn(u(200, 20)))
      .respond(finalTurn(u(300, 30)));
    const agent = createAgent({ model, tools: [echo], middleware: [tokenUsageMiddleware()], checkpointer: new MemorySaver() });
    const r1 = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg)) as unknown as UsageState;
    expect(r1.run_usage).toEqual(lead(600, 60));
    expect(r1.thread_usage).toEqual(lead(600, 60));

    model.respond(finalTurn(u(1000, 5)));
    const r2 = (await agent.invoke({ messages: [new HumanMessage("again")] }, cfg)) as unknown as UsageState;
    expect(r2.run_usage).toEqual(lead(1000, 5));
    expect(r2.thread_usage).toEqual(lead(1600, 65));
  });

  it("a model answer without usage_metadata counts nothing", async () => {
    const model = fakeModel()
      .respond(toolTurn())
      .respond(finalTurn(u(7, 3)));
    const agent = createAgent({ model, tools: [echo], middleware: [tokenUsageMiddleware()] });
    const r = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as UsageState;
    expect(r.run_usage).toEqual(lead(7, 3));
  });

  it("tokens spent outside the graph's state (subagents') join the totals at the next call or at the run's end", async () => {
    const model = fakeModel()
      .respond(toolTurn(u(100, 10)))
      .respond(finalTurn(u(200, 20)));
    // The ledger holds a child's spending until TokenUsage takes it; taking it clears it (counted once).
    const ledger = new RunUsage();
    let calls = 0;
    const spending = tool(
      async () => {
        ledger.add("subagents", u(50, 5));
        calls++;
        return "child done";
      },
      { name: "echo", description: "echo", schema: z.object({ text: z.string() }) },
    );
    const agent = createAgent({ model, tools: [spending], middleware: [tokenUsageMiddleware({ sink: () => ledger })], checkpointer: new MemorySaver() });
    const r = (await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "side" } })) as unknown as UsageState;
    expect(calls).toBe(1);
    const whole = { ...u(350, 35), by_source: { lead: u(300, 30), subagents: u(50, 5) } };
    expect(r.run_usage).toEqual(whole);
    expect(r.thread_usage).toEqual(whole);
    expect(ledger.takeUnsaved()).toBeNull();
  });

  it("usageOf derives total_tokens when missing and ignores non-AI messages", () => {
    expect(usageOf(new HumanMessage("x"))).toBeNull();
    expect(usageOf(new AIMessage("x"))).toBeNull();
    const m = new AIMessage({ content: "x", usage_metadata: { input_tokens: 4, output_tokens: 6 } as never });
    expect(usageOf(m)).toEqual({ input_tokens: 4, output_tokens: 6, total_tokens: 10 });
  });
});
