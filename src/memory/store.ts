// The memory store: facts learned across threads, per user (the data directory's memory/memory.sqlite), each
// either global (about the user) or tied to a project (a repository root or a bound workspace); and the queue of
// finished runs waiting for their facts to be extracted.
//
// WHY SQLite (its own file, not the checkpoint database): several deerflow processes (a chat and a `run` in a
// script) may finish runs and drain the queue at once; transactions make a claim, a de-duplicated insert and the
// cap one atomic step each, where JSON files would lose updates. Its own file so `deerflow memory …` opens it
// without the checkpoint store, and deleting it forgets everything without touching threads.
//
// Invariants: a fact's text passed fact-filter.ts (nothing secret-shaped is ever written, whoever calls `add`);
// (scope, project, normalized text) is unique: a fact learned twice is refreshed, not duplicated; at most
// MAX_FACTS per scope+project+status, the least recently confirmed go first (a flood of learned facts never evicts
// approved ones).
//
// Review before effect: a fact learned from a thread is "pending" and shown to no model until the user approves it
// (`deerflow memory approve`, `/memory approve`); a fact the user adds by hand is "approved" at once. A pending fact
// is shown in no thread, not even the one it was learned from: that conversation already holds what was said, and
// extraction runs after the run (often in a later process), so there is nothing to add there. What the
// reminder shows (`inEffect`) is the approved facts that still pass the CURRENT policy, so a store written before a
// rule existed (the facts the issue-26 pass planted) stops reaching the model as soon as the rule does. Facts from
// before review existed stay approved (the user saw them in /memory); the policy filter is what retires bad ones.
// Refused proposals are logged (reason, and the text unless it held a secret) for `memory pending` to show.
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { DeerflowError, ExitCode } from "../errors.js";
import { maskSecretShapes } from "../vocabulary/secret-shapes.js";
import { SECRET_REFUSAL, checkFact, cleanFact, normalizeFact } from "./fact-filter.js";
import { ExtractionSpending, SPENDING_SCHEMA } from "./extraction-spending.js";

export const MEMORY_DIR = "memory";
export const MEMORY_DB = "memory.sqlite";
/** Facts kept per scope (global, and each project). */
export const MAX_FACTS = 100;
/** A queued run is tried this many times, then dropped (a model that never answers must not block the queue). */
const MAX_ATTEMPTS = 3;
/** A queued run no start with its endpoint drained this long is dropped: its transcript goes to no other endpoint. */
export const QUEUE_MAX_AGE_MS = 30 * 24 * 3600_000;
/** A claim older than this is taken over (its process died mid-extraction). */
const STALE_CLAIM_MS = 10 * 60_000;

/** Refused proposals kept for the user to read (the newest). */
export const MAX_REFUSALS = 50;

export type FactScope = "global" | "project";
/** pending: learned, waiting for the user's review, shown to no model; approved: in effect. */
export type FactStatus = "pending" | "approved";

export interface Fact {
  id: number;
  scope: FactScope;
  /** The project key ("" for global facts). */
  project: string;
  text: string;
  created_at: string;
  updated_at: string;
  source_thread: string | null;
  status: FactStatus;
}

/** A proposed fact the policy refused: why, and its text unless it held a secret (then null). */
export interface Refusal {
  id: number;
  text: string | null;
  reason: string;
  created_at: string;
  source_thread: string | null;
}

export interface QueuedRun {
  id: number;
  thread_id: string;
  run_id: string;
  /** The project key of the run's workspace ("" when it has none). */
  project: string;
  transcript: string;
  /** Which endpoint the run talked to (config/model-endpoint.ts endpointIdentity): only that one extracts it. */
  endpoint: string;
  created_at: string;
  attempts: number;
}

export type AddOutcome = { status: "added" | "refreshed"; fact: Fact } | { status: "refused"; reason: string };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope TEXT NOT NULL CHECK (scope IN ('global', 'project')),
  project TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  norm TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  source_thread TEXT,
  status TEXT NOT NULL DEFAULT 'approved' CHECK (status IN ('pending', 'approved')),
  UNIQUE (scope, project, norm)
);
CREATE TABLE IF NOT EXISTS refusals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT,
  reason TEXT NOT NULL,
  created_at TEXT NOT NULL,
  source_thread TEXT
);
CREATE TABLE IF NOT EXISTS queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL,
  run_id TEXT NOT NULL UNIQUE,
  project TEXT NOT NULL DEFAULT '',
  transcript TEXT NOT NULL,
  endpoint TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  claimed_by TEXT,
  claimed_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0
);`;

/** Whether the process named by a claim ("<pid>:…") still runs. */
function processAlive(owner: string): boolean {
  const pid = Number(owner.split(":")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The nearest existing directory at or above `dir`, and why it cannot be written ("" when it can). */
function unwritable(dir: string): string {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return "";
  } catch (err) {
    return `${at} is not writable (${(err as NodeJS.ErrnoException).code === "EROFS" ? "a read-only file system" : "no permission"})`;
  }
}

/** One line for a store that cannot be opened: a file in the way, a home that cannot be written, a damaged file. */
function openError(path: string, dir: string, err: unknown): DeerflowError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "EEXIST" || code === "ENOTDIR") {
    return new DeerflowError(`The memory store ${path} cannot be opened: ${dir} is not a directory.`, {
      exitCode: ExitCode.runtime,
      hint: "Move that file aside; deerflow then starts a fresh memory store.",
    });
  }
  // Node reports a mkdir on a read-only file system as ENOENT; the real cause is found by asking the file system.
  const denied = unwritable(dir);
  if (denied) {
    return new DeerflowError(`The memory store cannot be created in ${dir}: ${denied}.`, {
      exitCode: ExitCode.runtime,
      hint: "Point deerflow at a writable data directory (DEERFLOW_HOME or --home), or run with --no-memory.",
    });
  }
  return new DeerflowError(`The memory store ${path} cannot be opened: ${(err as Error).message}.`, {
    exitCode: ExitCode.runtime,
    hint: "If it is damaged, move it aside: it only holds remembered facts, and deerflow starts a fresh one.",
  });
}

const stores = new Map<string, MemoryStore>();

/** The memory store of a data directory in this process (opened on first use). */
export function memoryStoreFor(home: string): MemoryStore {
  let s = stores.get(home);
  if (!s) stores.set(home, (s = new MemoryStore(home)));
  return s;
}

/** Closes every memory store of this process (the CLI's exit). */
export function closeMemoryStores(): void {
  for (const s of stores.values()) s.close();
  stores.clear();
}

const FACT_COLUMNS = "id, scope, project, text, created_at, updated_at, source_thread, status";
const QUEUE_COLUMNS = "id, thread_id, run_id, project, transcript, endpoint, created_at, attempts";
type ClaimRow = { id: number; claimed_by: string | null; claimed_at: number | null };

export class MemoryStore {
  readonly path: string;
  private readonly db: Database.Database;
  /** What extraction spent per thread, until the thread's next run counts it. */
  readonly spending: ExtractionSpending;

  constructor(home: string) {
    const dir = join(home, MEMORY_DIR);
    this.path = join(dir, MEMORY_DB);
    let db: Database.Database | undefined;
    try {
      // In the try: a `memory` that is a file, or a home that cannot be written, is said as such (not "internal error").
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      db = new Database(this.path);
      db.pragma("journal_mode = WAL");
      db.pragma("busy_timeout = 5000");
      db.exec(SCHEMA);
      db.exec(SPENDING_SCHEMA);
      // A store from before review existed: its facts were in effect, so they stay approved (see the header).
      if (!(db.pragma("table_info(facts)") as { name: string }[]).some((c) => c.name === "status")) {
        db.exec("ALTER TABLE facts ADD COLUMN status TEXT NOT NULL DEFAULT 'approved' CHECK (status IN ('pending', 'approved'))");
      }
      // A queue from before runs named their endpoint: its rows ('') match no drain and expire (QUEUE_MAX_AGE_MS).
      if (!(db.pragma("table_info(queue)") as { name: string }[]).some((c) => c.name === "endpoint")) {
        db.exec("ALTER TABLE queue ADD COLUMN endpoint TEXT NOT NULL DEFAULT ''");
      }
    } catch (err) {
      db?.close();
      throw openError(this.path, dir, err);
    }
    this.db = db;
    this.spending = new ExtractionSpending(db);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Global facts and (when given) the project's, most recently confirmed first: the approved ones unless `status`
   * says otherwise ("any": both, e.g. so the extractor does not propose a pending fact again).
   */
  list(opts: { project?: string; all?: boolean; status?: FactStatus | "any" } = {}): Fact[] {
    const status = opts.status ?? "approved";
    const where = [opts.all ? "1" : "(scope = 'global' OR (scope = 'project' AND project = @project))", status === "any" ? "1" : "status = @status"].join(" AND ");
    return this.db.prepare(`SELECT ${FACT_COLUMNS} FROM facts WHERE ${where} ORDER BY updated_at DESC, id DESC`).all({ project: opts.project ?? "\0none", status }) as Fact[];
  }

  /** The facts a thread's reminder shows: approved, and still passing the current policy (see the header). */
  inEffect(project?: string): Fact[] {
    return this.list({ project }).filter((f) => !("reason" in checkFact(f.text)));
  }

  get(id: number): Fact | undefined {
    return this.db.prepare(`SELECT ${FACT_COLUMNS} FROM facts WHERE id = ?`).get(id) as Fact | undefined;
  }

  /**
   * Adds a fact (checked and cleaned first): "approved" (the user's own, the default) or "pending" (learned). The
   * same fact again only refreshes it, and the user adding a pending fact by hand approves it. Keeps the cap.
   */
  add(input: { scope: FactScope; project?: string; text: string; sourceThread?: string; status?: FactStatus }, now = new Date()): AddOutcome {
    const checked = checkFact(input.text);
    if ("reason" in checked) return { status: "refused", reason: checked.reason };
    const project = input.scope === "project" ? (input.project ?? "") : "";
    if (input.scope === "project" && !project) return { status: "refused", reason: "a project fact needs a project" };
    const status = input.status ?? "approved";
    const norm = normalizeFact(checked.text);
    const at = now.toISOString();
    return this.db.transaction((): AddOutcome => {
      const existing = this.db.prepare("SELECT id FROM facts WHERE scope = ? AND project = ? AND norm = ?").get(input.scope, project, norm) as { id: number } | undefined;
      if (existing) {
        this.db.prepare(`UPDATE facts SET updated_at = ?${status === "approved" ? ", status = 'approved'" : ""} WHERE id = ?`).run(at, existing.id);
        return { status: "refreshed", fact: this.get(existing.id)! };
      }
      const r = this.db
        .prepare("INSERT INTO facts (scope, project, text, norm, created_at, updated_at, source_thread, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .run(input.scope, project, checked.text, norm, at, at, input.sourceThread ?? null, status);
      // The cap: the least recently confirmed facts of this scope and status go.
      this.db
        .prepare(
          "DELETE FROM facts WHERE scope = @scope AND project = @project AND status = @status AND id NOT IN (SELECT id FROM facts WHERE scope = @scope AND project = @project AND status = @status ORDER BY updated_at DESC, id DESC LIMIT @max)",
        )
        .run({ scope: input.scope, project, status, max: MAX_FACTS });
      return { status: "added", fact: this.get(Number(r.lastInsertRowid))! };
    })();
  }

  /** Replaces a fact's text (checked like a new one; the user wrote it, so it is approved). */
  edit(id: number, text: string, now = new Date()): AddOutcome {
    const old = this.get(id);
    if (!old) return { status: "refused", reason: `there is no fact #${id}` };
    const checked = checkFact(text);
    if ("reason" in checked) return { status: "refused", reason: checked.reason };
    return this.db.transaction((): AddOutcome => {
      this.db.prepare("DELETE FROM facts WHERE id = ?").run(id);
      const added = this.add({ scope: old.scope, project: old.project, text: checked.text, sourceThread: old.source_thread ?? undefined }, now);
      return added;
    })();
  }

  /**
   * The user approves pending facts: each is checked again (the policy may be newer than the fact) and takes
   * effect in new threads. Ids that are not pending are returned as `missing` and nothing is changed for them.
   */
  approve(ids: number[]): { approved: Fact[]; refused: { fact: Fact; reason: string }[]; missing: number[] } {
    const out = { approved: [] as Fact[], refused: [] as { fact: Fact; reason: string }[], missing: [] as number[] };
    this.db.transaction(() => {
      for (const id of ids) {
        const f = this.get(id);
        if (!f || f.status !== "pending") {
          out.missing.push(id);
          continue;
        }
        const checked = checkFact(f.text);
        if ("reason" in checked) {
          this.db.prepare("DELETE FROM facts WHERE id = ?").run(id);
          out.refused.push({ fact: f, reason: checked.reason });
          continue;
        }
        this.db.prepare("UPDATE facts SET status = 'approved' WHERE id = ?").run(id);
        out.approved.push({ ...f, status: "approved" });
      }
    })();
    return out;
  }

  /** The user rejects pending facts: they are forgotten. Returns the rejected ones (approved facts are untouched). */
  reject(ids: number[]): Fact[] {
    const del = this.db.prepare("DELETE FROM facts WHERE id = ? AND status = 'pending'");
    return this.db.transaction(() =>
      ids.flatMap((id) => {
        const f = this.get(id);
        return f && del.run(id).changes ? [f] : [];
      }),
    )();
  }

  /**
   * Logs a refused proposal. Its text is kept (cleaned, secret shapes masked) so the user sees what was refused,
   * except when it held a secret or personal data (`withhold`): then only the reason.
   */
  recordRefusal(input: { text: string; reason: string; sourceThread?: string; withhold?: boolean }, now = new Date()): void {
    const withhold = input.withhold || input.reason === SECRET_REFUSAL;
    this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO refusals (text, reason, created_at, source_thread) VALUES (?, ?, ?, ?)")
        .run(withhold ? null : maskSecretShapes(cleanFact(input.text)).slice(0, 300), input.reason, now.toISOString(), input.sourceThread ?? null);
      this.db.prepare("DELETE FROM refusals WHERE id NOT IN (SELECT id FROM refusals ORDER BY id DESC LIMIT ?)").run(MAX_REFUSALS);
    })();
  }

  /** The refused proposals kept, newest first. */
  refusals(): Refusal[] {
    return this.db.prepare("SELECT id, text, reason, created_at, source_thread FROM refusals ORDER BY id DESC").all() as Refusal[];
  }

  /** Forgets facts by id; returns how many went. */
  forget(ids: number[]): number {
    const del = this.db.prepare("DELETE FROM facts WHERE id = ?");
    return this.db.transaction(() => ids.reduce((n, id) => n + del.run(id).changes, 0))();
  }

  /** Forgets every fact (of one project, or global, or all when no scope is given). */
  clear(sel: { scope?: FactScope; project?: string } = {}): number {
    if (!sel.scope) return this.db.prepare("DELETE FROM facts").run().changes;
    return this.db.prepare("DELETE FROM facts WHERE scope = ? AND project = ?").run(sel.scope, sel.scope === "project" ? (sel.project ?? "") : "").changes;
  }

  // ---------------------------------------------------------------------------------------------
  // The queue

  /**
   * A finished run waits for extraction (one row per run: a repeated enqueue of the same run is ignored), by the
   * endpoint it talked to only: a run made with a local model is never read by a cloud one (the eighteenth pass's MX1).
   */
  enqueue(item: { threadId: string; runId: string; project: string; transcript: string; endpoint: string }, now = new Date()): void {
    this.db
      .prepare("INSERT OR IGNORE INTO queue (thread_id, run_id, project, transcript, endpoint, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(item.threadId, item.runId, item.project, item.transcript, item.endpoint, now.toISOString());
  }

  /** The runs waiting for extraction (all, or those of one endpoint); facts waiting for review are `list({ status: "pending" })`. */
  pending(endpoint?: string): QueuedRun[] {
    const where = endpoint === undefined ? "" : "WHERE endpoint = ?";
    return this.db.prepare(`SELECT ${QUEUE_COLUMNS} FROM queue ${where} ORDER BY id`).all(...(endpoint === undefined ? [] : [endpoint])) as QueuedRun[];
  }

  /**
   * Takes the oldest run of `endpoint` nobody works on, for `owner` ("<pid>:<tag>"); a claim whose process is gone,
   * or that is older than STALE_CLAIM_MS, is taken over. Runs older than QUEUE_MAX_AGE_MS (of any endpoint) are
   * dropped first. Undefined when nothing is left.
   */
  claim(owner: string, endpoint: string, nowMs = Date.now()): QueuedRun | undefined {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM queue WHERE created_at < ?").run(new Date(nowMs - QUEUE_MAX_AGE_MS).toISOString());
      const rows = this.db.prepare("SELECT id, claimed_by, claimed_at FROM queue WHERE endpoint = ? ORDER BY id").all(endpoint) as ClaimRow[];
      const free = rows.find((r) => r.claimed_by === null || (r.claimed_at ?? 0) < nowMs - STALE_CLAIM_MS || !processAlive(r.claimed_by));
      const row = free ? (this.db.prepare(`SELECT ${QUEUE_COLUMNS} FROM queue WHERE id = ?`).get(free.id) as QueuedRun) : undefined;
      if (row) this.db.prepare("UPDATE queue SET claimed_by = ?, claimed_at = ?, attempts = attempts + 1 WHERE id = ?").run(owner, nowMs, row.id);
      return row;
    })();
  }

  /** The run's facts are written: it leaves the queue. */
  done(id: number): void {
    this.db.prepare("DELETE FROM queue WHERE id = ?").run(id);
  }

  /** The extraction did not finish (aborted, failed): back in the queue, or dropped after MAX_ATTEMPTS. */
  release(id: number, opts: { countAttempt: boolean }): void {
    if (!opts.countAttempt) this.db.prepare("UPDATE queue SET attempts = MAX(0, attempts - 1) WHERE id = ?").run(id);
    this.db.prepare("DELETE FROM queue WHERE id = ? AND attempts >= ?").run(id, MAX_ATTEMPTS);
    this.db.prepare("UPDATE queue SET claimed_by = NULL, claimed_at = NULL WHERE id = ?").run(id);
  }
}
