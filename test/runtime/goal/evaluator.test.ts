import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { GOAL_EVALUATOR_PROMPT_PREFIX, buildEvaluationPrompt, evaluateGoal, parseVerdict, visibleConversation } from "../../../src/runtime/goal/evaluator.js";

const ok = { satisfied: true, blocker: "none", reason: "tests pass", evidence_summary: "vitest output: 3 passed", relied_on_assumption: false };

describe("parseVerdict", () => {
  it("reads a bare JSON object", () => {
    expect(parseVerdict(JSON.stringify(ok))).toEqual(ok);
  });

  it("reads JSON inside a ```json fence", () => {
    const text = "Here is my verdict:\n```json\n" + JSON.stringify({ ...ok, satisfied: false, blocker: "goal_not_met_yet" }, null, 2) + "\n```\n";
    const v = parseVerdict(text);
    expect(v.satisfied).toBe(false);
    expect(v.blocker).toBe("goal_not_met_yet");
    expect(v.reason).toBe("tests pass");
  });

  it("reads JSON with prose around it, braces inside strings included", () => {
    const text = `I looked at {the evidence}. Verdict: {"satisfied": false, "blocker": "missing_evidence", "reason": "no test output {shown}", "evidence_summary": "none"} — that's all.`;
    const v = parseVerdict(text);
    expect(v).toMatchObject({ satisfied: false, blocker: "missing_evidence", reason: "no test output {shown}", evidence_summary: "none" });
  });

  it("an invalid blocker → missing_evidence", () => {
    const v = parseVerdict(JSON.stringify({ ...ok, blocker: "almost_done" }));
    expect(v.satisfied).toBe(false);
    expect(v.blocker).toBe("missing_evidence");
    expect(v.reason).toMatch(/^the evaluator's answer could not be parsed: /);
    expect(v.reason).toContain("blocker");
  });

  it("missing fields → missing_evidence", () => {
    expect(parseVerdict(`{"satisfied": true}`)).toMatchObject({ satisfied: false, blocker: "missing_evidence" });
    expect(parseVerdict(`{"blocker": "none", "reason": "x"}`)).toMatchObject({ satisfied: false, blocker: "missing_evidence" });
    expect(parseVerdict(`{"satisfied": "true", "blocker": "none", "reason": "x"}`)).toMatchObject({ satisfied: false, blocker: "missing_evidence" });
  });

  it("non-JSON, empty, truncated JSON → missing_evidence", () => {
    for (const text of ["The goal is met!", "", "   ", `{"satisfied": true, "blocker": "none", "reason": "x"`, "[1,2]"]) {
      const v = parseVerdict(text);
      expect(v.satisfied, text).toBe(false);
      expect(v.blocker, text).toBe("missing_evidence");
      expect(v.reason, text).toMatch(/^the evaluator's answer could not be parsed: /);
    }
  });

  it("satisfied with a blocker other than none is not satisfied", () => {
    const v = parseVerdict(JSON.stringify({ ...ok, blocker: "external_wait", relied_on_assumption: true }));
    expect(v.satisfied).toBe(false);
    expect(v.blocker).toBe("external_wait");
    expect(v.relied_on_assumption).toBe(false);
  });

  it("not satisfied with blocker none becomes goal_not_met_yet", () => {
    expect(parseVerdict(JSON.stringify({ ...ok, satisfied: false }))).toMatchObject({ satisfied: false, blocker: "goal_not_met_yet" });
  });

  it("keeps relied_on_assumption on a satisfied verdict; defaults it to false", () => {
    expect(parseVerdict(JSON.stringify({ ...ok, relied_on_assumption: true })).relied_on_assumption).toBe(true);
    const { relied_on_assumption: _, ...noFlag } = ok;
    expect(parseVerdict(JSON.stringify(noFlag)).relied_on_assumption).toBe(false);
  });

  it("skips a non-verdict object before the verdict", () => {
    const text = `Config was {"a": 1}. Answer: {"satisfied": true, "blocker": "none", "reason": "done"}`;
    expect(parseVerdict(text)).toMatchObject({ satisfied: true, blocker: "none", reason: "done" });
  });
});

describe("visibleConversation", () => {
  it("drops hidden messages and system messages, renders roles, tool calls and results", () => {
    const messages = [
      new SystemMessage("you are an agent"),
      new HumanMessage({ content: "<system-reminder>today is 2024-01-01</system-reminder>", additional_kwargs: { deerflow_hidden: "dynamic_context" } }),
      new HumanMessage("create hello.txt"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "write_file", args: { path: "hello.txt", content: "hi" } }] }),
      new ToolMessage({ content: "wrote 2 bytes", tool_call_id: "c1", name: "write_file" }),
      new HumanMessage({ content: "<system-reminder>keep going</system-reminder>", additional_kwargs: { deerflow_hidden: "goal_continuation" } }),
      new AIMessage("Done: hello.txt created."),
    ];
    const text = visibleConversation(messages);
    expect(text).not.toContain("system-reminder");
    expect(text).not.toContain("you are an agent");
    expect(text).toContain("user: create hello.txt");
    expect(text).toContain('tool call write_file({"path":"hello.txt","content":"hi"})');
    expect(text).toContain("tool result [write_file]: wrote 2 bytes");
    expect(text).toContain("assistant: Done: hello.txt created.");
  });

  it("cuts long tool results to ~2000 chars keeping head and tail", () => {
    const long = "A".repeat(3000) + "TAIL-MARK";
    const text = visibleConversation([new ToolMessage({ content: "HEAD-MARK" + long, tool_call_id: "c", name: "bash" })]);
    expect(text.length).toBeLessThan(2200);
    expect(text).toContain("HEAD-MARK");
    expect(text).toContain("TAIL-MARK");
    expect(text).toMatch(/chars omitted/);
  });

  it("caps the whole transcript, keeping the end", () => {
    const messages = Array.from({ length: 100 }, (_, i) => new AIMessage(`message-${i} ` + "x".repeat(1000)));
    const text = visibleConversation(messages);
    expect(text.length).toBeLessThanOrEqual(60_100);
    expect(text).toContain("message-99 ");
    expect(text).not.toContain("message-0 ");
    expect(text).toMatch(/^\[… \d+ earlier message\(s\) omitted …\]/);
  });
});

describe("buildEvaluationPrompt", () => {
  it("starts with the marker and states the rules", () => {
    const p = buildEvaluationPrompt("make tests pass", [new HumanMessage("go")]);
    expect(p.system.startsWith(GOAL_EVALUATOR_PROMPT_PREFIX)).toBe(true);
    expect(GOAL_EVALUATOR_PROMPT_PREFIX).toBe("You are a strict goal evaluator");
    expect(p.system).toMatch(/NOT\s+evidence by themselves/);
    expect(p.system).toContain("missing_evidence|needs_user_input|run_failed|external_wait|goal_not_met_yet");
    expect(p.system).toContain("relied_on_assumption");
    expect(p.system).toContain("UNATTENDED");
    expect(p.user).toContain("make tests pass");
    expect(p.user).toContain("user: go");
    expect(p.messages).toHaveLength(2);
    expect(buildEvaluationPrompt("x", [], { unattended: false }).system).toContain("INTERACTIVE");
  });
});

describe("evaluateGoal with a fake model", () => {
  it("never throws on a model error; rethrows on abort", async () => {
    const failing = {
      invoke: async () => {
        throw new Error("boom\nstack");
      },
    };
    await expect(evaluateGoal({ model: failing, objective: "x", messages: [] })).resolves.toMatchObject({
      satisfied: false,
      blocker: "missing_evidence",
      reason: "the evaluator call failed: boom",
    });
    const ac = new AbortController();
    ac.abort();
    await expect(evaluateGoal({ model: failing, objective: "x", messages: [], signal: ac.signal })).rejects.toBeTruthy();
  });

  it("interactive runs do not accept an assumption: needs_user_input", async () => {
    const model = { invoke: async () => ({ content: JSON.stringify({ ...ok, relied_on_assumption: true }) }) };
    expect(await evaluateGoal({ model, objective: "x", messages: [], unattended: true })).toMatchObject({ satisfied: true, relied_on_assumption: true });
    expect(await evaluateGoal({ model, objective: "x", messages: [], unattended: false })).toMatchObject({
      satisfied: false,
      blocker: "needs_user_input",
    });
  });
});
