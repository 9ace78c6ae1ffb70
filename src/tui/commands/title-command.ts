// `/title <text>`: rename this thread.
import type { SlashCommand } from "./types.js";

export const titleCommand: SlashCommand = {
  name: "title",
  args: "<text>",
  description: "rename this thread",
  run: (ctx) => {
    const { args, session: s } = ctx;
    if (!args) return ctx.notice("info", "Usage: /title <text>");
    ctx.idleTask("renaming the thread", async () => {
      await s.setTitle(args);
      ctx.store.dispatch({ type: "ui.status", status: { threadId: s.threadId, title: args } });
      ctx.notice("info", `Title: ${args}`);
    });
  },
};
