// An interrupted run keeps what happened (issue 27, part 6): the streamed part of the answer, finished tool results,
// an "interrupted" result for a call that never returned, and one note for the model. In-process (ChatSession: what
// the TUI runs on) against the loopback model, real SQLite, in both checkpoint modes.
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { beforeEach, describe, expect, it } from "vitest";
import { type ChatSession, createChatSession } from "../../src/runtime/chat-session.js";
import type { RunEvent } from "../../src/runtime/events.js";
import { ThreadRuntime } from "../../src/runtime/thread-runtime.js";
import { interruptedAnswerText, interruptedUpdate } from "../../src/runtime/interrupted-turn.js";
import { isInterruptedMessage } from "../../src/vocabulary/message-markers.js";
import { messageText } from "../../src/vocabulary/message-text.js";
import type { RecordedRequest, TestModelServer } from "../support/openai-server.js";
import { useInProcessModel } from "../support/in-process.js";
import { partialAnswer } from "../support/partial-stream.js";
import { until } from "../support/wait.js";

const env = useInProcessModel("deerflow-interrupted-turn-");
let server: TestModelServer;
let home: string;
let cwd: string;
beforeEach(() => ({ server, home, cwd } = env()));

const session = (): ChatSession => createChatSession({ home, model: "test-model", cwd });
const quiet = () => new AbortController().signal;

/** The request's conversation as role: text lines (the system prompt and dated reminders left out). */
function conversation(req: RecordedRequest): string[] {
  return (req.body.messages as { role: string; content: unknown; tool_calls?: { function: { name: string } }[] }[])
    .filter((m) => m.role !== "system")
    .map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")}${m.tool_calls ? ` [calls ${m.tool_calls.map((c) => c.function.name).join(",")}]` : ""}`)
    .filter((line) => !line.startsWith("user: <system-reminder>"));
}

const streamedText = (events: RunEvent[]) => events.map((e) => (e.type === "message.delta" ? e.text : "")).join("");

/** Sends `prompt`, aborts once `ready(events)` holds, and returns the interrupted error. */
async function interrupt(s: ChatSession, prompt: string, ready: (events: RunEvent[]) => boolean): Promise<{ exitCode?: number; message?: string }> {
  const ac = new AbortController();
  const events: RunEvent[] = [];
  const pending = s.send({ prompt }, (e) => events.push(e), ac.signal);
  await until(() => ready(events), "the run to reach the point of interruption");
  ac.abort();
  return pending.then(
    () => ({}),
    (e: { exitCode?: number; message?: string }) => e,
  );
}

describe.each(["full", "delta"] as const)("an interrupted run (%s checkpoints)", (mode) => {
  beforeEach(() => {
    process.env.DEERFLOW_CHECKPOINT_MODE = mode;
  });

  it("keeps the streamed part of the answer, marked interrupted; the next request tells the model once", async () => {
    server.setScript([partialAnswer("Step one is done. Now I will refactor the parser"), { content: "Understood, stopping there." }]);
    const s = session();
    const err = await interrupt(s, "refactor it", (ev) => /Now I/.test(streamedText(ev)));
    expect(err.exitCode).toBe(130);
    const threadId = s.threadId!;

    // Kept across the process's store being closed and opened again.
    await ThreadRuntime.closeAll();
    const view = await session().resume({ threadId });
    expect(view.entries.map((e) => [e.kind, e.kind === "assistant" || e.kind === "user" ? e.text : "", "interrupted" in e ? e.interrupted : undefined])).toEqual([
      ["user", "refactor it", undefined],
      ["assistant", expect.stringMatching(/^Step one is done\. Now I[a-z ]*$/), true],
    ]);

    const again = session();
    await again.resume({ threadId });
    await again.send({ prompt: "stop, just summarize" }, () => {}, quiet());
    const sent = conversation(server.requests[1]!);
    expect(sent).toEqual(["user: refactor it", expect.stringMatching(/^assistant: Step one is done\. Now I[a-z ]*\n\n\[Interrupted by the user\.\]$/), "user: stop, just summarize"]);
  });

  it("interrupted before any text: one note between the two user messages", async () => {
    server.setScript([{ hang: true }, { content: "Fine." }]);
    const s = session();
    const err = await interrupt(s, "first", () => server.requests.length === 1);
    expect(err.exitCode).toBe(130);
    await s.send({ prompt: "second" }, () => {}, quiet());
    expect(conversation(server.requests[1]!)).toEqual(["user: first", "assistant: [Interrupted by the user.]", "user: second"]);
  });

  it("a tool call that finished keeps its result; one that did not gets an interrupted result", async () => {
    server.setScript([
      {
        content: "Running both.",
        toolCalls: [
          { id: "fast", name: "bash", args: { command: "echo quick-result" } },
          { id: "slow", name: "bash", args: { command: "sleep 120; echo never" } },
        ],
      },
      { content: "Noted." },
    ]);
    const s = session();
    const err = await interrupt(s, "run them", (ev) => ev.some((e) => e.type === "tool.completed" && e.tool_call_id === "fast"));
    expect(err.exitCode).toBe(130);
    const threadId = s.threadId!;
    await ThreadRuntime.closeAll();

    const view = await session().resume({ threadId });
    const tools = view.entries.filter((e) => e.kind === "tool");
    expect(tools.map((t) => [t.id, t.status, t.output.trim().slice(0, 40), t.interrupted ?? false])).toEqual([
      ["fast", "ok", "quick-result", false],
      ["slow", "error", "[Interrupted by the user before this too", true],
    ]);
    expect(view.entries.at(-1)).toMatchObject({ kind: "assistant", text: "", interrupted: true });

    const again = session();
    await again.resume({ threadId });
    await again.send({ prompt: "what happened?" }, () => {}, quiet());
    const sent = conversation(server.requests[1]!);
    expect(sent).toEqual([
      "user: run them",
      "assistant: Running both. [calls bash,bash]",
      expect.stringMatching(/^tool: .*quick-result/s),
      expect.stringMatching(/^tool: \[Interrupted by the user before this tool call returned a result\.\]/),
      "assistant: [Interrupted by the user.]",
      "user: what happened?",
    ]);
  });
});

describe("interruptedUpdate (what is written after an interrupt)", () => {
  const user = new HumanMessage({ id: "u1", content: "do it" });
  const calls = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [
      { id: "c1", name: "bash", args: {} },
      { id: "c2", name: "bash", args: {} },
    ],
  });
  const result = (id: string) => new ToolMessage({ id: `t-${id}`, tool_call_id: id, name: "bash", content: "ok" });

  it("nothing when the thread ends with a finished answer and nothing streamed after it", () => {
    expect(interruptedUpdate([user, new AIMessage({ id: "a2", content: "Done." })], "", "run-1")).toBeUndefined();
    expect(interruptedUpdate([], "", "run-1")).toBeUndefined();
  });

  it("appends the cut call's interrupted result and the note; a misplaced result rewrites the list in order", () => {
    const appended = interruptedUpdate([user, calls, result("c1")], "", "run-1")!.messages;
    expect(appended.map((m) => [m.getType(), messageText(m).slice(0, 26), isInterruptedMessage(m)])).toEqual([
      ["tool", "[Interrupted by the user b", true],
      ["ai", "[Interrupted by the user.]", true],
    ]);
    const rewritten = interruptedUpdate([user, calls, new HumanMessage({ id: "u2", content: "late" }), result("c2")], "half", "run-1")!.messages;
    expect(rewritten[0]).toBeInstanceOf(RemoveMessage);
    expect(rewritten.slice(1).map((m) => m.id)).toEqual(["u1", "a1", "t-c2", "dangling-a1-c1", "u2", "interrupted-run-1"]);
    expect(interruptedAnswerText(rewritten.at(-1)!)).toBe("half");
  });
});
