// `/clear`: start a new thread (the current one stays saved).
import type { SlashCommand } from "./types.js";

export const clearCommand: SlashCommand = {
  name: "clear",
  description: "start a new thread (the current one stays saved)",
  run: (ctx) =>
    ctx.whileIdle("starting a new thread", () => {
      const s = ctx.session;
      // The old conversation stays on screen above (erasing Ink's <Static> output is not reliable); a notice marks the cut.
      s.newThread();
      ctx.store.dispatch({ type: "ui.clear" });
      ctx.store.dispatch({ type: "ui.status", status: { workspace: s.workspaceLabel() } });
      ctx.notice("info", "New thread: the next message starts it. Earlier threads stay in /threads.");
    }),
};
