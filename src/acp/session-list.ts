// session/list: the threads of the data directory as ACP sessions, newest first, with the folder each works in and
// its title; `cwd` keeps one folder's. A thread the terminal started without a folder works in its own one in the
// data directory, and is listed with that. Titles come from the model: they are sent as one line without control
// characters, masked (a title stored before titles were masked).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ListSessionsRequest, type ListSessionsResponse, RequestError, type SessionInfo } from "@agentclientprotocol/sdk";
import { loadConfig } from "../config/load.js";
import { DB_FILE } from "../persistence/store.js";
import type { ThreadRow } from "../persistence/thread-index.js";
import { ThreadRuntime } from "../runtime/thread-runtime.js";
import { maskCredentials } from "../sandbox/env-scrub.js";
import { oneLine } from "../vocabulary/terminal-text.js";

/** Sessions per page; the cursor is the offset of the next page. */
export const SESSIONS_PAGE = 100;

function offsetOf(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw RequestError.invalidParams(undefined, `Unknown cursor "${oneLine(cursor).slice(0, 40)}": pass the nextCursor of the previous session/list answer.`);
  return Number(cursor);
}

function infoOf(row: ThreadRow & { workspace: string }): SessionInfo {
  return { sessionId: row.id, cwd: row.workspace, title: row.title ? oneLine(maskCredentials(row.title)).slice(0, 200) : null, updatedAt: row.updated_at };
}

export async function listSessions(params: ListSessionsRequest, home: string | undefined): Promise<ListSessionsResponse> {
  const offset = offsetOf(params.cursor);
  const config = loadConfig({ flags: { home } });
  // Listing never creates the database.
  if (!config.database && !existsSync(join(config.home, DB_FILE))) return { sessions: [] };
  const rows = (await ThreadRuntime.for(config).store.threads.list()).filter((r): r is ThreadRow & { workspace: string } => r.workspace !== null && (!params.cwd || r.workspace === params.cwd));
  const page = rows.slice(offset, offset + SESSIONS_PAGE);
  const next = offset + SESSIONS_PAGE < rows.length ? String(offset + SESSIONS_PAGE) : null;
  return { sessions: page.map(infoOf), nextCursor: next };
}
