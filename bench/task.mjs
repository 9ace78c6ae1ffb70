// A 20-step task as a script runs it: one process per run, start-up included (bench/loop.mjs measures the loop
// inside one warm process). `deerflow run` (default approval, --no-memory as in bench/loop.mjs) against two bare
// langchain scripts (bench/loop/bare-loop.mjs run once, no warm-up): createAgent + ChatOpenAI + execa bash with the
// stock SqliteSaver, and without a checkpointer; and `deerflow run` from spawn to its first model request against
// `node -e 0`. Zero-latency loopback model; rounds interleaved so every command sees the same machine; peak RSS is
// each process tree's largest maxRSS (GNU time). The first deerflow start of the bench compiles the bundle and writes
// the code cache (a fresh DEERFLOW_CACHE_DIR): shown apart, the rounds after it start warm, as a user's do.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startModelServer } from "./loop/model-server.mjs";

const STEPS = 20;
const ROUNDS = Number(process.env.BENCH_TASK_ROUNDS ?? 7);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const TIME = "/usr/bin/time";

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Runs one process to its end: wall time, time to its first model request (if any) and peak RSS (KB; under GNU time
 * when the machine has it). Throws when it fails.
 */
function timed(server, args, { cwd, env, rssFile }) {
  const withTime = existsSync(TIME) ? [TIME, ["-f", "%M", "-o", rssFile, process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first;
    server.onRequest = () => {
      first ??= performance.now() - t0;
    };
    const child = spawn(withTime[0], withTime[1], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`${args.join(" ")} exited ${code}: ${err.slice(-2000)}`));
      const rssKb = existsSync(TIME) ? Number(readFileSync(rssFile, "utf8").trim().split("\n").at(-1)) : Number.NaN;
      resolve({ ms, first, rssKb, out });
    });
  });
}

export async function benchTask() {
  const hooks = { onRequest: () => {} };
  const server = await startModelServer({ steps: STEPS, onRequest: () => hooks.onRequest() });
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-task-"));
  const user = join(root, "user");
  const cwd = join(user, "project");
  mkdirSync(cwd, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: user,
    LANG: "C.UTF-8",
    DEERFLOW_HOME: join(root, "deerflow-home"),
    DEERFLOW_CACHE_DIR: join(root, "cache"),
    DEERFLOW_MODEL: "bench-model",
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: server.url,
    DEERFLOW_DISCOVER_PORTS: "none",
  };
  const opts = { cwd, env, rssFile: join(root, "rss") };
  let sqliteRun = 0;
  const cmd = {
    node: () => ["-e", "0"],
    bare: () => [here("./loop/bare-loop.mjs"), server.url, "1", "--no-warm-up"],
    sqlite: () => [here("./loop/bare-loop.mjs"), server.url, "1", "--no-warm-up", "--sqlite", join(root, `bare-${++sqliteRun}.sqlite`)],
    deerflow: () => [here("../bin/deerflow"), "run", "--no-memory", "--output-format", "json", "run the 20 steps"],
  };
  const run = async (name) => {
    const r = await timed(hooks, cmd[name](), opts);
    if (name === "deerflow") {
      const result = JSON.parse(r.out);
      if (result.status !== "success" || !String(result.final_text).startsWith(`done after ${STEPS - 1} steps`)) throw new Error(`deerflow run: ${r.out.slice(0, 500)}`);
    } else if (name !== "node" && JSON.parse(r.out.trim().split("\n").at(-1)).steps !== STEPS - 1) {
      throw new Error(`${name}: ${r.out}`);
    }
    return r;
  };
  try {
    const cold = await run("deerflow");
    const got = { node: [], bare: [], sqlite: [], deerflow: [] };
    for (let r = 0; r < ROUNDS; r++) for (const name of Object.keys(got)) got[name].push(await run(name));
    const m = (name, key) => median(got[name].map((x) => x[key]));
    const node = m("node", "ms");
    const first = m("deerflow", "first");
    const row = (label, name) => `| ${label} | ${m(name, "first")?.toFixed(0) ?? "-"} ms | ${m(name, "ms").toFixed(0)} ms | ${(m(name, "rssKb") / 1024).toFixed(0)} MB |`;
    console.log(`\n## A ${STEPS}-step bash task as a script runs it: one process each, start-up included (median of ${ROUNDS} rounds)`);
    console.log("| command | first model request | whole task | peak RSS |");
    console.log("|---|---|---|---|");
    console.log(`| node -e 0 | | ${node.toFixed(0)} ms | ${(m("node", "rssKb") / 1024).toFixed(0)} MB |`);
    console.log(row("bare createAgent + ChatOpenAI + execa bash, no checkpointer", "bare"));
    console.log(row("bare createAgent + ChatOpenAI + execa bash + stock SqliteSaver", "sqlite"));
    console.log(row("deerflow run (middleware, SQLite, sandbox), code cache warm", "deerflow"));
    console.log(`| deerflow run, first start of this build (compiles, writes the cache) | ${cold.first?.toFixed(0)} ms | ${cold.ms.toFixed(0)} ms | ${(cold.rssKb / 1024).toFixed(0)} MB |`);
    const startRatio = first / node;
    const taskRatio = m("deerflow", "ms") / m("sqlite", "ms");
    const rssRatio = m("deerflow", "rssKb") / m("bare", "rssKb");
    console.log(`deerflow run to its first model request vs node -e 0: ${startRatio.toFixed(2)}x (target ≤ 4x): ${startRatio <= 4 ? "yes" : "NO"}`);
    console.log(
      `whole task vs bare + SqliteSaver: ${taskRatio.toFixed(2)}x (target ≤ 1.2x): ${taskRatio <= 1.2 ? "yes" : "NO"}; vs bare without a checkpointer: ${(m("deerflow", "ms") / m("bare", "ms")).toFixed(2)}x`,
    );
    console.log(`peak RSS vs the bare loop: ${rssRatio.toFixed(2)}x (target ≤ 1.3x): ${rssRatio <= 1.3 ? "yes" : "NO"}`);
    return { startRatio, taskRatio, rssRatio };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTask();
