// `/todos`: the full todo list and the agent's working notes.
import type { SlashCommand } from "./types.js";

export const todosCommand: SlashCommand = {
  name: "todos",
  description: "show the full todo list and the agent's working notes",
  run: (ctx) => {
    const { todos, notes } = ctx.store.get();
    if (todos.length === 0 && !notes) ctx.notice("info", "No todos or notes yet. The agent writes todos for work with several steps (--plan asks it to plan first), and notes on long work.");
    else ctx.store.dispatch({ type: "ui.item", item: { kind: "todos", todos, ...(notes ? { notes } : {}) } });
  },
};
