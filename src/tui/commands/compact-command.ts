// `/compact [focus]`: summarize and archive older turns now.
import { compactionNotice } from "../../vocabulary/compaction-notice.js";
import type { SlashCommand } from "./types.js";

export const compactCommand: SlashCommand = {
  name: "compact",
  args: "[focus]",
  description: "summarize and archive older turns now (optionally: what to keep in focus)",
  run: (ctx) =>
    ctx.idleTask("compacting the conversation", async () => {
      const info = await ctx.session.compact(ctx.args);
      if (!info) ctx.notice("info", "Nothing to compact yet: the conversation is short enough to keep whole.");
      else ctx.notice(info.summary_failed ? "warning" : "info", compactionNotice(info));
    }),
};
