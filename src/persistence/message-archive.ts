// The message archive: what compaction removes from a thread's messages, one row per message, by thread and by the
// checkpoint the compaction started from. It lives in the same SQLite file as the checkpoints (its table is made
// by the schema's migrations on open), so `read_history` can read originals back after any number of compactions.
// Writes are idempotent by (thread, message id): a compaction killed before its checkpoint was written archives the
// same messages again on the retry, never twice.
import type Database from "better-sqlite3";
import { archiveText, packText } from "./value-compression.js";

export interface ArchivedMessage {
  /** 1-based position in the thread's archive (stable: the order in which messages were archived). */
  seq: number;
  message_id: string;
  checkpoint_id: string | null;
  role: string;
  /** Tool name (tool results) or the names of the calls (AI messages), for search and display. */
  name: string | null;
  text: string;
  archived_at: string;
}

export interface ArchiveInput {
  message_id: string;
  role: string;
  name?: string | null;
  text: string;
}

/**
 * What the summarization middleware and read_history need (callers await: the team database's archive answers
 * later); an in-memory one serves agents without a store.
 */
export interface MessageArchiveLike {
  put(threadId: string, checkpointId: string | null, messages: readonly ArchiveInput[]): { from: number; to: number; count: number } | Promise<{ from: number; to: number; count: number }>;
  range(threadId: string, from: number, to: number): ArchivedMessage[] | Promise<ArchivedMessage[]>;
  search(threadId: string, query: string, limit: number): ArchivedMessage[] | Promise<ArchivedMessage[]>;
  count(threadId: string): number | Promise<number>;
}

export class MessageArchive implements MessageArchiveLike {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    // The search reads texts stored deflated (value-compression.ts) through this.
    db.function("archive_text", { deterministic: true }, (v: unknown) => archiveText(v as string | Uint8Array | null));
  }

  put(threadId: string, checkpointId: string | null, messages: readonly ArchiveInput[]): { from: number; to: number; count: number } {
    const tx = this.db.transaction(() => {
      const known = this.db.prepare("SELECT seq FROM message_archive WHERE thread_id = ? AND message_id = ?");
      const insert = this.db.prepare("INSERT INTO message_archive (thread_id, seq, message_id, checkpoint_id, role, name, text, archived_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      let next = this.count(threadId) + 1;
      let from = Number.POSITIVE_INFINITY;
      let to = 0;
      const now = new Date().toISOString();
      for (const m of messages) {
        const row = known.get(threadId, m.message_id) as { seq: number } | undefined;
        const seq = row?.seq ?? next++;
        if (!row) insert.run(threadId, seq, m.message_id, checkpointId, m.role, m.name ?? null, packText(m.text), now);
        from = Math.min(from, seq);
        to = Math.max(to, seq);
      }
      return { from: Number.isFinite(from) ? from : 0, to, count: messages.length };
    });
    return tx();
  }

  range(threadId: string, from: number, to: number): ArchivedMessage[] {
    return (this.db.prepare("SELECT * FROM message_archive WHERE thread_id = ? AND seq BETWEEN ? AND ? ORDER BY seq").all(threadId, from, to) as ArchivedMessage[]).map(unpacked);
  }

  search(threadId: string, query: string, limit: number): ArchivedMessage[] {
    const like = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (
      this.db
        .prepare("SELECT * FROM message_archive WHERE thread_id = ? AND (archive_text(text) LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\') ORDER BY seq LIMIT ?")
        .all(threadId, like, like, limit) as ArchivedMessage[]
    ).map(unpacked);
  }

  count(threadId: string): number {
    const row = this.db.prepare("SELECT MAX(seq) AS n FROM message_archive WHERE thread_id = ?").get(threadId) as { n: number | null };
    return row.n ?? 0;
  }
}

const unpacked = (row: ArchivedMessage): ArchivedMessage => ({ ...row, text: archiveText(row.text as string | Uint8Array) });

/** The archive of an agent without a SQLite store (library use without a checkpointer): it lives as long as the process. */
export class MemoryArchive implements MessageArchiveLike {
  private readonly rows = new Map<string, ArchivedMessage[]>();

  put(threadId: string, checkpointId: string | null, messages: readonly ArchiveInput[]) {
    const list = this.rows.get(threadId) ?? [];
    this.rows.set(threadId, list);
    let from = Number.POSITIVE_INFINITY;
    let to = 0;
    for (const m of messages) {
      let row = list.find((r) => r.message_id === m.message_id);
      if (!row) {
        row = { seq: list.length + 1, message_id: m.message_id, checkpoint_id: checkpointId, role: m.role, name: m.name ?? null, text: m.text, archived_at: new Date().toISOString() };
        list.push(row);
      }
      from = Math.min(from, row.seq);
      to = Math.max(to, row.seq);
    }
    return { from: Number.isFinite(from) ? from : 0, to, count: messages.length };
  }

  range(threadId: string, from: number, to: number) {
    return (this.rows.get(threadId) ?? []).filter((r) => r.seq >= from && r.seq <= to);
  }

  search(threadId: string, query: string, limit: number) {
    const q = query.toLowerCase();
    return (this.rows.get(threadId) ?? []).filter((r) => r.text.toLowerCase().includes(q) || (r.name ?? "").toLowerCase().includes(q)).slice(0, limit);
  }

  count(threadId: string) {
    return this.rows.get(threadId)?.length ?? 0;
  }
}
