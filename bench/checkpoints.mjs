// Checkpoint cost of a long thread: full vs delta channel mode, measured in the same run.
// A 200-turn thread (one run per turn, 5 KB replies) through createDeerflowAgent on a real SQLite file; prints bytes
// written (sum of stored blob/text bytes), per-turn bytes at turn 10 and 200, and resume (getState on a freshly
// opened file) time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "langchain";
import { createDeerflowAgent } from "../dist/agent/create-deerflow-agent.js";
import { DeerflowSqliteSaver } from "../dist/persistence/sqlite-saver.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const REPLY = "x".repeat(5 * 1024);

function storedBytes(db) {
  const q = (sql) => db.prepare(sql).get().n ?? 0;
  return q("SELECT SUM(length(checkpoint) + length(metadata)) AS n FROM checkpoints") + q("SELECT SUM(length(value)) AS n FROM writes") + q("SELECT SUM(length(value)) AS n FROM checkpoint_blobs");
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function runMode(mode) {
  const dir = mkdtempSync(join(tmpdir(), `deerflow-bench-${mode}-`));
  const file = join(dir, "deerflow.sqlite");
  try {
    let model = fakeModel();
    for (let i = 0; i < TURNS; i++) model = model.respond(new AIMessage(`${i}:${REPLY}`));
    const saver = DeerflowSqliteSaver.open(file, { channelMode: mode });
    const agent = createDeerflowAgent(model, [], {
      features: { sandbox: false },
      checkpointChannelMode: mode,
      checkpointer: saver,
    });
    const config = { configurable: { thread_id: "bench" } };
    const perTurn = [];
    let before = 0;
    for (let i = 0; i < TURNS; i++) {
      await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, config);
      const now = storedBytes(saver.db);
      perTurn.push(now - before);
      before = now;
    }
    saver.close();

    // Resume: open the file afresh (new saver, new agent) and read the thread's state.
    const times = [];
    let count = 0;
    for (let k = 0; k < 7; k++) {
      const s2 = DeerflowSqliteSaver.open(file, { channelMode: mode });
      const a2 = createDeerflowAgent(fakeModel(), [], { features: { sandbox: false }, checkpointChannelMode: mode, checkpointer: s2 });
      const t0 = performance.now();
      const snap = await a2.graph.getState(config);
      times.push(performance.now() - t0);
      count = snap.values.messages.length;
      s2.close();
    }
    if (count !== TURNS * 2) throw new Error(`${mode}: resumed ${count} messages, expected ${TURNS * 2}`);
    // Per-turn bytes around turn 10 and turn TURNS: the median of a 10-turn window (a steady turn), and the mean of
    // the window (which includes the periodic full snapshots that delta mode writes).
    const early = perTurn.slice(5, 15);
    const late = perTurn.slice(TURNS - 10);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      mode,
      total: before,
      turn10: median(early),
      turnLast: median(late),
      turn10Mean: mean(early),
      turnLastMean: mean(late),
      resumeMs: median(times),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchCheckpoints() {
  const full = await runMode("full");
  const delta = await runMode("delta");
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`\n## Checkpoints: ${TURNS}-turn thread, 5 KB replies (one run per turn)`);
  console.log(`| mode  | total written | turn 10 | turn ${TURNS} | ratio | turn 10 (mean incl. snapshots) | turn ${TURNS} (mean incl. snapshots) | resume (getState) |`);
  console.log("|-------|---------------|---------|----------|-------|------|------|-------------------|");
  for (const r of [full, delta]) {
    console.log(
      `| ${r.mode.padEnd(5)} | ${kb(r.total)} | ${kb(r.turn10)} | ${kb(r.turnLast)} | ${(r.turnLast / r.turn10).toFixed(2)} | ${kb(r.turn10Mean)} | ${kb(r.turnLastMean)} | ${r.resumeMs.toFixed(1)} ms |`,
    );
  }
  console.log("(turn N = median bytes of the 10 turns around N; the mean columns include delta mode's periodic full snapshots)");
  const ratio = delta.total / full.total;
  console.log(
    `delta total / full total = ${(ratio * 100).toFixed(1)}% (target ≤ 10%); delta turn ${TURNS}/turn 10 = ${(delta.turnLast / delta.turn10).toFixed(2)} (target ≤ 2); resume ≤ 50 ms: full ${full.resumeMs <= 50 ? "yes" : "NO"}, delta ${delta.resumeMs <= 50 ? "yes" : "NO"}`,
  );
  return { full, delta, ratio };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCheckpoints();
