import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ASK_CLARIFICATION, CLARIFICATION_MARKER, findPendingClarification } from "../../src/vocabulary/message-markers.js";
import { UNATTENDED_ANSWER, clarificationMiddleware, formatClarification } from "../../src/middleware/clarification.js";

const question = {
  question: "Which database should the service use?",
  clarification_type: "approach_choice",
  context: "Both are configured in docker-compose.yml.",
  options: ["PostgreSQL", "SQLite"],
};

const ask = (id: string, args: Record<string, unknown> = question, extra: { name: string; args: Record<string, unknown> }[] = []) =>
  new AIMessage({
    id,
    content: "",
    tool_calls: [{ id: `${id}-ask`, name: ASK_CLARIFICATION, args, type: "tool_call" }, ...extra.map((c, i) => ({ ...c, id: `${id}-x${i}`, type: "tool_call" as const }))],
  });

const bashRuns: string[] = [];
const bash = tool(
  async ({ command }: { command: string }) => {
    bashRuns.push(command);
    return `ran ${command}`;
  },
  { name: "bash", description: "bash", schema: z.object({ command: z.string() }) },
);

function setup(model: ReturnType<typeof fakeModel>, opts: Parameters<typeof clarificationMiddleware>[0] = {}) {
  const log: string[] = [];
  const seenTools: string[][] = [];
  const outer = createMiddleware({ name: "Outer", afterAgent: () => void log.push("Outer.afterAgent") });
  // only to observe what the model is offered (placed after Clarification for the test's sake)
  const spy = createMiddleware({
    name: "ToolSpy",
    wrapModelCall: (req, handler) => {
      seenTools.push(req.tools.map((t) => String((t as { name?: unknown }).name)));
      return handler(req);
    },
  });
  const agent = createAgent({ model, tools: [bash], middleware: [outer, clarificationMiddleware(opts), spy], checkpointer: new MemorySaver() });
  return { agent, log, seenTools };
}

describe("Clarification", () => {
  it("attended: the question becomes the last ToolMessage, the run ends, the model is called exactly once", async () => {
    const model = fakeModel()
      .respond(ask("a1"))
      .respond(new AIMessage({ id: "a2", content: "must not happen" }));
    const { agent, log, seenTools } = setup(model);
    const config = { configurable: { thread_id: "clar-1" } };
    const out = await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "set up the db" })] }, config);
    expect(model.callCount).toBe(1);
    const last = out.messages.at(-1)!;
    expect(ToolMessage.isInstance(last)).toBe(true);
    const tm = last as ToolMessage;
    expect(tm.name).toBe(ASK_CLARIFICATION);
    expect(tm.tool_call_id).toBe("a1-ask");
    expect(tm.content).toBe("Which database should the service use?\n\nContext: Both are configured in docker-compose.yml.\n\nOptions:\n  1. PostgreSQL\n  2. SQLite");
    expect(tm.additional_kwargs[CLARIFICATION_MARKER]).toEqual(question);
    expect(findPendingClarification(out.messages)).toEqual(question);
    // the run ends through the graph's exit: every afterAgent hook runs (the seed's Command(goto=END))
    expect(log).toEqual(["Outer.afterAgent"]);
    // attended runs offer the tool
    expect(seenTools[0]).toContain(ASK_CLARIFICATION);
    // and the state is checkpointed
    const snap = await agent.graph.getState(config);
    expect(findPendingClarification((snap.values as { messages: BaseMessage[] }).messages)).toEqual(question);
  });

  it("the answer arrives as a new run on the same thread and the model sees the whole history", async () => {
    const model = fakeModel()
      .respond(ask("a1"))
      .respond(new AIMessage({ id: "a2", content: "Using SQLite." }));
    const { agent } = setup(model);
    const config = { configurable: { thread_id: "clar-2" } };
    await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "set up the db" })] }, config);
    const out = await agent.invoke({ messages: [new HumanMessage({ id: "h2", content: "SQLite" })] }, config);
    expect(model.callCount).toBe(2);
    expect(model.calls[1]!.messages.map((m) => m.id)).toEqual(["h1", "a1", out.messages[2]!.id, "h2"]);
    expect(out.messages.at(-1)!.content).toBe("Using SQLite.");
    expect(findPendingClarification(out.messages)).toBeNull();
  });

  it("unattended (configurable.deerflow_unattended): answers 'proceed…', the run continues, the tool is not offered", async () => {
    const model = fakeModel()
      .respond(ask("a1"))
      .respond(new AIMessage({ id: "a2", content: "Assuming PostgreSQL." }));
    const { agent, seenTools } = setup(model);
    const out = await agent.invoke({ messages: [new HumanMessage("set up the db")] }, { configurable: { thread_id: "clar-3", deerflow_unattended: true } });
    expect(model.callCount).toBe(2);
    const tm = out.messages.find(ToolMessage.isInstance)!;
    expect(tm.content).toBe(UNATTENDED_ANSWER);
    expect(tm.content).toContain("proceed with your best judgment and state your assumptions");
    expect(tm.additional_kwargs[CLARIFICATION_MARKER]).toBeUndefined();
    expect(out.messages.at(-1)!.content).toBe("Assuming PostgreSQL.");
    expect(findPendingClarification(out.messages)).toBeNull();
    expect(seenTools.every((names) => !names.includes(ASK_CLARIFICATION) && names.includes("bash"))).toBe(true);
  });

  it("unattended can be a boolean or a function of the run's config", async () => {
    for (const unattended of [true, (c: { configurable?: Record<string, unknown> }) => c.configurable?.ci === "yes"]) {
      const model = fakeModel().respond(ask("a1")).respond(new AIMessage("went ahead"));
      const { agent } = setup(model, { unattended });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: `clar-4-${typeof unattended}`, ci: "yes" } });
      expect(model.callCount).toBe(2);
      expect(out.messages.find(ToolMessage.isInstance)!.content).toBe(UNATTENDED_ANSWER);
    }
    const model = fakeModel().respond(ask("a1")).respond(new AIMessage("never"));
    const { agent } = setup(model, { unattended: false });
    await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "clar-4-false", deerflow_unattended: true } });
    expect(model.callCount).toBe(1);
  });

  it("a question asked with parallel tool calls: only the question is kept, the run ends through afterAgent, in either order", async () => {
    for (const [i, order] of (["ask-first", "ask-last"] as const).entries()) {
      bashRuns.length = 0;
      const msg =
        order === "ask-first"
          ? ask(`p${i}`, question, [{ name: "bash", args: { command: "ls" } }])
          : new AIMessage({
              id: `p${i}`,
              content: "",
              tool_calls: [
                { id: `p${i}-x`, name: "bash", args: { command: "ls" }, type: "tool_call" },
                { id: `p${i}-ask`, name: ASK_CLARIFICATION, args: question, type: "tool_call" },
              ],
            });
      const model = fakeModel().respond(msg).respond(new AIMessage("must not happen"));
      const { agent, log } = setup(model);
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: `clar-5-${order}` } });
      expect(model.callCount).toBe(1);
      // the question is the turn's only call: the other one is dropped with a note, not run
      expect(bashRuns).toEqual([]);
      const asked = out.messages.find((m) => AIMessage.isInstance(m) && m.id === `p${i}`) as AIMessage;
      expect(asked.tool_calls!.map((c) => c.name)).toEqual([ASK_CLARIFICATION]);
      expect(JSON.stringify(asked.content)).toContain("other tool calls of this turn were not run");
      expect(findPendingClarification(out.messages)).toEqual(question);
      expect(log).toEqual(["Outer.afterAgent"]);
    }
  });

  it("invalid arguments → an error ToolMessage and the run continues", async () => {
    const model = fakeModel()
      .respond(ask("a1", { question: "Which one?", clarification_type: "whatever" }))
      .respond(new AIMessage("ok, I'll decide"));
    const { agent } = setup(model);
    const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "clar-6" } });
    expect(model.callCount).toBe(2);
    const tm = out.messages.find(ToolMessage.isInstance)!;
    expect(tm.status).toBe("error");
    expect(String(tm.content)).toMatch(/^Error: Tool 'ask_clarification' failed with ValidationError: clarification_type: /);
    expect(findPendingClarification(out.messages)).toBeNull();
  });
});

describe("findPendingClarification / formatClarification", () => {
  const marked = (callId: string) =>
    new ToolMessage({ tool_call_id: callId, name: ASK_CLARIFICATION, content: "q?", additional_kwargs: { [CLARIFICATION_MARKER]: { question: "q?", clarification_type: "missing_info" } } });

  it("finds the question only while it is unanswered", () => {
    const aiMsg = ask("a1", { question: "q?", clarification_type: "missing_info" });
    expect(findPendingClarification([new HumanMessage("x"), aiMsg, marked("a1-ask")])).toEqual({ question: "q?", clarification_type: "missing_info" });
    expect(findPendingClarification([aiMsg, marked("a1-ask"), new HumanMessage("answer")])).toBeNull();
    expect(findPendingClarification([aiMsg, marked("a1-ask"), new AIMessage("later")])).toBeNull();
    expect(findPendingClarification([aiMsg, new ToolMessage({ tool_call_id: "a1-ask", content: UNATTENDED_ANSWER })])).toBeNull();
    expect(findPendingClarification([])).toBeNull();
    expect(findPendingClarification([marked("orphan")])).toBeNull(); // no AI message asked it
  });

  it("formats question, context and numbered options", () => {
    expect(formatClarification({ question: "Delete the branch?", clarification_type: "risk_confirmation" })).toBe("Delete the branch?");
    expect(formatClarification({ question: "Q", clarification_type: "suggestion", options: ["a"] })).toBe("Q\n\nOptions:\n  1. a");
  });
});
