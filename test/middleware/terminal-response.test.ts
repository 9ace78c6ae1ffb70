import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createAgent, fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DeerflowError, ExitCode, findDeerflowError } from "../../src/errors.js";
import { EMPTY_ANSWER_HINT, EMPTY_ANSWER_MESSAGE, isEmptyFinalAnswer, terminalResponseMiddleware } from "../../src/middleware/terminal-response.js";

type Out = { messages: BaseMessage[] };

let executed: string[] = [];
const bash = tool(
  async ({ command }: { command: string }) => {
    executed.push(command);
    return `ran ${command}`;
  },
  { name: "bash", description: "run", schema: z.object({ command: z.string() }) },
);

function agentFor(model: ReturnType<typeof fakeModel>, opts: Parameters<typeof terminalResponseMiddleware>[0] = {}) {
  return createAgent({ model, tools: [bash], middleware: [terminalResponseMiddleware(opts)] });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("TerminalResponse", () => {
  it("an empty final answer is retried once with the same request; the empty one never reaches the thread", async () => {
    const model = fakeModel()
      .respond(new AIMessage({ id: "e1", content: "  \n" }))
      .respond(new AIMessage({ id: "ok", content: "Here it is." }));
    const retries: number[] = [];
    const out = (await agentFor(model, { onRetry: (a) => retries.push(a) }).invoke({ messages: [new HumanMessage("hi")] })) as unknown as Out;
    expect(model.callCount).toBe(2);
    expect(retries).toEqual([1]);
    expect(model.calls[1]!.messages.map((m) => m.content)).toEqual(model.calls[0]!.messages.map((m) => m.content));
    expect(out.messages.map((m) => m.content)).toEqual(["hi", "Here it is."]);
  });

  it("empty twice → DeerflowError with a hint (exit code runtime)", async () => {
    const model = fakeModel()
      .respond(new AIMessage(""))
      .respond(new AIMessage({ content: [{ type: "text", text: " " }] }));
    const err = findDeerflowError(await failure(agentFor(model).invoke({ messages: [new HumanMessage("hi")] })));
    expect(err).toBeInstanceOf(DeerflowError);
    expect(err!.message).toBe(EMPTY_ANSWER_MESSAGE);
    expect(err!.hint).toBe(EMPTY_ANSWER_HINT);
    expect(err!.exitCode).toBe(ExitCode.runtime);
    expect(model.callCount).toBe(2);
  });

  it("a tool-calling turn with no text is not empty; a non-empty answer passes straight through", async () => {
    executed = [];
    const model = fakeModel()
      .respond(new AIMessage({ content: "", tool_calls: [{ name: "bash", args: { command: "ls" }, id: "c1", type: "tool_call" }] }))
      .respond(new AIMessage("done"));
    const out = (await agentFor(model).invoke({ messages: [new HumanMessage("hi")] })) as unknown as Out;
    expect(executed).toEqual(["ls"]);
    expect(model.callCount).toBe(2);
    expect(out.messages.at(-1)!.content).toBe("done");
  });

  it("an empty answer stopped by length or the content filter is not retried (the finish-reason guards explain it)", async () => {
    const model = fakeModel().respond(new AIMessage({ content: "", response_metadata: { finish_reason: "content_filter" } }));
    await agentFor(model).invoke({ messages: [new HumanMessage("hi")] });
    expect(model.callCount).toBe(1);
  });

  it("isEmptyFinalAnswer: reasoning-only content counts as empty; text blocks count as text", () => {
    expect(isEmptyFinalAnswer(new AIMessage({ content: [{ type: "reasoning", reasoning: "hmm" }] as never }))).toBe(true);
    expect(isEmptyFinalAnswer(new AIMessage({ content: [{ type: "text", text: "x" }] }))).toBe(false);
    expect(isEmptyFinalAnswer(new AIMessage({ content: "", invalid_tool_calls: [{ name: "bash", args: "{", id: "i", error: "bad", type: "invalid_tool_call" }] }))).toBe(false);
    expect(isEmptyFinalAnswer(new AIMessage({ content: "", response_metadata: { finish_reason: "length" } }))).toBe(false);
  });
});
