// `/goal [text|clear]`: work toward a goal until it is met; without text, show the goal; `clear` drops it.
import type { SlashCommand } from "./types.js";

export const goalCommand: SlashCommand = {
  name: "goal",
  args: "[text|clear]",
  description: "work toward a goal until it is met; without text: show it",
  run: (ctx) => {
    const { args, session: s } = ctx;
    if (!args) {
      const g = ctx.store.get().status.goal;
      ctx.notice("info", g ? `Goal (${g.status.replace(/_/g, " ")}): ${g.objective}` : "No goal. Set one with /goal <what must be true when done>.");
      return;
    }
    if (args === "clear") {
      ctx.idleTask("clearing the goal", async () => {
        await s.clearGoal();
        ctx.store.dispatch({ type: "ui.status", status: { goal: null } });
        ctx.notice("info", "Goal cleared.");
      });
      return;
    }
    ctx.whileIdle("starting a goal", () => ctx.submitTurn(args, args));
  },
};
