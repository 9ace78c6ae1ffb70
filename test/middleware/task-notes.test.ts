// TaskNotes in createAgent with a fake model: write_notes replaces or appends `task_notes`, a write over the limit is
// refused and changes nothing, and the notes reach the model as a reminder only once the call that wrote them is no
// longer in the request (here: a new thread state without it, as after compaction).
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { MAX_NOTES_CHARS, WRITE_NOTES, taskNotesMiddleware } from "../../src/middleware/task-notes.js";
import { contentText } from "../../src/vocabulary/message-text.js";

const call = (id: string, args: Record<string, unknown>) => new AIMessage({ id: `ai-${id}`, content: "", tool_calls: [{ id, name: WRITE_NOTES, args, type: "tool_call" as const }] });

describe("TaskNotes", () => {
  it("replace, append, refuse an oversized write, and remind once the call is gone", async () => {
    const model = fakeModel();
    model.respond(call("c1", { notes: "found: the parser drops CRLF" }));
    model.respond(call("c2", { notes: "next: add a test", mode: "append" }));
    model.respond(call("c3", { notes: "x".repeat(MAX_NOTES_CHARS + 1) }));
    model.respond(new AIMessage({ id: "ai-4", content: "ok" }));
    model.respond(new AIMessage({ id: "ai-5", content: "again" }));
    const agent: any = createAgent({ model, tools: [], middleware: [taskNotesMiddleware()], checkpointer: new MemorySaver() });
    const cfg = { configurable: { thread_id: "t" } };
    await agent.invoke({ messages: [new HumanMessage("work")] }, cfg);
    const state = (await agent.getState(cfg)).values as { messages: BaseMessage[]; task_notes: { text: string; updated_at: string } };
    expect(state.task_notes.text).toBe("found: the parser drops CRLF\nnext: add a test");
    const results = state.messages.filter(ToolMessage.isInstance).map((m) => contentText(m.content));
    expect(results[0]).toBe("Notes saved (28 characters).");
    expect(results[2]).toMatch(/over the limit of 8000.*The notes were not changed\./);
    // While the last write_notes (an append) is in the request, the whole notes still come as a reminder
    // (the model only sees the appended part in the call).
    const reminders = (msgs: BaseMessage[]) => msgs.filter((m) => contentText(m.content).includes("Your working notes"));
    expect(reminders(model.calls[2]!.messages)).toHaveLength(1);

    // Right after a replace, the call itself shows the notes: no reminder.
    expect(reminders(model.calls[1]!.messages)).toHaveLength(0);

    // As after compaction (or a resumed thread whose calls were summarized): notes in state, no call in messages.
    const later = fakeModel().respond(new AIMessage({ id: "z", content: "z" }));
    const resumed: any = createAgent({ model: later, tools: [], middleware: [taskNotesMiddleware()], checkpointer: new MemorySaver() });
    await resumed.invoke({ messages: [new HumanMessage("continue")], task_notes: state.task_notes }, { configurable: { thread_id: "t2" } });
    const sent = later.calls[0]!.messages;
    expect(reminders(sent)).toHaveLength(1);
    expect(contentText(sent.at(-1)!.content)).toBe("<system-reminder>\nYour working notes for this task (kept with write_notes):\nfound: the parser drops CRLF\nnext: add a test\n</system-reminder>");
    // Request-only: the thread never stores the reminder.
    const after = (await resumed.getState({ configurable: { thread_id: "t2" } })).values as { messages: BaseMessage[] };
    expect(reminders(after.messages)).toHaveLength(0);
  });
});
