// `deerflow threads export <id> [--format md|json] [-o file] [--force]`: the whole thread (runtime/thread-export.ts),
// secrets masked, to stdout or to a new file (an existing one only with --force). docs/export.md documents the JSON.
import { resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import { UsageError } from "../../errors.js";
import { writeExportFile } from "../../runtime/export-file.js";
import { buildThreadExport } from "../../runtime/thread-export.js";
import { EXPORT_FORMATS, type ExportFormat, formatOfFile, renderExport } from "../../runtime/thread-export-format.js";
import { ThreadRuntime } from "../../runtime/thread-runtime.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";
import { noteUntrusted } from "../untrusted-note.js";

export async function threadsExportCommand(threadId: string, opts: GlobalOptions & { format?: string; output?: string; force?: boolean }): Promise<number> {
  // Without --format, the file's name says it (`-o t.json` is JSON), as `/export t.json` does in the chat.
  const format = (opts.format ?? (opts.output ? formatOfFile(opts.output) : "md")) as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`Unknown export format "${opts.format}": use --format md or --format json.`);
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  noteUntrusted(config);
  try {
    const text = renderExport(await buildThreadExport(config, threadId), format);
    if (!opts.output) {
      process.stdout.write(text);
      return 0;
    }
    const path = resolve(opts.output);
    writeExportFile(path, text, { force: opts.force, forceHint: "Name another file, or add --force to replace it.", dataDir: config.home });
    process.stderr.write(forTerminal(`Exported thread ${threadId} (${format}) to ${path}.\n`));
    return 0;
  } finally {
    await ThreadRuntime.closeAll();
  }
}
