import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type AgentMiddleware, createAgent, fakeModel, tool } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { startTestModelServer } from "../support/openai-server.js";
import { z } from "zod";
import { loopDetectionMiddleware } from "../../src/middleware/loop-detection.js";
import { TOKEN_BUDGET_EXCEEDED, TOKEN_BUDGET_WARNING_PREFIX, tokenBudgetMiddleware } from "../../src/middleware/token-budget.js";
import { TOKEN_CAPPED } from "../../src/vocabulary/stop-reasons.js";

type BudgetState = { messages: BaseMessage[]; stop_reason: string | null; token_budget_used: number; token_budget_pending_warning: string | null };

let seq = 0;
const usage = (total: number) => ({ input_tokens: total - 10, output_tokens: 10, total_tokens: total });
/** An AI turn calling `run` once, with `total` tokens of usage; OpenAI-style additional_kwargs.tool_calls too. */
const toolTurn = (total: number) => {
  const n = ++seq;
  const id = `call-${n}`;
  return new AIMessage({
    id: `ai-${n}`,
    content: `step ${n}`,
    tool_calls: [{ name: "run", args: { cmd: `c${n}` }, id, type: "tool_call" }],
    additional_kwargs: { tool_calls: [{ id, type: "function", function: { name: "run", arguments: JSON.stringify({ cmd: `c${n}` }) } }] },
    usage_metadata: usage(total),
  });
};
const finalTurn = (total: number) => new AIMessage({ id: `ai-${++seq}`, content: "final answer", usage_metadata: usage(total) });

function setup(middleware: AgentMiddleware[]) {
  const executed: string[] = [];
  const run = tool(
    async ({ cmd }: { cmd: string }) => {
      executed.push(cmd);
      return `ran ${cmd}`;
    },
    { name: "run", description: "run", schema: z.object({ cmd: z.string() }) },
  );
  const model = fakeModel();
  const agent = createAgent({ model, tools: [run], middleware, checkpointer: new MemorySaver() });
  return { executed, model, agent };
}
const warningIn = (msgs: readonly BaseMessage[]) => msgs.find((m) => JSON.stringify(m.content).includes(TOKEN_BUDGET_WARNING_PREFIX));
const cfg = (t: string) => ({ configurable: { thread_id: t } });

describe("TokenBudget middleware in createAgent", () => {
  it("warns at 80%: the warning reaches the next model call only and is never stored", async () => {
    const { model, agent, executed } = setup([tokenBudgetMiddleware({ maxTokens: 1000 })]);
    const turns = [toolTurn(500), toolTurn(350), toolTurn(50)];
    for (const t of turns) model.respond(t);
    model.respond(finalTurn(50));
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("w"))) as unknown as BudgetState;
    expect(model.callCount).toBe(4);
    expect(warningIn(model.calls[1]!.messages)).toBeUndefined();
    const w = warningIn(model.calls[2]!.messages)!;
    expect(w).toBeDefined();
    expect(model.calls[2]!.messages.at(-1)).toBe(w);
    expect(JSON.stringify(w.content)).toContain("<system-reminder>");
    expect(JSON.stringify(w.content)).toContain("850 of its 1000");
    // once per run: not repeated on the call after
    expect(warningIn(model.calls[3]!.messages)).toBeUndefined();
    expect(warningIn(out.messages)).toBeUndefined();
    expect(out.messages.filter(HumanMessage.isInstance)).toHaveLength(1);
    expect(out.token_budget_used).toBe(950);
    expect(out.stop_reason).toBeNull();
    expect(executed).toEqual(turns.map((t) => (t.tool_calls![0]!.args as { cmd: string }).cmd));
  });

  it("stops at 100%: tool calls stripped (also additional_kwargs), [TOKEN BUDGET EXCEEDED], stop_reason token_capped, tools not executed", async () => {
    const { model, agent, executed } = setup([tokenBudgetMiddleware({ maxTokens: 1000 })]);
    const first = toolTurn(600);
    const capped = toolTurn(500);
    model.respond(first).respond(capped);
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("cap"))) as unknown as BudgetState;
    expect(model.callCount).toBe(2);
    expect(executed).toEqual([(first.tool_calls![0]!.args as { cmd: string }).cmd]);
    const last = out.messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(last.id).toBe(capped.id); // replaced in place, by id
    expect((last as AIMessage).tool_calls ?? []).toHaveLength(0);
    expect((last.additional_kwargs as Record<string, unknown>).tool_calls).toBeUndefined();
    expect(String(last.content)).toContain(TOKEN_BUDGET_EXCEEDED);
    expect(String(last.content)).toContain("step");
    expect(out.messages.filter((m) => m.id === capped.id)).toHaveLength(1);
    expect(out.stop_reason).toBe(TOKEN_CAPPED);
    expect(out.token_budget_used).toBe(1100);

    // the next run starts with a fresh budget and no stop reason
    model.respond(finalTurn(10));
    const next = (await agent.invoke({ messages: [new HumanMessage("continue")] }, cfg("cap"))) as unknown as BudgetState;
    expect(next.stop_reason).toBeNull();
    expect(next.token_budget_used).toBe(10);
  });

  it("a final answer over budget ends the run normally (not marked capped)", async () => {
    const { model, agent } = setup([tokenBudgetMiddleware({ maxTokens: 100 })]);
    model.respond(finalTurn(500));
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("final"))) as unknown as BudgetState;
    expect(out.stop_reason).toBeNull();
    expect(String(out.messages.at(-1)!.content)).toBe("final answer");
  });

  it("shares stop_reason with LoopDetection in one agent (DeerFlow order: LoopDetection, TokenBudget)", async () => {
    const { model, agent, executed } = setup([loopDetectionMiddleware(), tokenBudgetMiddleware({ maxTokens: 1000 })]);
    model.respond(toolTurn(400)).respond(toolTurn(700));
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("both"))) as unknown as BudgetState;
    expect(out.stop_reason).toBe(TOKEN_CAPPED);
    expect(executed).toHaveLength(1);
    expect((out.messages.at(-1) as AIMessage).tool_calls ?? []).toHaveLength(0);
  });

  it("default budget is 200 000 tokens", async () => {
    const { model, agent } = setup([tokenBudgetMiddleware()]);
    model.respond(toolTurn(150_000)).respond(toolTurn(49_999)).respond(toolTurn(1));
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("default"))) as unknown as BudgetState;
    expect(model.callCount).toBe(3);
    expect(out.stop_reason).toBe(TOKEN_CAPPED);
    expect(warningIn(model.calls[1]!.messages)).toBeUndefined(); // 150 000 = 75%: no warning yet
    expect(warningIn(model.calls[2]!.messages)).toBeDefined(); // 199 999 ≥ 80%: warned; then 200 000 = 100%: capped
  });

  it("rejects a non-positive budget", () => {
    expect(() => tokenBudgetMiddleware({ maxTokens: 0 })).toThrow(RangeError);
  });

  it("with a real non-streaming ChatOpenAI: provider usage drives the cap", async () => {
    const server = await startTestModelServer([
      { toolCalls: [{ name: "run", args: { cmd: "a" } }], usage: { prompt_tokens: 500, completion_tokens: 20 } },
      { content: "more", toolCalls: [{ name: "run", args: { cmd: "b" } }], usage: { prompt_tokens: 600, completion_tokens: 20 } },
    ]);
    try {
      const chat = new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });
      const executed: string[] = [];
      const run = tool(
        async ({ cmd }: { cmd: string }) => {
          executed.push(cmd);
          return `ran ${cmd}`;
        },
        { name: "run", description: "run", schema: z.object({ cmd: z.string() }) },
      );
      const agent = createAgent({ model: chat, tools: [run], middleware: [tokenBudgetMiddleware({ maxTokens: 1000 })] });
      const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as BudgetState;
      expect(server.requests).toHaveLength(2);
      expect(executed).toEqual(["a"]);
      expect(out.stop_reason).toBe(TOKEN_CAPPED);
      expect(out.token_budget_used).toBe(1140);
      const last = out.messages.at(-1) as AIMessage;
      expect(last.tool_calls ?? []).toHaveLength(0);
      expect((last.additional_kwargs as Record<string, unknown>).tool_calls).toBeUndefined();
      expect(String(last.content)).toContain(TOKEN_BUDGET_EXCEEDED);
    } finally {
      await server.close();
    }
  });
});
