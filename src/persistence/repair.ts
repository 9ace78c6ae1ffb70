// `deerflow doctor` and `doctor --repair` on the database file. Check: `PRAGMA quick_check`. Repair: back the file
// up (with its -wal/-shm), copy every readable row of every table into a fresh file — in rowid ranges, narrowing to
// single rows around damage, so one bad page costs only its rows — then put the fresh file in place and say, per
// thread, what survived.
import { copyFileSync, existsSync, renameSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { quickCheckProblem } from "./store.js";
import { DeerflowSqliteSaver } from "./sqlite-saver.js";
import { sqliteSchemaVersion } from "./sqlite-schema.js";

/** The tables copied, in order (run_locks is not: no run survives a repair). message_archive holds compacted
 * originals (read_history): a file from before it existed simply has none to copy. */
const TABLES = ["threads", "runs", "checkpoints", "writes", "checkpoint_blobs", "message_archive"] as const;
const OPTIONAL_TABLES: ReadonlySet<string> = new Set(["message_archive"]);
const CHUNK = 200;

export interface DatabaseCheck {
  ok: boolean;
  detail: string;
}

export function checkDatabase(path: string): DatabaseCheck {
  if (!existsSync(path)) return { ok: true, detail: `${path} does not exist yet (created on the first run)` };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const problem = quickCheckProblem(db);
    if (!problem) return { ok: true, detail: `${path} passes quick_check, schema version ${sqliteSchemaVersion(db)}` };
    return { ok: false, detail: `${path} is damaged (${problem}): run \`deerflow doctor --repair\`` };
  } catch (err) {
    return { ok: false, detail: `${path} is damaged (${(err as Error).message}): run \`deerflow doctor --repair\`` };
  } finally {
    db?.close();
  }
}

export interface ThreadRecovery {
  id: string;
  title: string | null;
  checkpoints: number;
  /** "intact": its latest checkpoint chain is complete; "partial": links are missing; "lost": nothing readable. */
  state: "intact" | "partial" | "lost";
}

export interface RepairReport {
  backup: string;
  rows: Record<string, { copied: number; unreadable: number }>;
  threads: ThreadRecovery[];
}

function tryAll<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** Copies the readable rows of `table` (by rowid ranges, then row by row where a range fails). */
function copyTable(from: Database.Database, to: Database.Database, table: string): { copied: number; unreadable: number } {
  const max = tryAll(() => (from.prepare(`SELECT MAX(rowid) AS m FROM ${table}`).get() as { m: number | null }).m ?? 0, -1);
  if (max < 0) return { copied: 0, unreadable: 1 };
  const columns = tryAll(() => (to.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name), []);
  const readable = new Set(tryAll(() => (from.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name), []));
  const cols = columns.filter((c) => readable.has(c));
  const insert = to.prepare(`INSERT OR IGNORE INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
  const range = from.prepare(`SELECT ${cols.join(", ")} FROM ${table} WHERE rowid BETWEEN ? AND ?`).raw(true);
  let copied = 0;
  let unreadable = 0;
  const put = (rows: unknown[][]) => {
    for (const r of rows) copied += insert.run(...r).changes;
  };
  for (let lo = 1; lo <= max; lo += CHUNK) {
    const hi = Math.min(max, lo + CHUNK - 1);
    try {
      put(range.all(lo, hi) as unknown[][]);
    } catch {
      for (let id = lo; id <= hi; id++) {
        try {
          put(range.all(id, id) as unknown[][]);
        } catch {
          unreadable++;
        }
      }
    }
  }
  return { copied, unreadable };
}

function hasTable(db: Database.Database, table: string): boolean {
  return tryAll(() => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined, true);
}

function threadRecovery(db: Database.Database): ThreadRecovery[] {
  const index = db.prepare("SELECT id, title FROM threads").all() as { id: string; title: string | null }[];
  const ids = new Map(index.map((t) => [t.id, t.title]));
  for (const r of db.prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''").all() as { thread_id: string }[]) if (!ids.has(r.thread_id)) ids.set(r.thread_id, null);
  return [...ids].map(([id, title]) => {
    const rows = db.prepare("SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC").all(id) as {
      checkpoint_id: string;
      parent_checkpoint_id: string | null;
    }[];
    if (rows.length === 0) return { id, title, checkpoints: 0, state: "lost" as const };
    const have = new Set(rows.map((r) => r.checkpoint_id));
    const broken = rows.some((r) => r.parent_checkpoint_id !== null && !have.has(r.parent_checkpoint_id));
    return { id, title, checkpoints: rows.length, state: broken ? ("partial" as const) : ("intact" as const) };
  });
}

export function repairDatabase(path: string): RepairReport {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const backup = `${path}.corrupt-${stamp}`;
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) copyFileSync(path + suffix, backup + suffix);
  const fresh = `${path}.repair-${process.pid}`;
  rmSync(fresh, { force: true });
  // Opening creates every table (the schema's migrations).
  const saver = DeerflowSqliteSaver.open(fresh, { channelMode: "full" });
  const rows: RepairReport["rows"] = {};
  let from: Database.Database | undefined;
  try {
    from = new Database(path, { readonly: true, fileMustExist: true });
    for (const t of TABLES) {
      if (OPTIONAL_TABLES.has(t) && !hasTable(from, t)) continue;
      rows[t] = copyTable(from, saver.db, t);
    }
  } catch {
    for (const t of TABLES) rows[t] ??= { copied: 0, unreadable: 1 };
  } finally {
    from?.close();
  }
  // No run survives the repair; threads that were working are marked so.
  saver.db.prepare("UPDATE runs SET status = 'interrupted' WHERE status IN ('pending', 'running')").run();
  saver.db.prepare("UPDATE threads SET status = 'interrupted' WHERE status IN ('pending', 'running')").run();
  const threads = threadRecovery(saver.db);
  // A thread that had run but kept no checkpoint would otherwise continue from an empty conversation, as if new.
  const markLost = saver.db.prepare("UPDATE threads SET status = 'lost' WHERE id = ? AND status <> 'idle'");
  for (const t of threads) if (t.state === "lost") markLost.run(t.id);
  saver.close();
  for (const suffix of ["-wal", "-shm"]) rmSync(path + suffix, { force: true });
  renameSync(fresh, path);
  return { backup, rows, threads };
}
