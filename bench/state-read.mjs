// State reads and writes outside a run: what `/title`, `/goal clear`, a goal decision and a TUI resume cost on a
// thread with history. Measured through the public ChatSession API on a real SQLite file, so it shows whether each
// call reopens the store and rebuilds the lead agent's graph (it should not: the per-thread runtime keeps both).
// The baseline in the same run is the way it was done before the runtime existed: open the store, build the lead
// agent, read or write, close — per call. (Measured on the code before the change, with this script: /title
// 57.1 ms, goal decision 32.6 ms, resume 17.1 ms.)
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
    const { openStore } = await import("../dist/persistence/open-store.js");
    const { buildStateAgent } = await import("../dist/runtime/run-agent.js");
    const perCall = async (fn) => {
      const store = openStore({ home: session.config.home, channelMode: session.config.checkpoint.channelMode });
      try {
        const agent = buildStateAgent(session.config, session.model, store.saver);
        await fn(agent.graph, { configurable: { thread_id: session.threadId } });
      } finally {
        store.close();
      }
    };
    const oldWrite = await time((i) => perCall((g, c) => g.updateState(c, { title: `old ${i}` })));
    const oldRead = await time(() => perCall((g, c) => g.getState(c)));
    const title = await time((i) => session.setTitle(`title ${i}`));
    const goal = await time(async () => {
      session.goal = { objective: "bench", status: "active", continuation_count: 0 };
      await session.clearGoal();
    });
    const resume = await time(() => session.resume({ threadId: session.threadId }));
    const r = (x, base) => `${x.toFixed(1)} ms (${(x / base).toFixed(2)}× the per-call reopen)`;
    console.log(`state reads/writes outside a run (median of ${N}; baseline: reopen store + rebuild agent per call: write ${oldWrite.toFixed(1)} ms, read ${oldRead.toFixed(1)} ms)`);
    console.log(`  /title                ${r(title, oldWrite)}`);
    console.log(`  goal decision write   ${r(goal, oldWrite)}`);
    console.log(`  resume (state read)   ${r(resume, oldRead)}`);
    const { ThreadRuntime } = await import("../dist/runtime/thread-runtime.js");
    ThreadRuntime.closeAll();
  } finally {
    process.env = saved;
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStateRead();
