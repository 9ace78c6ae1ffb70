// `/resume <id>`: switch to a saved thread and draw its conversation.
import type { SlashCommand } from "./types.js";

export const resumeCommand: SlashCommand = {
  name: "resume",
  args: "<id>",
  description: "switch to a saved thread",
  run: (ctx) => {
    if (!ctx.args) return ctx.notice("info", "Usage: /resume <thread id> (see /threads)");
    ctx.idleTask("switching threads", async () => {
      const view = await ctx.session.resume({ threadId: ctx.args });
      ctx.store.dispatch({ type: "ui.clear" });
      ctx.showThread(view, "Resumed");
    });
  },
};
