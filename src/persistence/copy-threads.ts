// `deerflow db migrate`: every thread of a home's SQLite file copied into a team database, each verified by reading
// it back. Checkpoints go through the savers (LangGraph's own `list` / `put` / `putWrites`, so blobs, versions,
// modes and pending-write order are re-encoded by the target exactly as if the thread had run there); the thread's
// row, runs and archived messages follow. A thread the target already holds is skipped, so a re-run finishes the job.
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { SqliteStore, Store } from "./store.js";

export interface CopyReport {
  copied: string[];
  skipped: string[];
  checkpoints: number;
}

/** Oldest first, every namespace: the order `put` needs (a parent before its children). */
async function tuplesOf(store: Store, threadId: string): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of store.saver.list({ configurable: { thread_id: threadId } })) out.push(t);
  return out.reverse();
}

async function copyCheckpoints(from: Store, to: Store, threadId: string): Promise<number> {
  const tuples = await tuplesOf(from, threadId);
  for (const t of tuples) {
    const { checkpoint_ns = "", checkpoint_id } = (t.config.configurable ?? {}) as { checkpoint_ns?: string; checkpoint_id: string };
    const parent = (t.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? undefined;
    // Every channel value the checkpoint carries is stored at its version (a delta step carries none).
    const versions = Object.fromEntries(
      Object.keys(t.checkpoint.channel_values ?? {})
        .map((ch) => [ch, t.checkpoint.channel_versions[ch]!])
        .filter(([, v]) => v !== undefined),
    );
    await to.saver.put({ configurable: { thread_id: threadId, checkpoint_ns, checkpoint_id: parent } }, t.checkpoint, t.metadata ?? ({} as never), versions);
    // Pending writes grouped by task, in the order they were read (writesSortKey order): idx is their position.
    const byTask = new Map<string, [string, unknown][]>();
    for (const [taskId, channel, value] of t.pendingWrites ?? []) {
      const list = byTask.get(taskId) ?? [];
      list.push([channel, value]);
      byTask.set(taskId, list);
    }
    for (const [taskId, writes] of byTask) await to.saver.putWrites({ configurable: { thread_id: threadId, checkpoint_ns, checkpoint_id } }, writes, taskId);
  }
  return tuples.length;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The thread reads back the same from both: every checkpoint's values, metadata and pending writes. */
async function verify(from: Store, to: Store, threadId: string): Promise<void> {
  const [a, b] = [await tuplesOf(from, threadId), await tuplesOf(to, threadId)];
  // Key order is not data (PostgreSQL's jsonb keeps keys sorted its own way): compare with sorted keys.
  const shape = (ts: CheckpointTuple[]) => canonical(ts.map((t) => [t.config.configurable?.checkpoint_id, t.checkpoint.channel_values, t.metadata, t.pendingWrites]));
  if (a.length !== b.length || shape(a) !== shape(b)) throw new Error(`thread ${threadId} did not read back the same from the team database`);
}

/** Copies the threads saved in the stores' channel mode (both must be opened in it: the gate refuses the other). */
export async function copyThreads(from: SqliteStore, to: Store, report: CopyReport = { copied: [], skipped: [], checkpoints: 0 }): Promise<CopyReport> {
  for (const row of from.threads.list(1_000_000).reverse()) {
    if (row.mode !== from.saver.channelMode) continue;
    if (await to.threads.get(row.id)) {
      report.skipped.push(row.id);
      continue;
    }
    // Not listed there, but a copy killed half-way (kill -9, the connection cut) may have left its rows: copied
    // again from scratch, so the re-run finishes the job instead of tripping over them.
    await to.deleteThreadRows(row.id);
    report.checkpoints += await copyCheckpoints(from, to, row.id);
    for (const run of from.runs.forThread(row.id)) {
      // Rollback marks are positions in the SQLite file: meaningless there, so not copied.
      await to.runs.create(run.id, run.thread_id);
      await to.runs.finish(run.id, {
        status: run.status === "running" || run.status === "pending" ? "interrupted" : run.status,
        stop_reason: run.stop_reason,
        input_tokens: run.input_tokens,
        output_tokens: run.output_tokens,
        error: run.error,
      });
    }
    const archived = from.archive.range(row.id, 1, Number.MAX_SAFE_INTEGER) as Awaited<ReturnType<Store["archive"]["range"]>>;
    if (archived.length > 0)
      await to.archive.put(
        row.id,
        archived[0]!.checkpoint_id,
        archived.map((m) => ({ message_id: m.message_id, role: m.role, name: m.name, text: m.text })),
      );
    await verify(from, to, row.id);
    // The index row last: a thread is listed on the team database only once all of it is there.
    await to.threads.create({ id: row.id, workspace: row.workspace, mode: row.mode, title: row.title });
    await to.threads.update(row.id, { status: row.status === "running" || row.status === "pending" ? "interrupted" : row.status });
    report.copied.push(row.id);
  }
  return report;
}
