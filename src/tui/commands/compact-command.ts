// `/compact [focus]`: summarize and archive older turns now.
import { compactionNotice } from "../../vocabulary/compaction-notice.js";
import { hookNotice } from "../../vocabulary/hook-notice.js";
import type { SlashCommand } from "./types.js";

export const compactCommand: SlashCommand = {
  name: "compact",
  args: "[focus]",
  description: "summarize and archive older turns now (optionally: what to keep in focus)",
  run: (ctx) =>
    ctx.idleTask("compacting the conversation", async () => {
      // A PreCompact hook that failed (or exited 2) is said, as a run's hooks are.
      const info = await ctx.session.compact(ctx.args, (r) => {
        const line = hookNotice(r);
        if (line) ctx.notice("warning", line);
      });
      if (!info) ctx.notice("info", "Nothing to compact yet: the conversation is short enough to keep whole.");
      else ctx.notice(info.summary_failed ? "warning" : "info", compactionNotice(info));
    }),
};
