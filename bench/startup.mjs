// Start-up cost: `deerflow --version` against bare `node -e 0`, medians of several cold runs in the same run.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const BIN = fileURLToPath(new URL("../bin/deerflow", import.meta.url));
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);

function medianMs(args) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    execFileSync(process.execPath, args, { stdio: "ignore" });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export function benchStartup() {
  // Interleave a warm-up of each so the file cache is equally hot for both.
  medianMs(["-e", "0"]);
  const node = medianMs(["-e", "0"]);
  const version = medianMs([BIN, "--version"]);
  const help = medianMs([BIN, "--help"]);
  console.log(`\n## Start-up (median of ${RUNS} runs)`);
  console.log(`| command | median | vs node -e 0 |`);
  console.log(`|---|---|---|`);
  console.log(`| node -e 0 | ${node.toFixed(1)} ms | 1.00x |`);
  console.log(`| deerflow --version | ${version.toFixed(1)} ms | ${(version / node).toFixed(2)}x |`);
  console.log(`| deerflow --help | ${help.toFixed(1)} ms | ${(help / node).toFixed(2)}x |`);
  console.log(`--version ≤ 3x bare node: ${version / node <= 3 ? "yes" : "NO"}`);
  return { node, version, help };
}

if (import.meta.url === `file://${process.argv[1]}`) benchStartup();
