// PiiRedaction through createDeerflowAgent's `piiRedaction` option (fake model): the model receives placeholders,
// its placeholders come back as the real values in the stored answer and in the tool call the tool receives; the
// summary side call is masked too and the stored summary is restored; a full `middleware` takeover with
// piiRedaction is refused with a clear error.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { fakeModel, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDeerflowAgent } from "../../src/agent/create-deerflow-agent.js";
import { compactMessages } from "../../src/middleware/summarization.js";
import { MemoryArchive } from "../../src/persistence/message-archive.js";
import { contentText } from "../../src/vocabulary/message-text.js";

const EMAIL = "ann@example.org";

describe("piiRedaction in createDeerflowAgent", () => {
  it("masks the request, restores the answer and the tool call", async () => {
    const got: string[] = [];
    const send = tool(async ({ to }: { to: string }) => (got.push(to), `sent to ${to}`), { name: "send", description: "send", schema: z.object({ to: z.string() }) });
    const model = fakeModel();
    model.respond((msgs: BaseMessage[]) => {
      const p = /\[EMAIL_[0-9a-f]{8}\]/.exec(contentText(msgs.at(-1)!.content))![0];
      return new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "send", args: { to: p } }] });
    });
    model.respond((msgs: BaseMessage[]) => new AIMessage({ id: "a2", content: `done: ${/\[EMAIL_[0-9a-f]{8}\]/.exec(contentText(msgs.at(-1)!.content))![0]}` }));
    const agent: any = createDeerflowAgent(model, [send], { features: { sandbox: false }, piiRedaction: true, checkpointer: new MemorySaver() });
    const cfg = { configurable: { thread_id: "t" } };
    await agent.invoke({ messages: [new HumanMessage(`mail ${EMAIL} please`)] }, cfg);
    for (const c of model.calls) expect(JSON.stringify(c.messages)).not.toContain(EMAIL);
    expect(got).toEqual([EMAIL]);
    const state = (await agent.getState(cfg)).values as { messages: BaseMessage[] };
    expect(contentText(state.messages[0]!.content)).toBe(`mail ${EMAIL} please`);
    expect(contentText(state.messages.filter(ToolMessage.isInstance)[0]!.content)).toBe(`sent to ${EMAIL}`);
    expect(contentText(state.messages.at(-1)!.content)).toBe(`done: ${EMAIL}`);
  });

  it("the summary side call is masked and the summary stored with the real value", async () => {
    const side = fakeModel().respond((msgs: BaseMessage[]) => new AIMessage(`The user wrote to ${/\[EMAIL_[0-9a-f]{8}\]/.exec(contentText(msgs[1]!.content))![0]}.`));
    const messages = Array.from({ length: 12 }, (_, i) =>
      i % 2 ? new AIMessage({ id: `a${i}`, content: "ok ".repeat(300) }) : new HumanMessage({ id: `h${i}`, content: `turn ${i}: write ${EMAIL}` }),
    );
    const done = await compactMessages(
      { model: side, contextWindow: 2000, keepRecentTokens: 300, archive: new MemoryArchive(), piiRedaction: true },
      { messages, summary: null, history: null, threadId: "t", checkpointId: null },
    );
    expect(JSON.stringify(side.calls)).not.toContain(EMAIL);
    expect(done!.update.summary_text).toBe(`The user wrote to ${EMAIL}.`);
  });

  it("a full middleware takeover with piiRedaction is refused, saying what to do", () => {
    expect(() => createDeerflowAgent(fakeModel(), [], { middleware: [], piiRedaction: true })).toThrow(/put piiRedactionMiddleware\(\) last/);
  });
});
