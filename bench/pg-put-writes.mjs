// Pending writes on the team database: putWrites batched (one INSERT … unnest, one round trip) against the same
// saver writing one statement per write inside a transaction (BEGIN, N INSERTs, COMMIT: N + 2 round trips), in the
// same run, alternating blocks. The server is reached through a loopback relay that delays every chunk by
// BENCH_PG_LATENCY_MS each way (default 1: a database on another machine of the LAN; 0: the loopback itself).
// Usage: npm run build && node bench/pg-put-writes.mjs   (BENCH_PG_URL: an admin URL that may CREATE DATABASE)
import net from "node:net";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { DeerflowPostgresSaver } from "../dist/persistence/postgres-saver.js";
import { openPool } from "../dist/persistence/postgres-connection.js";
import { PerWriteSaver } from "./team-database.mjs";

const ADMIN = new URL(process.env.BENCH_PG_URL ?? "postgres://deerflow_test:deerflow_test@127.0.0.1:5432/postgres");
const LATENCY = Number(process.env.BENCH_PG_LATENCY_MS ?? 1);
const BLOCKS = 8;
const PER_BLOCK = 50;

function relay() {
  const server = net.createServer((client) => {
    const up = net.connect(Number(ADMIN.port || 5432), ADMIN.hostname);
    const pipe = (from, to) => from.on("data", (d) => (LATENCY ? setTimeout(() => to.write(d), LATENCY) : to.write(d)));
    pipe(client, up);
    pipe(up, client);
    for (const [a, b] of [
      [client, up],
      [up, client],
    ]) {
      a.on("error", () => b.destroy());
      a.on("close", () => b.destroy());
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const admin = new pg.Client({ connectionString: ADMIN.toString() });
await admin.connect();
const name = `dfwrites_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
const server = await relay();
try {
  const url = new URL(ADMIN);
  url.host = `127.0.0.1:${server.address().port}`;
  url.pathname = `/${name}`;
  const perWrite = new PerWriteSaver(openPool(url.toString(), 4));
  const batched = new DeerflowPostgresSaver(openPool(url.toString(), 4));
  await perWrite.setup();
  await batched.setup();
  let n = 0;
  const block = async (saver, writes) => {
    const t0 = performance.now();
    for (let i = 0; i < PER_BLOCK; i++) await saver.putWrites({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: `c${n++}` } }, writes, "task");
    return (performance.now() - t0) / PER_BLOCK;
  };
  console.log(`putWrites on PostgreSQL, ${LATENCY} ms each way (baseline: one statement per write, same run):`);
  for (const count of [1, 3]) {
    const writes = Array.from({ length: count }, (_, i) => [`ch${i}`, "x".repeat(2048)]);
    const a = [];
    const b = [];
    for (let r = 0; r < BLOCKS; r++) {
      a.push(await block(perWrite, writes));
      b.push(await block(batched, writes));
    }
    console.log(`  ${count} write(s) × 2 KB: per-write ${median(a).toFixed(2)} ms, batched ${median(b).toFixed(2)} ms (x${(median(b) / median(a)).toFixed(2)})`);
  }
  await perWrite.close();
  await batched.close();
} finally {
  server.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
