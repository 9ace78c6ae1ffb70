// Pruning on the team database: two threads of the same turns on one PostgreSQL database, one pruned after each
// run (as the runtime does: every run's start point and the latest run kept whole) and one never pruned, in the same
// run. Reports the bytes each thread's rows hold (pg_column_size over its checkpoints, writes and blobs), the time a
// prune takes, and the time to read the thread's head (what resume does).
// Usage: npm run build && node bench/pg-prune.mjs   (BENCH_PG_URL: an admin URL that may CREATE DATABASE;
// BENCH_PRUNE_TURNS, default 100; delta mode, 2 KB answers)
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "langchain";
import pg from "pg";
import { createDeerflowAgent } from "../dist/agent/create-deerflow-agent.js";
import { DeerflowPostgresSaver } from "../dist/persistence/postgres-saver.js";
import { openPool } from "../dist/persistence/postgres-connection.js";

const ADMIN = new URL(process.env.BENCH_PG_URL ?? "postgres://deerflow_test:deerflow_test@127.0.0.1:5432/postgres");
const TURNS = Number(process.env.BENCH_PRUNE_TURNS ?? 100);
const REPLY = "x".repeat(2 * 1024);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const admin = new pg.Client({ connectionString: ADMIN.toString() });
await admin.connect();
const name = `dfprune_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
try {
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const saver = new DeerflowPostgresSaver(openPool(url.toString(), 4), { channelMode: "delta" });
  await saver.setup();
  let model = fakeModel();
  for (let i = 0; i < 2 * TURNS; i++) model = model.respond(new AIMessage(`${i}:${REPLY}`));
  const agent = createDeerflowAgent(model, [], { features: { sandbox: false }, checkpointer: saver, checkpointChannelMode: "delta" });
  const marks = [];
  const pruneTimes = [];
  for (let i = 0; i < TURNS; i++) {
    for (const thread of ["kept", "pruned"]) {
      const mark = await saver.mark();
      await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, { configurable: { thread_id: thread } });
      if (thread !== "pruned") continue;
      marks.push(mark);
      const t0 = performance.now();
      await saver.prune(thread, marks);
      pruneTimes.push(performance.now() - t0);
    }
  }
  const bytes = async (thread) => {
    let sum = 0;
    for (const table of ["checkpoints", "checkpoint_writes", "checkpoint_blobs"]) {
      const { rows } = await saver.db.query(`SELECT COALESCE(SUM(pg_column_size(t.*)), 0) AS b FROM ${table} t WHERE thread_id = $1`, [thread]);
      sum += Number(rows[0].b);
    }
    return sum;
  };
  const head = async (thread) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await agent.getState({ configurable: { thread_id: thread } });
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const [kb, pb] = [await bytes("kept"), await bytes("pruned")];
  const [kh, ph] = [await head("kept"), await head("pruned")];
  console.log(`pruning on PostgreSQL (${TURNS} turns, delta, 2 KB answers; baseline: the same thread never pruned, same run):`);
  console.log(
    `  rows' bytes ${(pb / 1e6).toFixed(1)} MB pruned vs ${(kb / 1e6).toFixed(1)} MB (x${(pb / kb).toFixed(2)}); prune per run median ${median(pruneTimes).toFixed(1)} ms, last ${pruneTimes.at(-1).toFixed(1)} ms; head read ${ph.toFixed(1)} ms vs ${kh.toFixed(1)} ms`,
  );
  await saver.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
