// `deerflow threads rm`: every row of a thread, in every table of the file, in one transaction. Tables are found by
// their `thread_id` column rather than listed, so data added by later features (archives, notes, rewinds) goes too.
import type Database from "better-sqlite3";
import { returnFreePages } from "./sqlite-space.js";

/** Deletes the thread's rows everywhere (the index row last, in the same transaction). Returns rows deleted per table. */
export function deleteThreadRows(db: Database.Database, threadId: string): Record<string, number> {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((t) => t.name);
  const withThread = tables.filter((t) => (db.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).some((c) => c.name === "thread_id"));
  const deleted: Record<string, number> = {};
  db.transaction(() => {
    for (const t of withThread) deleted[t] = db.prepare(`DELETE FROM "${t}" WHERE thread_id = ?`).run(threadId).changes;
    deleted.threads = db.prepare("DELETE FROM threads WHERE id = ?").run(threadId).changes;
  }).immediate();
  returnFreePages(db);
  return deleted;
}
