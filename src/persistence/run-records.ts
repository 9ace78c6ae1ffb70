// Runs and the one-active-run-per-thread lock, in the same SQLite file as the checkpoints so every process sees
// them. A lock whose process is gone (killed, crashed) is stale and is taken over; a live one refuses the run.
import { readFileSync } from "node:fs";
import type Database from "better-sqlite3";

import type { RunStatus } from "../vocabulary/statuses.js";
import { machineName as hostname } from "./machine.js";

export interface RunRecord {
  id: string;
  thread_id: string;
  status: RunStatus;
  stop_reason: string | null;
  input_tokens: number;
  output_tokens: number;
  started_at: string;
  ended_at: string | null;
  error: string | null;
  /** JSON of the saver's rollback mark taken when the run started (what a failed run is rolled back to). */
  mark: string | null;
  /** The shadow repository's commit of the workspace's files before the run (null: not recorded, e.g. no git). */
  snapshot: string | null;
  /** The first line of the run's input, for `/rewind`'s list (null for goal continuations and older runs). */
  input: string | null;
  /** The rewind that undid this run (it no longer counts as part of the thread). */
  rewound_by: string | null;
}

export interface RunLock {
  thread_id: string;
  run_id: string;
  pid: number;
  host: string;
  started_at: string;
  /** When the holding process started (Linux: /proc/<pid>/stat starttime), so a reused pid is not taken for it. */
  pid_start: string | null;
}

/** The start time of process `pid` (clock ticks since boot, from /proc), or undefined where /proc has none. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) is in parentheses and may hold spaces, so count from its end.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** The lock's process still runs: its pid is alive and, where recorded, started when the lock's holder did. */
function holderAlive(lock: Pick<RunLock, "pid" | "pid_start">): boolean {
  try {
    process.kill(lock.pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const start = lock.pid_start ? processStart(lock.pid) : undefined;
  return start === undefined || start === lock.pid_start;
}

export class RunRecords {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** The lock of a thread whose process is gone (killed, crashed), if any. */
  staleLocks(): RunLock[] {
    const locks = this.db.prepare("SELECT * FROM run_locks").all() as RunLock[];
    return locks.filter((l) => l.host === hostname() && l.pid !== process.pid && !holderAlive(l));
  }

  /**
   * Ends the runs whose process died without finishing them: each becomes `interrupted` (its work is kept, as after
   * Ctrl+C) and its lock is dropped. Returns the threads they were on.
   */
  reapStale(): void {
    const reap = this.db.transaction(() => {
      for (const l of this.staleLocks()) this.db.prepare("DELETE FROM run_locks WHERE thread_id = ? AND run_id = ?").run(l.thread_id, l.run_id);
      // Whatever is still pending/running without a lock had its process die under it.
      const now = new Date().toISOString();
      this.db
        .prepare(
          "UPDATE runs SET status = 'interrupted', stop_reason = 'interrupted', ended_at = ?, error = 'the process running it died' WHERE status IN ('pending', 'running') AND thread_id NOT IN (SELECT thread_id FROM run_locks)",
        )
        .run(now);
      this.db.prepare("UPDATE threads SET status = 'interrupted', updated_at = ? WHERE status IN ('pending', 'running') AND id NOT IN (SELECT thread_id FROM run_locks)").run(now);
    });
    reap.immediate();
  }

  /**
   * Take the thread's lock for `runId`, or return the live lock that holds it. Check and take happen in one
   * IMMEDIATE transaction, so two processes can never both win.
   */
  acquire(threadId: string, runId: string): { ok: true } | { ok: false; holder: RunLock } {
    const take = this.db.transaction(() => {
      const held = this.db.prepare("SELECT * FROM run_locks WHERE thread_id = ?").get(threadId) as RunLock | undefined;
      if (held && held.host === hostname() && holderAlive(held) && held.pid !== process.pid) return { ok: false as const, holder: held };
      if (held) {
        // Stale: the process that held it is gone; its run did not finish.
        this.db
          .prepare("UPDATE runs SET status = 'interrupted', ended_at = ?, error = 'the process running it died' WHERE id = ? AND status IN ('pending', 'running')")
          .run(new Date().toISOString(), held.run_id);
      }
      this.db
        .prepare("INSERT OR REPLACE INTO run_locks (thread_id, run_id, pid, host, started_at, pid_start) VALUES (?, ?, ?, ?, ?, ?)")
        .run(threadId, runId, process.pid, hostname(), new Date().toISOString(), processStart(process.pid) ?? null);
      return { ok: true as const };
    });
    return take.immediate();
  }

  release(threadId: string, runId: string): void {
    this.db.prepare("DELETE FROM run_locks WHERE thread_id = ? AND run_id = ?").run(threadId, runId);
  }

  /** A new run, `pending` until it holds the thread's lock. */
  create(id: string, threadId: string): void {
    this.db.prepare("INSERT INTO runs (id, thread_id, status, started_at) VALUES (?, ?, 'pending', ?)").run(id, threadId, new Date().toISOString());
  }

  /** The run holds the lock and works; `mark` is what a failure rolls back to; `input` its first line, for rewind. */
  start(id: string, mark: unknown, input?: string | null): void {
    this.db.prepare("UPDATE runs SET status = 'running', mark = ?, input = ? WHERE id = ?").run(JSON.stringify(mark), input ?? null, id);
  }

  /** The shadow repository's commit of the workspace before the run. */
  setSnapshot(id: string, commit: string): void {
    this.db.prepare("UPDATE runs SET snapshot = ? WHERE id = ?").run(commit, id);
  }

  /** The runs a rewind can go back over: started (they have a mark) and not undone by an earlier rewind; oldest first. */
  rewindable(threadId: string): RunRecord[] {
    return this.forThread(threadId).filter((r) => r.mark !== null && r.rewound_by === null);
  }

  markRewound(ids: readonly string[], rewindId: string): void {
    const stmt = this.db.prepare("UPDATE runs SET rewound_by = ? WHERE id = ?");
    for (const id of ids) stmt.run(rewindId, id);
  }

  /** `rewind --undo`: the runs a rewind undid count again. */
  clearRewound(rewindId: string): void {
    this.db.prepare("UPDATE runs SET rewound_by = NULL WHERE rewound_by = ?").run(rewindId);
  }

  /** `threads rm`: the thread's runs and its lock go (the caller holds the lock). */
  deleteThread(threadId: string): void {
    this.db.prepare("DELETE FROM runs WHERE thread_id = ?").run(threadId);
    this.db.prepare("DELETE FROM run_locks WHERE thread_id = ?").run(threadId);
  }

  finish(id: string, r: { status: RunStatus; stop_reason?: string | null; input_tokens?: number; output_tokens?: number; error?: string | null }): void {
    this.db
      .prepare("UPDATE runs SET status = ?, stop_reason = ?, input_tokens = ?, output_tokens = ?, error = ?, ended_at = ? WHERE id = ?")
      .run(r.status, r.stop_reason ?? null, r.input_tokens ?? 0, r.output_tokens ?? 0, r.error ?? null, new Date().toISOString(), id);
  }

  get(id: string): RunRecord | undefined {
    return this.db.prepare("SELECT * FROM runs WHERE id = ?").get(id) as RunRecord | undefined;
  }

  forThread(threadId: string): RunRecord[] {
    return this.db.prepare("SELECT * FROM runs WHERE thread_id = ? ORDER BY started_at, rowid").all(threadId) as RunRecord[];
  }
}
