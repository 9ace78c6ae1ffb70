// Rewinds of a thread and what they undid. A conversation rewind removes the thread's checkpoint rows stored after
// the chosen run's rollback mark (as a failed run is rolled back), but first copies them into `rewound_*` tables
// under the rewind's id, so what was rewound stays in the file until the thread is deleted and `rewind --undo` can
// put it back. The files' side is kept by the shadow repository (a ref per rewind).
import type Database from "better-sqlite3";
import type { RollbackMark } from "./sqlite-saver.js";

export type RewindScope = "both" | "files" | "conversation";

export interface RewindRow {
  id: string;
  thread_id: string;
  created_at: string;
  /** The run the thread was rewound to before. */
  target_run: string;
  scope: RewindScope;
  /** JSON array of the run ids it undid, oldest first. */
  runs: string;
  /** The shadow repository's commit of the files as they were before the rewind (null: files not rewound). */
  files_before: string | null;
  /** Checkpoint rows archived (0: the conversation was not rewound). */
  rows_archived: number;
  /** Set when `rewind --undo` put it back. */
  undone_at: string | null;
}

/** The checkpoint tables and the mark field that bounds each. */
const ARCHIVED = [
  ["checkpoints", "checkpoints"],
  ["writes", "writes"],
  ["checkpoint_blobs", "blobs"],
] as const;

const columnsOf = (db: Database.Database, table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

export class RewindLog {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS rewinds (
      id TEXT PRIMARY KEY,
      thread_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      target_run TEXT NOT NULL,
      scope TEXT NOT NULL,
      runs TEXT NOT NULL,
      files_before TEXT,
      rows_archived INTEGER NOT NULL DEFAULT 0,
      undone_at TEXT
    )`);
    for (const [table] of ARCHIVED) {
      db.exec(`CREATE TABLE IF NOT EXISTS rewound_${table} (rewind_id TEXT NOT NULL, thread_id TEXT NOT NULL, orig_rowid INTEGER NOT NULL)`);
      // The archive follows its table's columns (a later migration adds them here too).
      const have = new Set(columnsOf(db, `rewound_${table}`));
      for (const c of columnsOf(db, table)) if (!have.has(c)) db.exec(`ALTER TABLE rewound_${table} ADD COLUMN "${c}"`);
    }
  }

  /**
   * Moves the thread's checkpoint rows stored after `mark` into the archive under `rewindId`. Call inside the
   * transaction that records the rewind, so a kill leaves either both or neither. Returns the rows moved.
   */
  archiveAfter(rewindId: string, threadId: string, mark: RollbackMark): number {
    let moved = 0;
    for (const [table, key] of ARCHIVED) {
      const cols = columnsOf(this.db, table).filter((c) => c !== "thread_id").map((c) => `"${c}"`).join(", ");
      this.db.prepare(`INSERT INTO rewound_${table} (rewind_id, thread_id, orig_rowid, ${cols}) SELECT ?, thread_id, rowid, ${cols} FROM ${table} WHERE thread_id = ? AND rowid > ? ORDER BY rowid`).run(rewindId, threadId, mark[key]);
      moved += this.db.prepare(`DELETE FROM ${table} WHERE thread_id = ? AND rowid > ?`).run(threadId, mark[key]).changes;
    }
    return moved;
  }

  /** Puts the rows archived by `rewindId` back (in their original order) and drops them from the archive. */
  restoreArchived(rewindId: string): number {
    let restored = 0;
    for (const [table] of ARCHIVED) {
      const cols = columnsOf(this.db, table).map((c) => `"${c}"`).join(", ");
      restored += this.db.prepare(`INSERT OR REPLACE INTO ${table} (${cols}) SELECT ${cols} FROM rewound_${table} WHERE rewind_id = ? ORDER BY orig_rowid`).run(rewindId).changes;
      this.db.prepare(`DELETE FROM rewound_${table} WHERE rewind_id = ?`).run(rewindId);
    }
    return restored;
  }

  add(row: Omit<RewindRow, "undone_at">): void {
    this.db
      .prepare("INSERT INTO rewinds (id, thread_id, created_at, target_run, scope, runs, files_before, rows_archived) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(row.id, row.thread_id, row.created_at, row.target_run, row.scope, row.runs, row.files_before, row.rows_archived);
  }

  markUndone(id: string): void {
    this.db.prepare("UPDATE rewinds SET undone_at = ? WHERE id = ?").run(new Date().toISOString(), id);
  }

  /** The thread's rewinds, newest first. */
  forThread(threadId: string): RewindRow[] {
    return this.db.prepare("SELECT * FROM rewinds WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC").all(threadId) as RewindRow[];
  }
}
