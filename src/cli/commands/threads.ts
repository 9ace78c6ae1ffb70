// `deerflow threads [--json]`: the thread index, newest first.
import { existsSync, statSync } from "node:fs";
import { DataDirError, DatabaseCorruptError } from "../../errors.js";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { DB_FILE, isCorruption, openStore } from "../../persistence/store.js";
import type { ThreadRow } from "../../persistence/thread-index.js";
import type { GlobalOptions } from "../main.js";
import { forTerminal } from "../../vocabulary/terminal-text.js";

export async function threadsCommand(opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  let rows: ThreadRow[] = [];
  if (existsSync(config.home) && !statSync(config.home).isDirectory()) throw new DataDirError(config.home, "is a file, not a directory", "Move the file out of the way");
  // Listing must not create a database in a home that has none.
  if (existsSync(join(config.home, DB_FILE))) {
    // Opening reaps runs whose process died, so a killed run shows `interrupted`, not `running`.
    const store = openStore(config.home, config.checkpoint.channelMode);
    try {
      rows = store.threads.list();
    } catch (err) {
      throw isCorruption(err) ? new DatabaseCorruptError(store.path, (err as Error).message) : err;
    } finally {
      store.close();
    }
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(rows.map(({ id, title, created_at, updated_at, status, workspace, mode }) => ({ id, title, created_at, updated_at, status, workspace, mode })), null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write("No threads yet. Start one with `deerflow` (or `deerflow run \"…\"` headless).\n");
    return 0;
  }
  for (const r of rows) {
    const title = r.title ?? "(untitled)";
    // Titles come from the model: never let one reach the terminal as escape sequences.
    process.stdout.write(forTerminal(`${r.id}  ${r.updated_at.replace("T", " ").slice(0, 19)}  ${r.status.padEnd(14)} ${r.mode.padEnd(5)}  ${title}${r.workspace ? `  [${r.workspace}]` : ""}`).replace(/\n/g, " ") + "\n");
  }
  return 0;
}
