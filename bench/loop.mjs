// Loop overhead and memory: the same 20-step tool task (19 bash calls, then an answer) against a zero-latency model,
// through a bare langchain loop (bench/loop/bare-loop.mjs: createAgent + ChatOpenAI + one execa bash tool) and
// through deerflow's runtime (bench/loop/deerflow-loop.mjs), each in its own child process, rounds interleaved so
// both see the same machine. Per-step time = median run time / steps; peak RSS = the child's maxRSS.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelServer } from "./loop/model-server.mjs";

const STEPS = 20;
const ROUNDS = Number(process.env.BENCH_LOOP_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_LOOP_RUNS ?? 3);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// Asynchronous: the model server lives in this process and must keep answering.
async function child(script, url, root) {
  const home = join(root, "user");
  mkdirSync(join(home, "project"), { recursive: true });
  const { stdout: out } = await promisify(execFile)(process.execPath, [here(script), url, String(RUNS)], {
    cwd: join(home, "project"),
    env: { PATH: process.env.PATH, HOME: home, LANG: "C.UTF-8", DEERFLOW_HOME: join(root, "deerflow-home"), DEERFLOW_MODEL: "bench-model", OPENAI_API_KEY: "sk-bench" },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}

export async function benchLoop() {
  const server = await startModelServer({ steps: STEPS });
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-loop-"));
  try {
    const bare = { ms: [], rss: [] };
    const ours = { ms: [], rss: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const b = await child("./loop/bare-loop.mjs", server.url, join(root, `bare-${r}`));
      const d = await child("./loop/deerflow-loop.mjs", server.url, join(root, `deerflow-${r}`));
      if (b.steps !== STEPS - 1 || d.steps !== STEPS - 1) throw new Error(`tool steps: bare ${b.steps}, deerflow ${d.steps}; expected ${STEPS - 1}`);
      bare.ms.push(...b.ms);
      bare.rss.push(b.maxRssKb);
      ours.ms.push(...d.ms);
      ours.rss.push(d.maxRssKb);
    }
    const bStep = median(bare.ms) / STEPS;
    const dStep = median(ours.ms) / STEPS;
    const bRss = median(bare.rss) / 1024;
    const dRss = median(ours.rss) / 1024;
    console.log(`\n## Agent loop: a ${STEPS}-step bash task, zero-latency model (median of ${ROUNDS}x${RUNS} runs, ${ROUNDS} processes each)`);
    console.log(`| loop | per run | per step | peak RSS |`);
    console.log(`|---|---|---|---|`);
    console.log(`| bare createAgent + ChatOpenAI + execa bash | ${median(bare.ms).toFixed(0)} ms | ${bStep.toFixed(1)} ms | ${bRss.toFixed(0)} MB |`);
    console.log(`| deerflow runtime (middleware, SQLite, sandbox) | ${median(ours.ms).toFixed(0)} ms | ${dStep.toFixed(1)} ms | ${dRss.toFixed(0)} MB |`);
    console.log(`per-step time vs bare: ${(dStep / bStep).toFixed(2)}x (target ≤ 1.2x); peak RSS vs bare: ${(dRss / bRss).toFixed(2)}x (target ≤ 1.3x)`);
    return { bareStepMs: bStep, stepMs: dStep, stepRatio: dStep / bStep, bareRssMb: bRss, rssMb: dRss, rssRatio: dRss / bRss };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLoop();
