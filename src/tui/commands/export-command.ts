// `/export [file]`: the current thread, whole, to a file (runtime/export-file.ts; docs/export.md). Without a file:
// deerflow-<thread id>.md in the folder the chat started in. Never over an existing file (the notice says so).
import type { SlashCommand } from "./types.js";

export const exportCommand: SlashCommand = {
  name: "export",
  args: "[file]",
  description: "write this thread (archived turns, tool calls, diffs, todos, usage; secrets masked) to a Markdown or .json file",
  run: (ctx) => {
    if (!ctx.session.threadId) {
      ctx.notice("info", "Nothing to export yet: this chat has no thread until its first prompt.");
      return;
    }
    ctx.idleTask("exporting the thread", async () => {
      const { path, format } = await ctx.session.exportThread(ctx.args);
      ctx.notice("info", `Exported this thread (${format === "json" ? "JSON" : "Markdown"}) to ${path}.`);
    });
  },
};
