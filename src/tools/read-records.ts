// ReadBeforeWrite: thread + real host path → the version of the file the agent last read (or wrote): its sha256 and
// mtime. An overwrite or edit of an existing file is refused unless the agent read exactly the version on disk.
// WHY persisted with the thread: a headless continuation (`run --thread`) is a new process; a record that lived only
// in memory made it read every file again ("read … first"), costing a model turn. The records are kept in the thread's
// own data folder (`<home>/threads/<id>/read-files.json`, out of every tool's reach and deleted with the thread); a
// record only stands while the file's content hash is the one read, so a file changed since (by the user, another
// tool, a rewind) must be read again whatever the record says.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import type { ThreadPaths } from "../sandbox/provider.js";

/** The part of a tool runtime the records read (fs-common's RuntimeLike, without importing it: it re-exports this file). */
type RuntimeLike = { configurable?: Record<string, unknown>; config?: { configurable?: Record<string, unknown> } };

interface ReadRecord {
  sha256: string;
  /** The file's mtime when it was read (ms); informational: the hash decides. */
  mtime_ms: number | null;
}

/** The most records a thread keeps (the oldest go first). */
const MAX_RECORDS = 500;
const RECORDS_FILE = "read-files.json";

/** In-process records, per thread key; a thread's file is loaded into it on first use. */
const threads = new Map<string, Map<string, ReadRecord>>();

export function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The thread's key, and its records file when the thread has a data folder under the home (a real run). */
function threadOf(runtime: RuntimeLike | undefined, mounts: ThreadPaths): { key: string; file?: string } {
  const { threadId, home } = readRunConfigurable(runtime?.configurable ?? runtime?.config?.configurable);
  if (!threadId) return { key: `ws:${mounts.workspace_path}` };
  const dir = home ? join(home, "threads", threadId) : undefined;
  return { key: `thread:${threadId}`, file: dir && existsSync(dir) ? join(dir, RECORDS_FILE) : undefined };
}

function recordsOf(thread: { key: string; file?: string }): Map<string, ReadRecord> {
  let records = threads.get(thread.key);
  if (!records) {
    records = new Map(thread.file ? loadRecords(thread.file) : []);
    threads.set(thread.key, records);
  }
  return records;
}

/** A records file as entries; anything unreadable is no record (the agent reads the file again). */
function loadRecords(file: string): [string, ReadRecord][] {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, Partial<ReadRecord>>;
    return Object.entries(parsed).flatMap(([path, r]) =>
      r && typeof r.sha256 === "string" ? [[path, { sha256: r.sha256, mtime_ms: typeof r.mtime_ms === "number" ? r.mtime_ms : null }] as [string, ReadRecord]] : [],
    );
  } catch {
    return [];
  }
}

/** Written whole through a rename, so a killed process leaves the old file or the new one. Best effort. */
function saveRecords(file: string, records: Map<string, ReadRecord>): void {
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(records)), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // Not saved: the next process asks for a read again, which is what it did before records were kept.
  }
}

function mtimeOf(realPath: string): number | null {
  try {
    return statSync(realPath).mtimeMs;
  } catch {
    return null;
  }
}

export function recordRead(runtime: RuntimeLike | undefined, mounts: ThreadPaths, realPath: string, data: Buffer | string): void {
  const thread = threadOf(runtime, mounts);
  const records = recordsOf(thread);
  records.delete(realPath); // re-inserted last: the oldest record is the first dropped
  records.set(realPath, { sha256: sha256(data), mtime_ms: mtimeOf(realPath) });
  while (records.size > MAX_RECORDS) records.delete(records.keys().next().value!);
  if (thread.file) saveRecords(thread.file, records);
}

/** Throws unless the agent (in this process or an earlier run of the thread) has read exactly this version of the file. */
export function assertReadCurrent(runtime: RuntimeLike | undefined, mounts: ThreadPaths, realPath: string, current: Buffer | string, virtualPath: string): void {
  const seen = recordsOf(threadOf(runtime, mounts)).get(realPath);
  if (seen?.sha256 !== sha256(current)) {
    throw new Error(`read ${virtualPath} first: it has not been read, or it changed since you read it (use read_file, then retry).`);
  }
}

/** Forget the in-process records (tests; a thread's file is read again on next use). */
export function resetReadRecords(): void {
  threads.clear();
}
