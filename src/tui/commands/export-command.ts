// `/export [file]`: the current thread, whole, to a file (runtime/thread-export.ts; docs/export.md). Without a file:
// deerflow-<thread id>.md in the folder the chat started in. Never over an existing file (the notice says so).
import { resolve } from "node:path";
import { writeExportFile } from "../../runtime/export-file.js";
import { buildThreadExport } from "../../runtime/thread-export.js";
import { formatOfFile, renderExport } from "../../runtime/thread-export-format.js";
import type { SlashCommand } from "./types.js";

export const exportCommand: SlashCommand = {
  name: "export",
  args: "[file]",
  description: "write this thread (archived turns, tool calls, diffs, todos, usage; secrets masked) to a Markdown or .json file",
  run: (ctx) => {
    const threadId = ctx.session.threadId;
    if (!threadId) {
      ctx.notice("info", "Nothing to export yet: this chat has no thread until its first prompt.");
      return;
    }
    ctx.idleTask("exporting the thread", async () => {
      const path = resolve(ctx.session.cwd, ctx.args || `deerflow-${threadId}.md`);
      const format = formatOfFile(path);
      writeExportFile(path, renderExport(await buildThreadExport(ctx.session.config, threadId), format), { forceHint: "Name another file: /export <file>." });
      ctx.notice("info", `Exported this thread (${format === "json" ? "JSON" : "Markdown"}) to ${path}.`);
    });
  },
};
