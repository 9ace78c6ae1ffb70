// Rewinds of a thread and what they undid. A conversation rewind removes the thread's checkpoint rows stored after
// the chosen run's rollback mark (as a failed run is rolled back), but first copies them into `rewound_*` tables
// under the rewind's id, so what was rewound stays in the file until the thread is deleted and `rewind --undo` can
// put it back. The files' side is kept by the shadow repository (a ref per rewind).
// A rewind that touches files is recorded `pending` BEFORE the first file is written and marked done in the
// transaction that rewinds the conversation, so a process killed half way leaves a row saying what it was doing:
// the next command on the thread finishes it (or `--undo` puts the files back), see runtime/rewind.ts.
import Database from "better-sqlite3";
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
  /** 1 while the files are being rewound (recorded before the first is touched); 0 once the rewind is done. */
  pending: number;
  /** JSON array of the paths the user changed since deerflow last left the workspace (null: none or not known). */
  edited: string | null;
  /** 1 when `--force` rewound those edits too; 0 when they were left as they are. */
  forced: number;
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
    // Checked first without writing (a read-only file must still open), then made in one IMMEDIATE transaction: two
    // processes opening a new file at once both saw a column missing and both added it ("duplicate column name": the
    // first run of two started together on a fresh home failed).
    if (RewindLog.tablesComplete(db)) return;
    db.transaction(() => RewindLog.createTables(db)).immediate();
  }

  private static tablesComplete(db: Database.Database): boolean {
    const have = new Set(columnsOf(db, "rewinds"));
    if (!["pending", "edited", "forced"].every((c) => have.has(c))) return false;
    return ARCHIVED.every(([table]) => {
      const archived = new Set(columnsOf(db, `rewound_${table}`));
      return archived.size > 0 && columnsOf(db, table).every((c) => archived.has(c));
    });
  }

  private static createTables(db: Database.Database): void {
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
    // Added after the first release: rows from before have no pending rewind (0) and no edits recorded.
    const have = new Set(columnsOf(db, "rewinds"));
    if (!have.has("pending")) db.exec("ALTER TABLE rewinds ADD COLUMN pending INTEGER NOT NULL DEFAULT 0");
    if (!have.has("edited")) db.exec("ALTER TABLE rewinds ADD COLUMN edited TEXT");
    if (!have.has("forced")) db.exec("ALTER TABLE rewinds ADD COLUMN forced INTEGER NOT NULL DEFAULT 0");
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
      const cols = columnsOf(this.db, table)
        .filter((c) => c !== "thread_id")
        .map((c) => `"${c}"`)
        .join(", ");
      this.db
        .prepare(`INSERT INTO rewound_${table} (rewind_id, thread_id, orig_rowid, ${cols}) SELECT ?, thread_id, rowid, ${cols} FROM ${table} WHERE thread_id = ? AND rowid > ? ORDER BY rowid`)
        .run(rewindId, threadId, mark[key]);
      moved += this.db.prepare(`DELETE FROM ${table} WHERE thread_id = ? AND rowid > ?`).run(threadId, mark[key]).changes;
    }
    return moved;
  }

  /** Puts the rows archived by `rewindId` back (in their original order) and drops them from the archive. */
  restoreArchived(rewindId: string): number {
    let restored = 0;
    for (const [table] of ARCHIVED) {
      const cols = columnsOf(this.db, table)
        .map((c) => `"${c}"`)
        .join(", ");
      restored += this.db.prepare(`INSERT OR REPLACE INTO ${table} (${cols}) SELECT ${cols} FROM rewound_${table} WHERE rewind_id = ? ORDER BY orig_rowid`).run(rewindId).changes;
      this.db.prepare(`DELETE FROM rewound_${table} WHERE rewind_id = ?`).run(rewindId);
    }
    return restored;
  }

  /** Records a rewind: done (`pending` 0), or about to touch files (`pending` 1, finished by `finish`). */
  add(row: Omit<RewindRow, "undone_at">): void {
    this.db
      .prepare("INSERT INTO rewinds (id, thread_id, created_at, target_run, scope, runs, files_before, rows_archived, pending, edited, forced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(row.id, row.thread_id, row.created_at, row.target_run, row.scope, row.runs, row.files_before, row.rows_archived, row.pending, row.edited, row.forced);
  }

  /** The files of a pending rewind are all rewound (and its conversation, in the same transaction). */
  finish(id: string, rowsArchived: number): void {
    this.db.prepare("UPDATE rewinds SET pending = 0, rows_archived = ? WHERE id = ?").run(rowsArchived, id);
  }

  /** The thread's rewind whose process died while it rewound the files, if any. */
  pendingFor(threadId: string): RewindRow | undefined {
    return this.db.prepare("SELECT * FROM rewinds WHERE thread_id = ? AND pending = 1 AND undone_at IS NULL ORDER BY created_at DESC, rowid DESC").get(threadId) as RewindRow | undefined;
  }

  /** Threads with a rewind left unfinished in the database file at `path`, read without opening the store (`doctor`). */
  static threadsWithPendingIn(path: string): string[] {
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
      return (db.prepare("SELECT DISTINCT thread_id FROM rewinds WHERE pending = 1 AND undone_at IS NULL").all() as { thread_id: string }[]).map((r) => r.thread_id);
    } catch {
      // No rewinds table, or none with the column yet: nothing was left unfinished.
      return [];
    } finally {
      db?.close();
    }
  }

  /** Threads with a rewind left unfinished (`doctor`). */
  threadsWithPending(): string[] {
    return (this.db.prepare("SELECT DISTINCT thread_id FROM rewinds WHERE pending = 1 AND undone_at IS NULL").all() as { thread_id: string }[]).map((r) => r.thread_id);
  }

  /** `--undo` put it back (a pending one too: it is then no longer pending). */
  markUndone(id: string): void {
    this.db.prepare("UPDATE rewinds SET undone_at = ?, pending = 0 WHERE id = ?").run(new Date().toISOString(), id);
  }

  /** The thread's rewinds, newest first. */
  forThread(threadId: string): RewindRow[] {
    return this.db.prepare("SELECT * FROM rewinds WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC").all(threadId) as RewindRow[];
  }
}
