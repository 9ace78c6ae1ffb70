// Team database against the SQLite file, in the same run: per-turn save time of one thread (the time an agent turn
// through createDeerflowAgent spends in its saver's writes, and the whole turn), and 8 concurrent runners × 50 turns, each on its
// own thread, all on one store (SQLite: 8 savers on one file, as 8 processes would be; PostgreSQL: 8 pools).
// Needs a PostgreSQL server: BENCH_PG_URL (an admin URL that may CREATE DATABASE), default the test role's.
// Skipped, with the reason, when none answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "langchain";
import pg from "pg";
import { createDeerflowAgent } from "../dist/agent/create-deerflow-agent.js";
import { DeerflowSqliteSaver } from "../dist/persistence/sqlite-saver.js";
import { DeerflowPostgresSaver } from "../dist/persistence/postgres-saver.js";
import { openPool, redactDatabaseUrl } from "../dist/persistence/postgres-connection.js";
import { WRITES_IDX_MAP } from "@langchain/langgraph-checkpoint";

/**
 * The baseline for batched pending writes: putWrites as it was, one INSERT per write inside a transaction
 * (BEGIN, N statements, COMMIT: N + 2 round trips where the saver now makes one).
 */
export class PerWriteSaver extends DeerflowPostgresSaver {
  async putWrites(config, writes, taskId, taskPath = "") {
    const { thread_id: threadId, checkpoint_ns: ns = "", checkpoint_id: checkpointId } = config.configurable;
    await this.setup();
    const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const sql = `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${replace ? "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob, task_path = EXCLUDED.task_path" : "DO NOTHING"}`;
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return [threadId, ns, checkpointId, taskId, taskPath, WRITES_IDX_MAP[channel] ?? idx, channel, type, Buffer.from(bytes)];
      }),
    );
    await this.transaction(async (client) => {
      for (const row of rows) await client.query(sql, row);
    });
  }
}

const TURNS = Number(process.env.BENCH_TEAM_TURNS ?? 50);
const RUNNERS = Number(process.env.BENCH_TEAM_RUNNERS ?? 8);
const ADMIN = process.env.BENCH_PG_URL ?? "postgres://deerflow_test:deerflow_test@127.0.0.1:5432/postgres";
const REPLY = "x".repeat(2 * 1024);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `saver` timed: `spent()` is the wall time during which at least one of its writes (put, putWrites) was in flight
 * (LangGraph overlaps them, so their durations are not added up).
 */
function timedWrites(saver) {
  let spent = 0;
  let inFlight = 0;
  let since = 0;
  for (const m of ["put", "putWrites"]) {
    const orig = saver[m].bind(saver);
    saver[m] = async (...args) => {
      if (inFlight++ === 0) since = performance.now();
      try {
        return await orig(...args);
      } finally {
        if (--inFlight === 0) spent += performance.now() - since;
      }
    };
  }
  return () => spent;
}

/** Per turn: its wall time and the time its checkpoint writes took (the save). */
async function turns(saver, threadId, n) {
  let model = fakeModel();
  for (let i = 0; i < n; i++) model = model.respond(new AIMessage(`${i}:${REPLY}`));
  const spent = timedWrites(saver);
  const agent = createDeerflowAgent(model, [], { features: { sandbox: false }, checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  const times = [];
  const saves = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const s0 = spent();
    await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, config);
    times.push(performance.now() - t0);
    saves.push(spent() - s0);
  }
  return { times, saves };
}

async function measure(name, open) {
  const one = await open();
  // Threads of their own per store: two savers on one database must not continue each other's threads.
  const solo = await turns(one.saver, `${name}:solo`, TURNS);
  await one.close();
  const runners = await Promise.all(Array.from({ length: RUNNERS }, () => open()));
  const t0 = performance.now();
  const all = await Promise.all(runners.map((r, i) => turns(r.saver, `${name}:runner-${i}`, TURNS)));
  const wall = performance.now() - t0;
  for (const r of runners) await r.close();
  return {
    name,
    perTurn: median(solo.times),
    perSave: median(solo.saves),
    concurrentTurn: median(all.flatMap((r) => r.times)),
    concurrentSave: median(all.flatMap((r) => r.saves)),
    wall,
  };
}

export async function benchTeamDatabase() {
  const admin = new pg.Client({ connectionString: ADMIN, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    console.log(`team database: skipped (no PostgreSQL at ${redactDatabaseUrl(ADMIN)}: ${err.message.split("\n")[0]})`);
    return;
  }
  const dbName = `dfbench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dir = mkdtempSync(join(tmpdir(), "deerflow-bench-team-"));
  try {
    const file = join(dir, "deerflow.sqlite");
    const sqlite = await measure("SQLite", async () => {
      const saver = DeerflowSqliteSaver.open(file);
      return { saver, close: async () => saver.close() };
    });
    const url = new URL(ADMIN);
    url.pathname = `/${dbName}`;
    const onPostgres = (Saver) => async () => {
      const saver = new Saver(openPool(url.toString(), 4));
      await saver.setup();
      return { saver, close: () => saver.close() };
    };
    const perWrite = await measure("PG/write", onPostgres(PerWriteSaver));
    const postgres = await measure("PostgreSQL", onPostgres(DeerflowPostgresSaver));
    console.log(`team database (baseline: the SQLite file, same run; ${TURNS} turns, ${RUNNERS} runners; PG/write: one statement per pending write, as before batching):`);
    for (const r of [sqlite, perWrite, postgres]) {
      console.log(
        `  ${r.name.padEnd(10)} save per turn ${r.perSave.toFixed(1)} ms (x${(r.perSave / sqlite.perSave).toFixed(2)}), turn ${r.perTurn.toFixed(1)} ms (x${(r.perTurn / sqlite.perTurn).toFixed(2)})   ` +
          `${RUNNERS}×${TURNS} concurrent: save ${r.concurrentSave.toFixed(1)} ms, turn ${r.concurrentTurn.toFixed(1)} ms, all ${(r.wall / 1000).toFixed(1)} s (x${(r.wall / sqlite.wall).toFixed(2)})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
