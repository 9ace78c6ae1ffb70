// `deerflow threads [--json]`: the thread index, newest first, with the machine each thread last ran on.
// `deerflow threads show <id> [--json]`: one thread as saved (read-only: works for a thread of another machine).
import { existsSync, statSync } from "node:fs";
import { DataDirError, DatabaseCorruptError, UsageError } from "../../errors.js";
import { join } from "node:path";
import { type ResolvedConfig, loadConfig } from "../../config/load.js";
import { DB_FILE, type Store, isCorruption } from "../../persistence/store.js";
import { openStore } from "../../persistence/open-store.js";
import { DatabaseUnavailableError, isConnectionFault, isServerRefusal } from "../../persistence/postgres-connection.js";
import type { ThreadRow } from "../../persistence/thread-index.js";
import type { ArchivedMessage } from "../../persistence/message-archive.js";
import type { BaseMessage } from "@langchain/core/messages";
import { withArchivedTurns } from "../../runtime/archived-turns.js";
import { machineName } from "../../persistence/machine.js";
import { ThreadRuntime } from "../../runtime/thread-runtime.js";
import { type TranscriptEntry, presentedFilesOf, transcriptOf } from "../../runtime/thread-view.js";
import { INTERRUPTED_LINE } from "../../vocabulary/interruption-text.js";
import type { GlobalOptions } from "../main.js";
import { noteUntrusted } from "../untrusted-note.js";
import { credentialValues, maskCredentials } from "../../sandbox/env-scrub.js";
import { maskSecretsDeep } from "../../vocabulary/secret-shapes.js";
import { forTerminal, jsonText, shownText } from "../../vocabulary/terminal-text.js";

/** Runs `read` on the home's store; undefined when a SQLite home has no database yet (listing must not create one). */
async function withStore<T>(config: ResolvedConfig, read: (store: Store) => Promise<T>, channelMode = config.checkpoint.channelMode): Promise<T | undefined> {
  if (!config.database) {
    if (existsSync(config.home) && !statSync(config.home).isDirectory()) throw new DataDirError(config.home, "is a file, not a directory", "Move the file out of the way");
    if (!existsSync(join(config.home, DB_FILE))) return undefined;
  }
  // Opening reaps runs whose process died (or whose lease expired), so a killed run shows `interrupted`.
  const store = openStore({ home: config.home, channelMode, database: config.database });
  try {
    return await read(store);
  } catch (err) {
    if (config.database && (isConnectionFault(err) || isServerRefusal(err))) throw new DatabaseUnavailableError(config.database, err);
    throw isCorruption(err) ? new DatabaseCorruptError(store.path, (err as Error).message) : err;
  } finally {
    await store.close();
  }
}

export async function threadsCommand(opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  noteUntrusted(config);
  const rows: ThreadRow[] = (await withStore(config, async (store) => store.threads.list())) ?? [];
  if (opts.json) {
    process.stdout.write(
      `${jsonText(
        rows.map(({ id, title, created_at, updated_at, status, workspace, mode, host }) => ({ id, title: title && maskCredentials(title), created_at, updated_at, status, workspace, mode, host })),
        2,
      )}\n`,
    );
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write('No threads yet. Start one with `deerflow` (or `deerflow run "…"` headless).\n');
    return 0;
  }
  const here = machineName();
  for (const r of rows) {
    const title = r.title ? maskCredentials(r.title) : "(untitled)";
    const host = r.host && r.host !== here ? `  @${r.host}` : "";
    // Titles come from the model: never let one reach the terminal as escape sequences.
    process.stdout.write(
      forTerminal(`${r.id}  ${r.updated_at.replace("T", " ").slice(0, 19)}  ${r.status.padEnd(14)} ${r.mode.padEnd(5)}  ${title}${r.workspace ? `  [${r.workspace}]` : ""}${host}`).replace(
        /\n/g,
        " ",
      ) + "\n",
    );
  }
  return 0;
}

/** One transcript entry as `threads show` prints it; what an interrupted run kept says so. */
function entryLine(e: TranscriptEntry): string {
  switch (e.kind) {
    case "user":
      return `> ${e.text}`;
    case "assistant":
      return e.interrupted ? `${e.text ? `${e.text}\n` : ""}${INTERRUPTED_LINE}` : e.text;
    case "tool":
      return `  [${e.name}] ${e.interrupted ? "interrupted" : e.status}`;
    case "clarification":
      return `? ${e.clarification.question}`;
    case "shell":
      return `! ${e.command}${e.exitCode ? ` (exit ${e.exitCode})` : ""}\n${e.output}`;
  }
}

/** A run of archived messages between two marks (compaction took them out of the conversation). */
function archivedBlock(rows: readonly ArchivedMessage[]): string[] {
  const range = rows.length === 1 ? `#${rows[0]!.seq}` : `#${rows[0]!.seq}–#${rows.at(-1)!.seq}`;
  return [
    `── ${rows.length} archived message${rows.length === 1 ? "" : "s"} (${range}, taken out of the conversation by compaction; the model reads them with read_history) ──`,
    ...rows.map(archivedLine),
    "── end of the archived messages ──",
  ];
}

/** One archived message, shaped like a live entry and marked. */
function archivedLine(m: ArchivedMessage): string {
  const mark = `[archived #${m.seq}]`;
  if (m.role === "user") return `${mark} > ${m.text}`;
  if (m.role === "tool") {
    const first = m.text.split("\n", 1)[0]!;
    return `${mark}   [${m.name ?? "tool"}] ${first.length > 100 ? `${first.slice(0, 100)}…` : first}`;
  }
  return `${mark} ${m.text}`;
}

export async function threadsShowCommand(threadId: string, opts: GlobalOptions & { json?: boolean }): Promise<number> {
  const config = loadConfig({ flags: { home: opts.home, model: opts.model } });
  noteUntrusted(config);
  // An existing thread is read in the mode it was written in, unless the user chose a mode (docs/architecture.md, Checkpoints).
  const mode = config.checkpoint.explicitMode ? config.checkpoint.channelMode : await withStore(config, async (store) => (await store.threads.get(threadId))?.mode);
  const found = await withStore(
    config,
    async (store) => {
      const row = await store.threads.get(threadId);
      if (!row) return undefined;
      const runs = await store.runs.forThread(threadId);
      const tuple = await store.saver.getTuple({ configurable: { thread_id: threadId } });
      // What compaction took out of the messages (`/compact`, auto-compaction): printed too, marked archived.
      const archived = await store.archive.range(threadId, 1, await store.archive.count(threadId));
      return { row, runs, tuple, archived };
    },
    mode ?? config.checkpoint.channelMode,
  );
  if (!found) throw new UsageError(`Thread ${threadId} not found.`, "List threads with `deerflow threads`.");
  // Delta checkpoints keep messages as writes, or as a snapshot object (not a list): the state graph rebuilds them.
  const channels = found.tuple?.checkpoint.channel_values as { messages?: unknown; task_history?: unknown; artifacts?: unknown; thread_data?: unknown } | undefined;
  let messages: BaseMessage[] = Array.isArray(channels?.messages) ? channels.messages : [];
  let history = channels?.task_history;
  const files = presentedFilesOf(channels ?? {});
  if (found.row.mode === "delta") {
    const values = await ThreadRuntime.for(config).readState(threadId, config.model);
    [messages, history] = [values.messages ?? [], values.task_history];
    await ThreadRuntime.closeAll();
  }
  const entries = transcriptOf(messages);
  const compactions = (history as { compactions?: unknown } | null | undefined)?.compactions;
  const { row, runs, archived } = found;
  if (opts.json) {
    const archivedJson = archived.map(({ seq, role, name, text, archived_at }) => ({ seq, role, name, text, archived_at }));
    process.stdout.write(
      `${jsonText({ thread: { ...row, title: row.title && maskCredentials(row.title) }, runs: runs.map(({ id, status, started_at, ended_at, error }) => ({ id, status, started_at, ended_at, error })), ...(maskSecretsDeep({ entries, files, archived: archivedJson }, credentialValues()) as object) }, 2)}\n`,
    );
    return 0;
  }
  const lines = [
    `Thread ${row.id}: ${row.title ? maskCredentials(row.title) : "(untitled)"}`,
    `  status ${row.status}, mode ${row.mode}, last ran on ${row.host ?? "(unknown)"}${row.host && row.host !== machineName() ? " (another machine: inspect only)" : ""}`,
    `  workspace ${row.workspace ?? "(its own)"}`,
    `  created ${row.created_at}, updated ${row.updated_at}, ${runs.length} run(s)`,
    ...(files.length > 0 ? ["  presented files:", ...files.map((f) => `    ${shownText(f)}`)] : []),
    "",
    ...withArchivedTurns(messages, archived, Array.isArray(compactions) ? compactions : []).flatMap((seg) => ("live" in seg ? transcriptOf(seg.live).map(entryLine) : archivedBlock(seg.archived))),
  ];
  // Masked as an export is: the user's own messages keep the keys they typed (the model was meant to get them), and
  // the answers a known credential value without a key's shape (the twenty-eighth pass's A28c-3).
  process.stdout.write(forTerminal(`${maskCredentials(lines.join("\n"))}\n`));
  return 0;
}
