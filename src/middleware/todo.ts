// Todo (always on in chat and run; --plan asks to plan first) — WHY these hooks:
//   • tools: registers `write_todos`, the model's only way to write `todos` (a Command update `{ todos, messages }`,
//     so the thread's list changes exactly when the tool answers, and the runtime sees `todos` in the stream's
//     "updates" chunk — that diff is the `todos.updated` event the TUI shows);
//   • wrapToolCall: validates the call BEFORE the tool body runs (schema + "at most one in_progress") and turns a
//     bad call into an error ToolMessage the model can read and fix; the state is left unchanged. Validation lives
//     here, not only in the tool, because a zod failure inside `tool()` throws before our code runs.
// There is deliberately NO wrapModelCall: the plan-mode instruction lives in the tool description, because the
// system prompt must stay byte-identical across turns (provider prefix cache).
// WHY its position (after ToolErrorHandling/Summarization, before Title): its wrapToolCall is inside
// ToolErrorHandling's, so a throwing write_todos still becomes an error ToolMessage; it needs nothing from the
// middleware after it.
// The `todos` channel is ThreadState's (null keeps, any list replaces, [] clears): declared here from
// THREAD_STATE_VALUES so the reducers are the same object and langchain hands this middleware the field.
import { ToolMessage } from "@langchain/core/messages";
import { Command, StateSchema } from "@langchain/langgraph";
import { createMiddleware, tool, type ToolRuntime } from "langchain";
import { z } from "zod";
import { THREAD_STATE_VALUES } from "../state/thread-state.js";
import { TODO_STATUSES, type Todo } from "../state/types.js";

export const WRITE_TODOS = "write_todos";

export const writeTodosSchema = z.object({
  description: z.string().optional().describe("Why you are updating the plan (say it first)."),
  todos: z
    .array(
      z.object({
        content: z.string().min(1).describe("The step, short and concrete."),
        status: z.enum(TODO_STATUSES).describe("pending | in_progress | completed"),
      }),
    )
    .describe("The WHOLE list, in order. It replaces the previous list; [] clears it."),
});

const TODO_RULES = [
  "Send the WHOLE list each time (it replaces the previous one; [] clears it).",
  "Mark exactly one item in_progress while you work on it (at most one at a time), mark items completed as soon as",
  "they are done, and add new steps as you discover them.",
].join(" ");

/** Always on: the model keeps a list when the work has several steps. */
export const WRITE_TODOS_DESCRIPTION = ["Keep a visible todo list for multi-step work (3+ steps, or when the user gives several tasks).", TODO_RULES, "Skip it for trivial one-step requests."].join(
  " ",
);

/** Plan mode (--plan): plan first, then act. Said in the tool description, never the system prompt (prefix cache). */
export const WRITE_TODOS_PLAN_DESCRIPTION = [
  "Plan mode: before any other tool call, write the plan for the request as a todo list with this tool; then work",
  "through it step by step.",
  TODO_RULES,
].join(" ");

/** Why `todos` cannot be written, or null when it can. */
export function todosProblem(todos: readonly Todo[]): string | null {
  const active = todos.filter((t) => t.status === "in_progress");
  if (active.length > 1) {
    return `${active.length} items are in_progress (${active.map((t) => JSON.stringify(t.content)).join(", ")}); at most one item may be in_progress at a time. Mark the others pending or completed and call ${WRITE_TODOS} again.`;
  }
  return null;
}

/** The list as the model reads it in the tool answer. */
export function formatTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return "Todo list cleared.";
  const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;
  return ["Todo list updated:", ...todos.map((t, i) => `${i + 1}. ${mark[t.status]} ${t.content}`)].join("\n");
}

function errorMessage(toolCallId: string, detail: string): ToolMessage {
  return new ToolMessage({
    tool_call_id: toolCallId,
    name: WRITE_TODOS,
    status: "error",
    content: `Error: Tool '${WRITE_TODOS}' failed with ValidationError: ${detail} The todo list was not changed.`,
  });
}

function validationDetail(error: z.ZodError): string {
  return `${error.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}.`;
}

/** Some models send `null` for an omitted optional field: treat it as omitted. */
function dropNulls(args: unknown): unknown {
  if (!args || typeof args !== "object" || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([, v]) => v !== null));
}

async function writeTodos(input: z.infer<typeof writeTodosSchema>, runtime: ToolRuntime) {
  const toolCallId = (runtime as { toolCallId?: string; toolCall?: { id?: string } } | undefined)?.toolCallId ?? (runtime as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? "";
  const todos: Todo[] = input.todos.map((t) => ({ content: t.content, status: t.status }));
  const problem = todosProblem(todos);
  if (problem) return errorMessage(toolCallId, problem);
  return new Command({
    update: {
      todos,
      messages: [new ToolMessage({ tool_call_id: toolCallId, name: WRITE_TODOS, status: "success", content: formatTodos(todos) })],
    },
  });
}

export const writeTodosTool = tool(writeTodos, { name: WRITE_TODOS, description: WRITE_TODOS_DESCRIPTION, schema: writeTodosSchema });
const planTodosTool = tool(writeTodos, { name: WRITE_TODOS, description: WRITE_TODOS_PLAN_DESCRIPTION, schema: writeTodosSchema });

const stateSchema = new StateSchema({ todos: THREAD_STATE_VALUES.todos });

export function todoMiddleware(options: { planFirst?: boolean } = {}) {
  const own = options.planFirst ? planTodosTool : writeTodosTool;
  return createMiddleware({
    name: "Todo",
    stateSchema,
    tools: [own],
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      // A user tool of the same name replaces ours (user tools win): then it is not ours to check.
      if (toolCall.name !== WRITE_TODOS || (request.tool && request.tool !== own)) return handler(request);
      const id = toolCall.id ?? "";
      const parsed = writeTodosSchema.safeParse(dropNulls(toolCall.args ?? {}));
      if (!parsed.success) return errorMessage(id, validationDetail(parsed.error));
      const problem = todosProblem(parsed.data.todos);
      if (problem) return errorMessage(id, problem);
      return handler({ ...request, toolCall: { ...toolCall, args: parsed.data } });
    },
  });
}
