// The thread index: one row per thread (id, title, times, status, workspace, mode) in the same SQLite file as the
// checkpoints, so `deerflow threads` and `--continue` never have to scan checkpoint blobs.
import type Database from "better-sqlite3";

import type { ChannelMode } from "../vocabulary/checkpoint-modes.js";
import type { ThreadStatus } from "../vocabulary/statuses.js";
import { machineName } from "./machine.js";

export interface ThreadRow {
  id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  status: ThreadStatus;
  workspace: string | null;
  mode: ChannelMode;
  /** The machine the thread last ran on (null: created before hosts were recorded). */
  host: string | null;
}

export class ThreadIndex {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  get(id: string): ThreadRow | undefined {
    return this.db.prepare("SELECT * FROM threads WHERE id = ?").get(id) as ThreadRow | undefined;
  }

  /** Newest first. */
  list(limit = 1000): ThreadRow[] {
    return this.db.prepare("SELECT * FROM threads ORDER BY updated_at DESC, rowid DESC LIMIT ?").all(limit) as ThreadRow[];
  }

  latest(): ThreadRow | undefined {
    return this.list(1)[0];
  }

  create(row: { id: string; workspace?: string | null; mode: "full" | "delta"; title?: string | null }): ThreadRow {
    const now = new Date().toISOString();
    this.db
      .prepare("INSERT INTO threads (id, title, created_at, updated_at, status, workspace, mode, host) VALUES (?, ?, ?, ?, 'idle', ?, ?, ?)")
      .run(row.id, row.title ?? null, now, now, row.workspace ?? null, row.mode, machineName());
    return this.get(row.id)!;
  }

  update(id: string, patch: Partial<Pick<ThreadRow, "title" | "status" | "workspace" | "host">>): void {
    const sets: string[] = ["updated_at = ?"];
    const args: unknown[] = [new Date().toISOString()];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      sets.push(`${k} = ?`);
      args.push(v);
    }
    this.db.prepare(`UPDATE threads SET ${sets.join(", ")} WHERE id = ?`).run(...args, id);
  }
}
