// The SQLite file's schema is created and migrated on open through the version table, as on a team database: a new
// file gets every table at the latest version; a file from before the version table (tables missing the columns
// later versions added ad hoc) is brought up to it with its rows kept; a file written by a newer deerflow is refused.
import { readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DeerflowSqliteSaver } from "../../src/persistence/sqlite-saver.js";
import { SQLITE_MIGRATIONS, sqliteSchemaVersion } from "../../src/persistence/sqlite-schema.js";
import { openSqliteStore } from "../../src/persistence/store.js";
import { tempDir } from "./helpers.js";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function home(): string {
  const t = tempDir("deerflow-schema-");
  cleanups.push(t.cleanup);
  return t.dir;
}
const columns = (db: Database.Database, table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

describe("the SQLite schema's migrations", () => {
  it("a new file is created at the latest version, recorded once however often it is opened", () => {
    const dir = home();
    for (let i = 0; i < 2; i++) openSqliteStore(dir, "full").close();
    const db = new Database(join(dir, "deerflow.sqlite"));
    expect(sqliteSchemaVersion(db)).toBe(SQLITE_MIGRATIONS.length);
    expect((db.prepare("SELECT COUNT(*) AS n FROM deerflow_schema_version").get() as { n: number }).n).toBe(SQLITE_MIGRATIONS.length);
    for (const t of ["checkpoints", "writes", "checkpoint_blobs", "threads", "runs", "run_locks", "message_archive"]) expect(columns(db, t).length).toBeGreaterThan(0);
    db.close();
  });

  it("a file from before the version table gets the columns it lacks, keeping its rows", () => {
    const dir = home();
    const old = new Database(join(dir, "deerflow.sqlite"));
    // The tables as the first releases made them (the stock saver's writes; no host, mark, snapshot, pid_start).
    old.exec(`CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
      CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'idle', workspace TEXT, mode TEXT NOT NULL DEFAULT 'full');
      CREATE TABLE runs (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL, stop_reason TEXT, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0, started_at TEXT NOT NULL, ended_at TEXT, error TEXT);
      CREATE TABLE run_locks (thread_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, started_at TEXT NOT NULL);
      INSERT INTO threads VALUES ('t-old', 'Old thread', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 'success', NULL, 'full');
      INSERT INTO runs VALUES ('r-old', 't-old', 'success', 'end_turn', 5, 7, '2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z', NULL);`);
    old.close();

    const store = openSqliteStore(dir, "full");
    expect(store.threads.get("t-old")).toMatchObject({ title: "Old thread", status: "success", host: null });
    expect(store.runs.get("r-old")).toMatchObject({ status: "success", output_tokens: 7, mark: null, snapshot: null, rewound_by: null });
    // The new columns work: a lock with its process start, a thread with its host.
    store.threads.update("t-old", { host: "here" });
    expect(store.runs.acquire("t-old", "r-new")).toEqual({ ok: true });
    expect(columns(store.sqlite, "writes")).toContain("task_path");
    expect(columns(store.sqlite, "run_locks")).toContain("pid_start");
    expect(sqliteSchemaVersion(store.sqlite)).toBe(SQLITE_MIGRATIONS.length);
    store.close();
  });

  it("a file written by a newer deerflow is refused in one line naming it, not opened", () => {
    const dir = home();
    openSqliteStore(dir, "full").close();
    const db = new Database(join(dir, "deerflow.sqlite"));
    db.prepare("INSERT INTO deerflow_schema_version (v) VALUES (999)").run();
    db.close();
    expect(() => openSqliteStore(dir, "full")).toThrow(
      new RegExp(`${join(dir, "deerflow.sqlite").replace(/[.]/g, "\\.")} holds deerflow schema version 999, newer than this deerflow knows \\(${SQLITE_MIGRATIONS.length}\\)`),
    );
  });

  it("a file the saver refuses is not left open (its handle, WAL and locks go with the error)", () => {
    const dir = home();
    const file = join(dir, "deerflow.sqlite");
    writeFileSync(file, "not a database ".repeat(512));
    const handles = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(file);
        } catch {
          return false; // the fd readdir itself used, closed already
        }
      }).length;
    expect(() => DeerflowSqliteSaver.open(file)).toThrow(/not a database/);
    expect(handles()).toBe(0);
  });
});
