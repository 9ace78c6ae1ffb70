// A long thread on disk and on resume: a 200-turn thread with 2 KB answers built through deerflow's runtime (new
// threads are delta, step checkpoints pruned), its deerflow.sqlite size; then `deerflow resume` of it and of a 2-turn
// thread in a real PTY, interleaved: time until the transcript is drawn (the input says "Ask anything", which the
// TUI shows only once the resumed thread is on screen), and the first frame (which names the thread being loaded).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startModelServer } from "./loop/model-server.mjs";
import { benchEnv, median, timeInPty } from "./first-frame.mjs";

const TURNS = Number(process.env.BENCH_LONG_TURNS ?? 200);
const RUNS = Number(process.env.BENCH_RESUME_RUNS ?? 7);
const BIN = fileURLToPath(new URL("../bin/deerflow", import.meta.url));
const BUILD = fileURLToPath(new URL("./loop/build-thread.mjs", import.meta.url));

async function buildThread(where, url, turns) {
  const { stdout } = await promisify(execFile)(process.execPath, [BUILD, url, String(turns)], { cwd: where.cwd, env: where.env, encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1)).threadId;
}

export async function benchLongThread() {
  const server = await startModelServer({ steps: 1, answerBytes: 2048 });
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-long-"));
  try {
    const where = benchEnv(root);
    delete where.env.OPENAI_BASE_URL;
    const long = await buildThread(where, server.url, TURNS);
    const bytes = statSync(join(where.env.DEERFLOW_HOME, "deerflow.sqlite")).size;
    const short = await buildThread(where, server.url, 2);
    const env = { ...where.env, OPENAI_BASE_URL: server.url };
    const at = { ...where, env };
    const marks = { frame: /Loading thread/, ready: /Ask anything/ };
    await timeInPty([BIN, "resume", short], at, marks);
    await timeInPty([BIN, "resume", long], at, marks);
    const s = { frame: [], ready: [] };
    const l = { frame: [], ready: [] };
    for (let i = 0; i < RUNS; i++) {
      const a = await timeInPty([BIN, "resume", short], at, marks);
      const b = await timeInPty([BIN, "resume", long], at, marks);
      s.frame.push(a.frame), s.ready.push(a.ready), l.frame.push(b.frame), l.ready.push(b.ready);
    }
    const mb = bytes / 1024 / 1024;
    const [sr, lr] = [median(s.ready), median(l.ready)];
    console.log(`\n## Long thread: ${TURNS} turns with 2 KB answers (delta checkpoints, pruned)`);
    console.log(`deerflow.sqlite: ${mb.toFixed(1)} MB (target ≤ 20 MB): ${mb <= 20 ? "yes" : "NO"}`);
    console.log(`| deerflow resume (median of ${RUNS}, PTY) | first frame ("Loading thread …") | transcript drawn ("Ask anything") |`);
    console.log(`|---|---|---|`);
    console.log(`| 2-turn thread | ${median(s.frame).toFixed(0)} ms | ${sr.toFixed(0)} ms (1.00x) |`);
    console.log(`| ${TURNS}-turn thread | ${median(l.frame).toFixed(0)} ms | ${lr.toFixed(0)} ms (${(lr / sr).toFixed(2)}x) |`);
    console.log(`resume of ${TURNS} turns vs 2 turns: ${(lr / sr).toFixed(2)}x (target ≤ 1.2x)`);
    return { mb, shortMs: sr, longMs: lr, ratio: lr / sr };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLongThread();
