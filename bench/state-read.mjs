// State reads and writes outside a run: what `/title`, `/goal clear`, a goal decision and a TUI resume cost on a
// thread with history. Measured through the public ChatSession API on a real SQLite file, so it shows whether each
// call reopens the store and rebuilds the lead agent's graph (it should not: the per-thread runtime keeps both).
// The baseline in the same run is one plain read of the thread's index row (the floor of any state access).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const N = Number(process.env.BENCH_STATE_CALLS ?? 20);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn) {
  const out = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return median(out);
}

export async function benchStateRead() {
  const home = mkdtempSync(join(tmpdir(), "deerflow-bench-state-"));
  const saved = { ...process.env };
  Object.assign(process.env, { DEERFLOW_HOME: home, OPENAI_API_KEY: "bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", DEERFLOW_MODEL: "bench-model" });
  try {
    const { ChatSession } = await import("../dist/runtime/chat-session.js");
    const session = new ChatSession({ cwd: home });
    await session.setTitle("warm-up"); // creates the thread
    const row = await time(() => session.threadRow());
    const title = await time((i) => session.setTitle(`title ${i}`));
    const goal = await time(async () => {
      session.goal = { objective: "bench", status: "active", continuation_count: 0 };
      await session.clearGoal();
    });
    const resume = await time(() => session.resume({ threadId: session.threadId }));
    const r = (x) => `${x.toFixed(1)} ms (${(x / row).toFixed(0)}× index row)`;
    console.log(`state reads/writes outside a run (median of ${N}; baseline: index row read ${row.toFixed(2)} ms)`);
    console.log(`  /title                ${r(title)}`);
    console.log(`  goal decision write   ${r(goal)}`);
    console.log(`  resume (state read)   ${r(resume)}`);
    session.close?.();
  } finally {
    process.env = saved;
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStateRead();
