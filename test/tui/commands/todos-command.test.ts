import { describe, expect, it } from "vitest";
import { todosCommand } from "../../../src/tui/commands/todos-command.js";
import { slashContext } from "./slash-context.js";

describe("/todos", () => {
  it("without todos or notes says when the agent writes them; with them, one todos item carries both", () => {
    const empty = slashContext("");
    todosCommand.run(empty.ctx);
    expect(empty.notices[0]?.[1]).toMatch(/^No todos or notes yet\./);
    expect(empty.store.get().items).toEqual([]);

    const r = slashContext("");
    r.store.dispatch({ type: "todos.updated", run_id: "r1", todos: [{ content: "write the parser", status: "in_progress" }] });
    r.store.dispatch({ type: "notes.updated", run_id: "r1", notes: "the lexer is done" });
    todosCommand.run(r.ctx);
    expect(r.notices).toEqual([]);
    expect(r.store.get().items.at(-1)).toMatchObject({ kind: "todos", todos: [{ content: "write the parser", status: "in_progress" }], notes: "the lexer is done" });
  });
});
