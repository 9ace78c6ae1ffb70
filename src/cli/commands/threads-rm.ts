// `deerflow threads rm <id>`: deletes a thread and all its data (see runtime/delete-thread.ts); a bound workspace stays.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { DB_FILE } from "../../persistence/store.js";
import { deleteThread } from "../../runtime/delete-thread.js";
import { ThreadRuntime } from "../../runtime/thread-runtime.js";
import { forTerminal, jsonText } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";

export async function threadsRmCommand(threadId: string, opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  refuseUntrusted(config.untrusted);
  const runtime = config.database || existsSync(join(config.home, DB_FILE)) ? ThreadRuntime.for(config) : undefined;
  try {
    const r = await deleteThread(config.home, runtime?.store, runtime, threadId);
    if (opts.json) process.stdout.write(`${jsonText(r, 2)}\n`);
    else
      process.stdout.write(
        forTerminal(`Deleted thread ${r.thread_id}${r.removed_dir ? ` and ${r.removed_dir}` : ""}.${r.kept_workspace ? ` Its workspace ${r.kept_workspace} is yours and was left as it is.` : ""}\n`),
      );
    return 0;
  } finally {
    await ThreadRuntime.closeAll();
  }
}
