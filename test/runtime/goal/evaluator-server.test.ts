// evaluateGoal against the REAL loopback OpenAI test server with a real, NON-streaming ChatOpenAI.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GOAL_EVALUATOR_PROMPT_PREFIX, evaluateGoal } from "../../../src/runtime/goal/evaluator.js";
import { continuationMessage, newGoalState } from "../../../src/runtime/goal/goal-decision.js";
import { startTestModelServer, type TestModelServer } from "../../support/openai-server.js";

let server: TestModelServer;
beforeEach(async () => {
  server = await startTestModelServer();
});
afterEach(async () => {
  await server.close();
});

const model = () => new ChatOpenAI({ model: "test-model", apiKey: "k", configuration: { baseURL: server.url }, useResponsesApi: false, streaming: false, maxRetries: 0 });

function conversation() {
  const goal = newGoalState("add a hello.txt file containing hi");
  return [
    new HumanMessage({ content: "<system-reminder>SECRET-DATE-REMINDER</system-reminder>", additional_kwargs: { deerflow_hidden: "dynamic_context" } }),
    new HumanMessage("add a hello.txt file containing hi"),
    new AIMessage({ content: "Writing it.", tool_calls: [{ id: "c1", name: "write_file", args: { path: "hello.txt", content: "hi" } }] }),
    new ToolMessage({ content: "wrote hello.txt (2 bytes)", tool_call_id: "c1", name: "write_file" }),
    continuationMessage(goal, { satisfied: false, blocker: "missing_evidence", reason: "CONTINUATION-REASON" }),
    new AIMessage({ content: "", tool_calls: [{ id: "c2", name: "bash", args: { command: "cat hello.txt" } }] }),
    new ToolMessage({ content: "hi", tool_call_id: "c2", name: "bash" }),
    new AIMessage("hello.txt exists and contains `hi` (see the cat output)."),
  ];
}

function bodyText(body: any): string {
  return (body.messages as { content: unknown }[]).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("evaluateGoal over HTTP", () => {
  it("sends the objective and the visible conversation, not hidden messages; parses the verdict", async () => {
    server.setScript((req) => {
      const first = req.body.messages[0];
      if (first.role === "system" && String(first.content).startsWith(GOAL_EVALUATOR_PROMPT_PREFIX)) {
        return { content: "```json\n" + JSON.stringify({ satisfied: true, blocker: "none", reason: "cat shows hi", evidence_summary: "bash cat output", relied_on_assumption: false }) + "\n```" };
      }
      return { status: 400, error: "not an evaluator request" };
    });
    const v = await evaluateGoal({ model: model(), objective: "add a hello.txt file containing hi", messages: conversation(), unattended: true });
    expect(v).toEqual({ satisfied: true, blocker: "none", reason: "cat shows hi", evidence_summary: "bash cat output", relied_on_assumption: false });

    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body;
    expect(body.stream).not.toBe(true);
    const text = bodyText(body);
    expect(text).toContain("add a hello.txt file containing hi");
    expect(text).toContain("tool result [write_file]: wrote hello.txt (2 bytes)");
    expect(text).toContain('tool call bash({"command":"cat hello.txt"})');
    expect(text).toContain("hello.txt exists and contains `hi`");
    expect(text).not.toContain("SECRET-DATE-REMINDER");
    expect(text).not.toContain("CONTINUATION-REASON");
    expect(body.tools).toBeUndefined();
  });

  it("prose instead of JSON → missing_evidence", async () => {
    server.push({ content: "Looks good to me!" });
    const v = await evaluateGoal({ model: model(), objective: "x", messages: conversation() });
    expect(v).toMatchObject({ satisfied: false, blocker: "missing_evidence" });
    expect(v.reason).toMatch(/could not be parsed/);
  });

  it("an HTTP 500 → missing_evidence, never throws", async () => {
    server.push({ status: 500, error: "upstream exploded" });
    const v = await evaluateGoal({ model: model(), objective: "x", messages: conversation() });
    expect(v.satisfied).toBe(false);
    expect(v.blocker).toBe("missing_evidence");
    expect(v.reason).toMatch(/^the evaluator call failed: /);
  });
});
