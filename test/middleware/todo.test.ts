import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { WRITE_TODOS, formatTodos, todoMiddleware, todosProblem, writeTodosTool } from "../../src/middleware/todo.js";
import type { Todo } from "../../src/state/types.js";

let seq = 0;
/** A fake model playing `turns` in order: a list of write_todos argument objects (one call each), or a final text. */
function scripted(turns: (unknown[] | string)[]) {
  const model = fakeModel();
  for (const turn of turns) {
    const n = ++seq;
    model.respond(
      typeof turn === "string"
        ? new AIMessage({ id: `ai-${n}`, content: turn })
        : new AIMessage({
            id: `ai-${n}`,
            content: "",
            tool_calls: turn.map((args, i) => ({ name: WRITE_TODOS, args: args as Record<string, unknown>, id: `call-${n}-${i}`, type: "tool_call" as const })),
          }),
    );
  }
  return model;
}

type TodoState = { messages: BaseMessage[]; todos: Todo[] };
const cfg = (thread: string) => ({ configurable: { thread_id: thread } });
const toolMessages = (msgs: BaseMessage[]) => msgs.filter(ToolMessage.isInstance);

const plan: Todo[] = [
  { content: "read the code", status: "completed" },
  { content: "write the fix", status: "in_progress" },
  { content: "run the tests", status: "pending" },
];

describe("Todo middleware in createAgent", () => {
  it("registers write_todos with the plan-mode instruction in its description (not in the system prompt)", async () => {
    const model = scripted(["hi"]);
    const seenTools: string[][] = [];
    const spy = createMiddleware({
      name: "Spy",
      wrapModelCall: (req, handler) => {
        seenTools.push(req.tools.map((t) => String((t as { name?: unknown }).name)));
        return handler(req);
      },
    });
    const agent = createAgent({ model, tools: [], middleware: [todoMiddleware(), spy], systemPrompt: "SYS" });
    await agent.invoke({ messages: [new HumanMessage("hello")] });
    const call = model.calls[0]!;
    expect(seenTools[0]).toContain(WRITE_TODOS);
    expect(writeTodosTool.description).toMatch(/in_progress/);
    expect(writeTodosTool.description).toMatch(/replaces/);
    const sys = call.messages[0]!;
    expect(JSON.stringify(sys.content)).not.toMatch(/todo/i);
  });

  it("writes todos, answers with the list, then a second call replaces it and [] clears it", async () => {
    const model = scripted([[{ description: "plan", todos: plan }], [{ todos: [{ content: "only step", status: "in_progress" }] }], "done"]);
    const agent = createAgent({ model, tools: [], middleware: [todoMiddleware()], checkpointer: new MemorySaver() });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] }, cfg("t1"))) as unknown as TodoState;
    expect(out.todos).toEqual([{ content: "only step", status: "in_progress" }]);
    const tms = toolMessages(out.messages);
    expect(tms).toHaveLength(2);
    expect(tms[0]!.content).toBe(formatTodos(plan));
    expect(tms[0]!.status).toBe("success");
    expect(String(tms[1]!.content)).toContain("1. [~] only step");

    // a run that does not touch todos keeps them (null/untouched keeps)
    model.respond(new AIMessage({ id: "ai-keep", content: "nothing to plan" }));
    const kept = (await agent.invoke({ messages: [new HumanMessage("hi again")] }, cfg("t1"))) as unknown as TodoState;
    expect(kept.todos).toEqual([{ content: "only step", status: "in_progress" }]);

    // [] clears
    model.respond(new AIMessage({ id: "ai-clear", content: "", tool_calls: [{ name: WRITE_TODOS, args: { todos: [] }, id: "call-clear", type: "tool_call" }] }));
    model.respond(new AIMessage({ id: "ai-after-clear", content: "cleared" }));
    const cleared = (await agent.invoke({ messages: [new HumanMessage("clear it")] }, cfg("t1"))) as unknown as TodoState;
    expect(cleared.todos).toEqual([]);
    expect(toolMessages(cleared.messages).at(-1)!.content).toBe("Todo list cleared.");
  });

  it("two in_progress items → an error ToolMessage the model sees, todos unchanged, run goes on", async () => {
    const bad: Todo[] = [
      { content: "a", status: "in_progress" },
      { content: "b", status: "in_progress" },
    ];
    const model = scripted([[{ todos: plan }], [{ todos: bad }], "ok"]);
    const agent = createAgent({ model, tools: [], middleware: [todoMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as TodoState;
    expect(out.todos).toEqual(plan);
    const err = toolMessages(out.messages)[1]!;
    expect(err.status).toBe("error");
    expect(String(err.content)).toMatch(/at most one item may be in_progress/);
    expect(String(err.content)).toMatch(/not changed/);
    // the model saw the error on its next call
    expect(model.calls[2]!.messages.some((m) => ToolMessage.isInstance(m) && m.status === "error")).toBe(true);
  });

  it("schema violations (bad status, missing todos) are error ToolMessages, not crashes", async () => {
    const model = scripted([[{ todos: [{ content: "x", status: "doing" }] }], [{ description: "oops" }], "ok"]);
    const agent = createAgent({ model, tools: [], middleware: [todoMiddleware()] });
    const out = (await agent.invoke({ messages: [new HumanMessage("go")] })) as unknown as TodoState;
    expect(out.todos).toEqual([]);
    const tms = toolMessages(out.messages);
    expect(tms).toHaveLength(2);
    expect(tms.every((m) => m.status === "error")).toBe(true);
    expect(String(tms[0]!.content)).toMatch(/todos\.0\.status/);
    expect(String(tms[1]!.content)).toMatch(/todos/);
  });

  it("the tools step's stream update carries `todos` (what the runtime turns into todos.updated)", async () => {
    const model = scripted([[{ todos: plan }], "ok"]);
    const agent = createAgent({ model, tools: [], middleware: [todoMiddleware()] });
    const stream = await agent.stream({ messages: [new HumanMessage("go")] }, { streamMode: "updates" });
    const updates: Record<string, unknown>[] = [];
    for await (const chunk of stream as AsyncIterable<Record<string, unknown>>) updates.push(chunk);
    const withTodos = updates
      .flatMap((u) => Object.values(u))
      .flat()
      .filter((v) => v && typeof v === "object" && "todos" in (v as object));
    expect(withTodos).toHaveLength(1);
    expect((withTodos[0] as { todos: Todo[] }).todos).toEqual(plan);
  });

  it("todosProblem allows zero or one in_progress", () => {
    expect(todosProblem([])).toBeNull();
    expect(todosProblem(plan)).toBeNull();
    expect(todosProblem([{ content: "a", status: "pending" }])).toBeNull();
  });
});
