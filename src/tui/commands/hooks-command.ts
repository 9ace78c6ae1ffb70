// `/hooks`: the hooks this chat runs (.deerflowrc `hooks`; a project's only once trusted), one line each.
import { hookLines } from "../../vocabulary/hook-notice.js";
import type { SlashCommand } from "./types.js";

export const hooksCommand: SlashCommand = {
  name: "hooks",
  description: "list the hooks this chat runs (.deerflowrc hooks)",
  run: (ctx) => {
    const lines = hookLines(ctx.session.config.hooks);
    ctx.notice("info", lines.length ? `Hooks (run in this order on each event):\n${lines.join("\n")}` : 'No hooks configured. Add "hooks" to ~/.deerflowrc (docs/hooks.md).');
  },
};
