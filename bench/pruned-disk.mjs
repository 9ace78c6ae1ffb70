// Pages that pruning frees, on disk: a thread of BENCH_DISK_TURNS turns (default 41) with 6 KB answers built through
// deerflow's runtime in-process; the answers are slices of this repository's sources (delta checkpoints, step checkpoints pruned after each run). Reports the home's
// deerflow.sqlite plus its -wal while the store is still open and after it is closed, the bytes its live pages hold
// (dbstat), and the pages left free. Usage: npm run build && node bench/pruned-disk.mjs (BENCH_DISK_KEEP=1 keeps the
// home and prints where it is, to look inside the file). The baseline in the same run is the live bytes: on disk / live
// is what pages left empty or free cost (2.35x before the file gave them back: 2.30 MB for 0.98 MB).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { startModelServer } from "./loop/model-server.mjs";

const TURNS = Number(process.env.BENCH_DISK_TURNS ?? 41);
const ANSWER = Number(process.env.BENCH_DISK_ANSWER_BYTES ?? 6 * 1024);
const LIMIT_MB = 1;

/** Answers cut from this repository's own sources, one slice per turn: text that deflates as real answers do. */
function realText() {
  const dir = new URL("../src/", import.meta.url);
  const files = readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(".ts"))
    .sort();
  const text = files.map((f) => readFileSync(new URL(f, dir), "utf8")).join("\n");
  return (n, bytes) => text.slice((n * bytes) % (text.length - bytes), ((n * bytes) % (text.length - bytes)) + bytes);
}

const size = (p) => (existsSync(p) ? statSync(p).size : 0);
const mb = (b) => `${(b / 1024 / 1024).toFixed(2)} MB`;

/** What the file holds: bytes in its used pages, its free pages, its auto_vacuum mode. */
function inside(path) {
  const db = new Database(path, { readonly: true });
  try {
    const used = db.prepare("SELECT SUM(pgsize - unused) AS b FROM dbstat").get().b;
    return { used, free: db.pragma("freelist_count", { simple: true }), autoVacuum: db.pragma("auto_vacuum", { simple: true }) };
  } finally {
    db.close();
  }
}

/** Both shapes: what pruning leaves (compaction off: the ≤ 1 MB bound), and the default, where a 32k window compacts
 *  this thread and its originals are archived for read_history. */
export async function benchPrunedDisk() {
  await benchPrunedDiskOnce({ compaction: false });
  await benchPrunedDiskOnce({ compaction: true });
}

async function benchPrunedDiskOnce({ compaction }) {
  const server = await startModelServer({ steps: 1, answerBytes: ANSWER, answer: realText() });
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-disk-"));
  const saved = { ...process.env };
  try {
    const home = join(root, "deerflow-home");
    const cwd = join(root, "user", "project");
    mkdirSync(cwd, { recursive: true });
    if (!compaction) writeFileSync(join(cwd, ".deerflowrc"), JSON.stringify({ compaction: { enabled: false } }));
    Object.assign(process.env, { HOME: join(root, "user"), DEERFLOW_HOME: home, DEERFLOW_MODEL: "bench-model", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-bench-not-used" });
    const { loadConfig, requireModel } = await import("../dist/config/load.js");
    const { runThread } = await import("../dist/runtime/run-thread.js");
    const { closeShellSessions } = await import("../dist/sandbox/run-shell.js");
    const { ThreadRuntime } = await import("../dist/runtime/thread-runtime.js");
    const config = loadConfig({ cwd, flags: { defaultApproval: "auto-edit", noMemory: true } });
    const model = requireModel(config);
    let threadId;
    for (let i = 0; i < TURNS; i++) {
      const r = await runThread({ config, model, prompt: `turn ${i}: answer in about six kilobytes`, threadId });
      if (r.status !== "success") throw new Error(`turn ${i} ended ${r.status}`);
      threadId = r.thread_id;
    }
    const file = join(home, "deerflow.sqlite");
    const open = { db: size(file), wal: size(`${file}-wal`) };
    await closeShellSessions();
    await ThreadRuntime.closeAll();
    const closed = { db: size(file), wal: size(`${file}-wal`) };
    const { used, free, autoVacuum } = inside(file);
    const total = open.db + open.wal;
    console.log(`\n## Pruned thread on disk: ${TURNS} turns with ${ANSWER / 1024} KB answers (delta checkpoints, pruned, compaction ${compaction ? "on (default; originals archived)" : "off"})`);
    console.log(`| | deerflow.sqlite | -wal | sum |`);
    console.log(`|---|---|---|---|`);
    console.log(`| store open (after the last run) | ${mb(open.db)} | ${mb(open.wal)} | ${mb(total)} |`);
    console.log(`| store closed | ${mb(closed.db)} | ${mb(closed.wal)} | ${mb(closed.db + closed.wal)} |`);
    console.log(`live bytes in used pages: ${mb(used)}; free pages: ${free}; auto_vacuum: ${["none", "full", "incremental"][autoVacuum]}`);
    console.log(`on disk / live bytes: ${(total / used).toFixed(2)}x`);
    console.log(`on disk (open, with the WAL) ≤ ${LIMIT_MB} MB: ${total <= LIMIT_MB * 1024 * 1024 ? "yes" : "NO"}${compaction ? " (the bound is for compaction off)" : ""}`);
    return { open, closed, used, free };
  } finally {
    process.env = saved;
    await server.close();
    if (process.env.BENCH_DISK_KEEP) console.log(`kept: ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPrunedDisk();
