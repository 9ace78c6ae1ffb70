// A thread exported whole (`deerflow threads export`, the chat's `/export`): the conversation with the turns
// compaction archived put back where they stood, every tool call with its arguments and result, the diffs file edits
// made, todos, subagent reports and token usage, in one versioned JSON shape (docs/export.md documents every key).
// WHY masked here, once, before any format: an export is a file a user shares; key shapes and the credentials this
// process holds never leave in it, whichever format renders it. WHY cut after masking: a cut key would no longer
// match its shape. Each tool argument string and each text is cut at EXPORT_TEXT_MAX_CHARS, and the document says so.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ResolvedConfig } from "../config/load.js";
import { UsageError } from "../errors.js";
import type { ArchivedMessage } from "../persistence/message-archive.js";
import { DB_FILE } from "../persistence/store.js";
import { credentialValues } from "../sandbox/env-scrub.js";
import type { ApprovalDiff } from "../sandbox/approvals.js";
import { isHiddenMessage } from "../vocabulary/message-markers.js";
import { messageText } from "../vocabulary/message-text.js";
import { maskSecretsDeep } from "../vocabulary/secret-shapes.js";
import { withArchivedTurns } from "./archived-turns.js";
import type { DelegationView, TodoView, TokenUsage } from "./events.js";
import { emptyUsage } from "./events.js";
import { diffOf } from "./stream-events.js";
import { ThreadRuntime } from "./thread-runtime.js";
import { presentedFilesOf } from "./thread-view.js";

/** The export format's version: a consumer reads `version` first (docs/export.md says what changes it). */
export const EXPORT_VERSION = 1;
/** Characters kept of each text and each tool argument string (the rest is counted, not exported). */
export const EXPORT_TEXT_MAX_CHARS = 20_000;

export interface ExportToolCall {
  id: string;
  name: string;
  args: unknown;
}

export interface ExportMessage {
  role: "user" | "assistant" | "tool" | string;
  text: string;
  /** True: compaction took it out of the conversation (the model reads it with read_history); `seq` numbers it. */
  archived: boolean;
  seq?: number;
  id?: string;
  tool_calls?: ExportToolCall[];
  tool_call_id?: string;
  name?: string;
  status?: "ok" | "error";
  diff?: ApprovalDiff;
}

export interface ThreadExport {
  version: typeof EXPORT_VERSION;
  exported_at: string;
  limits: { text_max_chars: number };
  thread: { id: string; title: string | null; status: string; mode: string; workspace: string | null; created_at: string; updated_at: string; host: string | null };
  runs: {
    id: string;
    status: string;
    stop_reason: string | null;
    input: string | null;
    started_at: string;
    ended_at: string | null;
    input_tokens: number;
    output_tokens: number;
    error: string | null;
  }[];
  messages: ExportMessage[];
  todos: TodoView[];
  delegations: DelegationView[];
  usage: TokenUsage;
  notes: string;
  files: string[];
}

/** `text` cut at the bound, saying how much was left out. */
function cut(text: string): string {
  return text.length <= EXPORT_TEXT_MAX_CHARS ? text : `${text.slice(0, EXPORT_TEXT_MAX_CHARS)}… [${text.length - EXPORT_TEXT_MAX_CHARS} more characters not exported]`;
}

/** Every string inside `value` cut (a write_file's content is an argument like any other). */
function cutDeep(value: unknown): unknown {
  if (typeof value === "string") return cut(value);
  if (Array.isArray(value)) return value.map(cutDeep);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutDeep(v)]));
  return value;
}

function liveMessage(m: BaseMessage): ExportMessage | undefined {
  if (isHiddenMessage(m)) return undefined;
  const base = { text: messageText(m), archived: false, ...(m.id ? { id: m.id } : {}) };
  if (HumanMessage.isInstance(m)) return { role: "user", ...base };
  if (AIMessage.isInstance(m)) {
    const calls = (m.tool_calls ?? []).map((c) => ({ id: c.id ?? "", name: c.name, args: c.args }));
    return { role: "assistant", ...base, ...(calls.length ? { tool_calls: calls } : {}) };
  }
  if (ToolMessage.isInstance(m)) {
    const diff = diffOf(m.artifact);
    return { role: "tool", ...base, tool_call_id: m.tool_call_id, ...(m.name ? { name: m.name } : {}), status: m.status === "error" ? "error" : "ok", ...(diff ? { diff } : {}) };
  }
  return undefined;
}

function archivedMessage(r: ArchivedMessage): ExportMessage {
  return { role: r.role, text: r.text, archived: true, seq: r.seq, id: r.message_id, ...(r.name ? { name: r.name } : {}) };
}

/** The export document of thread `threadId`; one line (a UsageError) when there is no such thread. */
export async function buildThreadExport(config: ResolvedConfig, threadId: string, now = new Date()): Promise<ThreadExport> {
  const notFound = () => new UsageError(`Thread ${threadId} not found.`, "List threads with `deerflow threads`.");
  // A home with no database has no threads: reading must not create one.
  if (!config.database && !existsSync(join(config.home, DB_FILE))) throw notFound();
  const runtime = ThreadRuntime.for(config);
  const row = await runtime.store.threads.get(threadId);
  if (!row) throw notFound();
  const rt = await runtime.forThread(threadId);
  const values = (await rt.readState(threadId, null)) as Record<string, unknown>;
  const runs = await rt.store.runs.forThread(threadId);
  const archived = await rt.store.archive.range(threadId, 1, await rt.store.archive.count(threadId));
  const compactions = (values.task_history as { compactions?: unknown } | null | undefined)?.compactions;
  const messages = withArchivedTurns((values.messages ?? []) as BaseMessage[], archived, Array.isArray(compactions) ? compactions : []).flatMap((seg) =>
    "live" in seg ? seg.live.flatMap((m) => liveMessage(m) ?? []) : seg.archived.map(archivedMessage),
  );
  const notes = (values.task_notes as { text?: unknown } | null | undefined)?.text;
  const doc: ThreadExport = {
    version: EXPORT_VERSION,
    exported_at: now.toISOString(),
    limits: { text_max_chars: EXPORT_TEXT_MAX_CHARS },
    thread: { id: row.id, title: row.title, status: row.status, mode: row.mode, workspace: row.workspace, created_at: row.created_at, updated_at: row.updated_at, host: row.host },
    runs: runs.map((r) => ({
      id: r.id,
      status: r.status,
      stop_reason: r.stop_reason,
      input: r.input,
      started_at: r.started_at,
      ended_at: r.ended_at,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      error: r.error,
    })),
    messages,
    todos: (values.todos as TodoView[] | null | undefined) ?? [],
    delegations: (values.delegations as DelegationView[] | null | undefined) ?? [],
    usage: (values.thread_usage as TokenUsage | null | undefined) ?? emptyUsage(),
    notes: typeof notes === "string" ? notes : "",
    files: presentedFilesOf(values),
  };
  return cutDeep(maskSecretsDeep(doc, credentialValues())) as ThreadExport;
}
