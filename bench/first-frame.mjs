// Time to first frame of `deerflow chat` in a real pseudo-terminal (node-pty), against `node -e 0` spawned the same
// way (time to exit) in the same run. The first frame is the chat screen with its input prompt ("Starting…" until
// the runtime is loaded, then "Ask anything"); the time to "Ask anything" (runtime loaded) is shown too.
// Nothing is contacted before the first frame: the model endpoint is 127.0.0.1:9 in a throwaway DEERFLOW_HOME.
// The chat keeps V8's compiled code of its two bundles in the user's cache directory (src/cli/code-cache.ts): the
// warm-up run writes it and the measured runs use it, as every start after the first does; a "first start" row
// measures the start with no cache yet (a fresh cache directory and home each time: right after an install, an
// upgrade or a new node).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import pty from "node-pty";
import xterm from "@xterm/headless";

const BIN = fileURLToPath(new URL("../bin/deerflow", import.meta.url));
const RUNS = Math.max(9, Number(process.env.BENCH_FIRST_FRAME_RUNS ?? 11));
const COLS = 100;
const ROWS = 32;
const TARGET_FRAME_X = 5;
const TARGET_READY_X = 12;
const TIMEOUT_MS = 20_000;
const FIRST_FRAME = /Starting…|Loading (thread|the latest)|Ask anything/;
const READY = /Ask anything/;

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function benchEnv(root) {
  const home = join(root, "user");
  mkdirSync(join(home, "project"), { recursive: true });
  // Built from scratch (never the caller's env): no CI markers, which would turn Ink's interactive mode off.
  return {
    cwd: join(home, "project"),
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      DEERFLOW_HOME: join(root, "deerflow-home"),
      DEERFLOW_MODEL: "bench-model",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      OPENAI_API_KEY: "sk-bench-not-used",
    },
  };
}

/**
 * Spawns `args` in a PTY; resolves with the ms until each named pattern is on screen (or until exit for "exit").
 * The process is killed as soon as the last wanted mark is seen.
 */
export function timeInPty(args, where, marks) {
  return new Promise((resolve, reject) => {
    const term = new xterm.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
    const seen = {};
    const t0 = performance.now();
    const proc = pty.spawn(process.execPath, args, { name: "xterm-256color", cols: COLS, rows: ROWS, cwd: where.cwd, env: where.env });
    const screen = () => {
      const buf = term.buffer.active;
      const out = [];
      for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? "");
      return out.join("\n");
    };
    const finish = (err) => {
      clearTimeout(timer);
      term.dispose();
      if (err) reject(err);
      else resolve(seen);
    };
    const timer = setTimeout(() => {
      const text = screen();
      proc.kill("SIGKILL");
      finish(
        new Error(
          `no ${Object.keys(marks)
            .filter((k) => !(k in seen))
            .join(", ")} within ${TIMEOUT_MS} ms; screen:\n${text}`,
        ),
      );
    }, TIMEOUT_MS);
    let killed = false;
    proc.onData((d) => {
      const at = performance.now() - t0;
      term.write(d, () => {
        if (killed) return;
        const text = screen();
        for (const [name, re] of Object.entries(marks)) if (re && !(name in seen) && re.test(text)) seen[name] = at;
        if (Object.entries(marks).every(([name, re]) => !re || name in seen)) {
          killed = true;
          proc.kill("SIGKILL");
        }
      });
    });
    proc.onExit(() => {
      if (!("exit" in seen) && "exit" in marks) seen.exit = performance.now() - t0;
      finish();
    });
  });
}

export async function benchFirstFrame() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-ff-"));
  try {
    const where = benchEnv(root);
    const node = [];
    const frame = [];
    const ready = [];
    const cold = { frame: [], ready: [] };
    // Warm the file cache for both, then interleave so both see the same machine state.
    await timeInPty(["-e", "0"], where, { exit: null });
    await timeInPty([BIN, "chat"], where, { frame: FIRST_FRAME, ready: READY });
    for (let i = 0; i < RUNS; i++) {
      node.push((await timeInPty(["-e", "0"], where, { exit: null })).exit);
      const r = await timeInPty([BIN, "chat"], where, { frame: FIRST_FRAME, ready: READY });
      frame.push(r.frame);
      ready.push(r.ready);
      const fresh = { ...where, env: { ...where.env, DEERFLOW_HOME: join(root, `fresh-home-${i}`), DEERFLOW_CACHE_DIR: join(root, `fresh-cache-${i}`) } };
      const c = await timeInPty([BIN, "chat"], fresh, { frame: FIRST_FRAME, ready: READY });
      cold.frame.push(c.frame);
      cold.ready.push(c.ready);
    }
    const n = median(node);
    const f = median(frame);
    const rd = median(ready);
    console.log(`\n## First frame of deerflow chat in a ${COLS}x${ROWS} PTY (median of ${RUNS} runs)`);
    console.log(`| measure | median | vs node -e 0 |`);
    console.log(`|---|---|---|`);
    console.log(`| node -e 0 (to exit) | ${n.toFixed(1)} ms | 1.00x |`);
    console.log(`| deerflow chat: first frame (input prompt on screen) | ${f.toFixed(1)} ms | ${(f / n).toFixed(2)}x |`);
    console.log(`| deerflow chat: ready ("Ask anything", runtime loaded) | ${rd.toFixed(1)} ms | ${(rd / n).toFixed(2)}x |`);
    const [cf, cr] = [median(cold.frame), median(cold.ready)];
    console.log(`| first start (no code cache yet): first frame | ${cf.toFixed(1)} ms | ${(cf / n).toFixed(2)}x |`);
    console.log(`| first start (no code cache yet): ready | ${cr.toFixed(1)} ms | ${(cr / n).toFixed(2)}x |`);
    console.log(`first frame ≤ ${TARGET_FRAME_X}x node -e 0: ${f / n <= TARGET_FRAME_X ? "yes" : "NO"} (${(f / n).toFixed(2)}x = ${f.toFixed(0)} ms against ${n.toFixed(0)} ms)`);
    console.log(`ready ≤ ${TARGET_READY_X}x node -e 0: ${rd / n <= TARGET_READY_X ? "yes" : "NO"} (${(rd / n).toFixed(2)}x = ${rd.toFixed(0)} ms against ${n.toFixed(0)} ms)`);
    return { node: n, firstFrame: f, ready: rd, coldFirstFrame: cf, coldReady: cr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFirstFrame();
