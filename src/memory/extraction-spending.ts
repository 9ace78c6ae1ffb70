// What memory extraction spent, per thread, until the thread's next run adds it to the thread's totals
// (`thread_usage.by_source.memory`, docs/events.md). WHY kept here and not written to the thread at once: extraction
// runs after the run ended (in a chat's background, or at the next `deerflow run` start, maybe for another thread);
// a write to that thread would need its lock, and a bookkeeping write must never make the user's next run find the
// thread busy. The next run writes it in its own state under its own lock; rows leave only once a run kept it.
import type Database from "better-sqlite3";
import { type TokenUsage, addUsage, type TokenCounts } from "../vocabulary/token-usage.js";

export const SPENDING_SCHEMA = `
CREATE TABLE IF NOT EXISTS extraction_spending (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  total_tokens INTEGER NOT NULL,
  estimated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS extraction_spending_thread ON extraction_spending (thread_id);`;

interface Row {
  id: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  estimated: number;
}

export class ExtractionSpending {
  constructor(private readonly db: Database.Database) {}

  /** One extraction call for a run of `threadId` spent `usage`. */
  record(threadId: string, usage: TokenCounts): void {
    this.db
      .prepare("INSERT INTO extraction_spending (thread_id, input_tokens, output_tokens, total_tokens, estimated) VALUES (?, ?, ?, ?, ?)")
      .run(threadId, usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.estimated ? 1 : 0);
  }

  /** What extraction spent for `threadId` and not yet counted by a run (null: nothing), and the rows to clear once it is. */
  unbilled(threadId: string): { usage: TokenUsage; ids: number[] } | null {
    const rows = this.db.prepare("SELECT id, input_tokens, output_tokens, total_tokens, estimated FROM extraction_spending WHERE thread_id = ? ORDER BY id").all(threadId) as Row[];
    if (rows.length === 0) return null;
    let usage: TokenUsage | null = null;
    for (const r of rows)
      usage = addUsage(usage, { input_tokens: r.input_tokens, output_tokens: r.output_tokens, total_tokens: r.total_tokens, ...(r.estimated ? { estimated: true } : {}) }, "memory");
    return { usage: usage!, ids: rows.map((r) => r.id) };
  }

  /** The rows a run added to its thread's totals. */
  clear(ids: readonly number[]): void {
    const del = this.db.prepare("DELETE FROM extraction_spending WHERE id = ?");
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
  }
}
