// `deerflow rewind <thread>`: the thread's conversation, files, or both as before its last run (or its last N runs);
// `--list` shows the runs it can go back over, `--undo` puts back the last rewind. Text on stdout, or `--json`.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/load.js";
import { refuseUntrusted } from "../../config/project-trust.js";
import { UsageError } from "../../errors.js";
import { DB_FILE } from "../../persistence/store.js";
import type { RewindScope } from "../../persistence/rewind-log.js";
import { type RewindableRun, listRewindable, rewindStoreFor, rewindThread, undoRewind } from "../../runtime/rewind.js";
import { ThreadRuntime } from "../../runtime/thread-runtime.js";
import { rewindText, runLine, undoText } from "../../vocabulary/rewind-text.js";
import { forTerminal, jsonText } from "../../vocabulary/terminal-text.js";
import type { GlobalOptions } from "../main.js";

export interface RewindOptions extends GlobalOptions {
  runs?: number;
  filesOnly?: boolean;
  conversationOnly?: boolean;
  list?: boolean;
  undo?: boolean;
  force?: boolean;
  json?: boolean;
}

function scopeOf(opts: RewindOptions): RewindScope {
  if (opts.filesOnly && opts.conversationOnly) throw new UsageError("--files-only and --conversation-only exclude each other.", "Give neither to rewind both.");
  return opts.filesOnly ? "files" : opts.conversationOnly ? "conversation" : "both";
}

export async function rewindCommand(threadId: string, opts: RewindOptions): Promise<number> {
  const scope = scopeOf(opts);
  if ((opts.list || opts.undo) && (opts.runs !== undefined || scope !== "both")) throw new UsageError(`--${opts.list ? "list" : "undo"} takes no --runs, --files-only or --conversation-only.`);
  if (opts.list && opts.undo) throw new UsageError("--list and --undo exclude each other.");
  if (opts.force && (opts.list || scope === "conversation")) throw new UsageError(`--force takes files back; ${opts.list ? "--list" : "--conversation-only"} takes none.`);
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  refuseUntrusted(config.untrusted);
  if (!config.database && !existsSync(join(config.home, DB_FILE))) throw new UsageError(`Thread ${threadId} not found.`, "List threads with `deerflow threads`.");
  const runtime = ThreadRuntime.for(config);
  const target = { home: config.home, store: await rewindStoreFor(runtime.store, threadId), runtime, threadId };
  try {
    const out = (s: string) => process.stdout.write(opts.json ? s : forTerminal(s));
    if (opts.list) {
      const runs = await listRewindable(target);
      out(opts.json ? `${jsonText({ thread_id: threadId, runs }, 2)}\n` : listText(threadId, runs));
    } else if (opts.undo) {
      const r = await undoRewind(target, opts.force === true);
      out(opts.json ? `${jsonText(r, 2)}\n` : undoText(r));
    } else {
      const r = await rewindThread(target, opts.runs ?? 1, scope, opts.force === true);
      out(opts.json ? `${jsonText(r, 2)}\n` : rewindText(r));
      if (r.files_note) process.stderr.write(forTerminal(`deerflow: ${r.files_note}\n`));
    }
    return 0;
  } finally {
    await ThreadRuntime.closeAll();
  }
}

function listText(threadId: string, runs: RewindableRun[]): string {
  if (runs.length === 0) return `Thread ${threadId} has no runs to rewind.\n`;
  return `Runs of thread ${threadId}, latest first (\`deerflow rewind ${threadId} --runs N\` goes back to before run N):\n${runs.map((r) => `${runLine(r)}\n`).join("")}`;
}
