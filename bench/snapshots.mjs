// Rewind's cost: the shadow-git snapshots deerflow takes of a workspace around each run, on a 20,000-file repository
// (the user's own git repository, committed, with a .gitignore'd node_modules of 1,000 more files).
// 1. The workspace's first-ever snapshot (every file hashed once) against `git add -A` of a copy of the repository
//    into a fresh repository, measured in the same run (target: at most 2x).
// 2. Whole runs through deerflow's runtime (bench/snapshots/run-child.mjs: a new thread per run, or the same thread
//    again, answered at once by a loopback model), bound to the repository and to an empty folder, interleaved in one
//    process so both see the same machine. The difference is what the repository's size costs a run (target: under
//    10 % of a 1 s model turn, for every run after the workspace's first snapshot, a new thread's first included).
// 3. The snapshot steps on their own: after a run that changed a few files, after one that changed nothing, a new
//    thread's first, the restore of a rewind, and `git status` in the user's repository (the cheapest way any tool
//    can see what changed) as their baseline.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ShadowRepo } from "../dist/snapshots/shadow-repo.js";
import { WorkspaceStore } from "../dist/snapshots/workspace-store.js";
import { startModelServer } from "./loop/model-server.mjs";

const FILES = Number(process.env.BENCH_SNAPSHOT_FILES ?? 20000);
const ITERS = Number(process.env.BENCH_SNAPSHOT_ITERS ?? 9);
const RUNS = Number(process.env.BENCH_SNAPSHOT_RUNS ?? 7);
const TURN_MS = 1000;
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@x", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@x" };

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timed(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** FILES source files of ~1-4 KB in 200 directories, plus an ignored node_modules of 1,000 more; committed. */
function makeRepo(repo) {
  for (let d = 0; d < 200; d++) mkdirSync(join(repo, "src", `mod${d}`), { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(repo, "src", `mod${i % 200}`, `file${i}.ts`), `// file ${i}\n${"export const x = 1;\n".repeat(50 + (i % 150))}`);
  mkdirSync(join(repo, "node_modules", "dep"), { recursive: true });
  for (let i = 0; i < 1000; i++) writeFileSync(join(repo, "node_modules", "dep", `m${i}.js`), "module.exports = 1;\n");
  writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
  execFileSync("git", ["init", "-q"], { cwd: repo, env: gitEnv });
  execFileSync("git", ["add", "-A"], { cwd: repo, env: gitEnv });
  execFileSync("git", ["commit", "-qm", "init"], { cwd: repo, env: gitEnv });
}

/** `git add -A` of a copy of the repository (without its .git) into a fresh repository. */
function gitAddOfCopy(repo, root) {
  const copy = join(root, "copy");
  rmSync(copy, { recursive: true, force: true });
  cpSync(repo, copy, { recursive: true, filter: (p) => p !== join(repo, ".git") });
  execFileSync("git", ["init", "-q"], { cwd: copy, env: gitEnv });
  const ms = timed(() => execFileSync("git", ["add", "-A"], { cwd: copy, env: gitEnv }));
  rmSync(copy, { recursive: true, force: true });
  return ms;
}

/** The first-ever snapshot of the repository (a fresh data directory) against `git add -A` of a copy, alternated. */
async function firstSnapshot(repo, root) {
  const ours = [];
  const base = [];
  for (let i = 0; i < 3; i++) {
    base.push(gitAddOfCopy(repo, root));
    const data = join(root, `first-${i}`);
    const shadow = new ShadowRepo(join(data, "threads", "t", "snapshots.git"), repo, WorkspaceStore.of(data, repo, "t"));
    const t0 = performance.now();
    await shadow.snapshot("first", []);
    ours.push(performance.now() - t0);
    rmSync(data, { recursive: true, force: true });
  }
  return { ours: median(ours), base: median(base) };
}

/** Whole runs through the runtime in one child process, on the repository and on an empty folder, interleaved. */
async function runs(repo, root) {
  // "hi" is answered at once; "run one tool" after one bash call (a run that starts a tool snapshots when it ends).
  const server = await startModelServer({ steps: (text) => (text.includes("run one tool") ? 2 : 1) });
  try {
    const home = join(root, "user");
    const empty = join(root, "empty");
    mkdirSync(join(home, "project"), { recursive: true });
    mkdirSync(empty);
    // Warm-up: the process, and the repository's first-ever snapshot (measured above, not here).
    const plan = [
      { workspace: empty, label: "warm" },
      { workspace: repo, label: "warm" },
    ];
    for (let i = 0; i < RUNS; i++) {
      for (const [ws, name] of [
        [repo, "repo"],
        [empty, "empty"],
      ]) {
        plan.push({ workspace: ws, label: `${name} new thread` });
        plan.push({ workspace: ws, label: `${name} same thread`, thread: "same" });
        plan.push({ workspace: ws, label: `${name} same thread, one tool`, thread: "same", prompt: "run one tool" });
      }
    }
    const { stdout } = await promisify(execFile)(process.execPath, [here("./snapshots/run-child.mjs"), server.url, JSON.stringify(plan)], {
      cwd: join(home, "project"),
      env: { PATH: process.env.PATH, HOME: home, LANG: "C.UTF-8", DEERFLOW_HOME: join(root, "deerflow-home"), DEERFLOW_MODEL: "bench-model", OPENAI_API_KEY: "sk-bench" },
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    const ms = JSON.parse(stdout.trim().split("\n").at(-1));
    return Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]));
  } finally {
    await server.close();
  }
}

/** The snapshot steps of one thread, and a second thread's first snapshot, on the repository. */
async function steps(repo, root) {
  const data = join(root, "steps");
  const shadow = new ShadowRepo(join(data, "threads", "a", "snapshots.git"), repo, WorkspaceStore.of(data, repo, "a"));
  const first = await shadow.snapshot("first", []);
  const out = { status: [], changed: [], unchanged: [], newThread: [], editedSince: [], restore: [] };
  for (let i = 0; i < ITERS; i++) {
    out.status.push(timed(() => execFileSync("git", ["--no-optional-locks", "status", "--porcelain"], { cwd: repo, env: gitEnv })));
    // A run that edited three files and created one.
    for (let k = 0; k < 3; k++) writeFileSync(join(repo, "src", `mod${k}`, `file${k}.ts`), `// edit ${i}\n`);
    writeFileSync(join(repo, `new${i}.txt`), `new ${i}\n`);
    let t0 = performance.now();
    const snap = await shadow.snapshot(`run ${i}`, []);
    out.changed.push(performance.now() - t0);
    t0 = performance.now();
    await shadow.snapshot(`idle ${i}`, []);
    out.unchanged.push(performance.now() - t0);
    const other = new ShadowRepo(join(data, "threads", `n${i}`, "snapshots.git"), repo, WorkspaceStore.of(data, repo, `n${i}`));
    t0 = performance.now();
    await other.snapshot("a new thread's first", []);
    out.newThread.push(performance.now() - t0);
    t0 = performance.now();
    await shadow.changedFiles(snap.commit, first.commit);
    out.editedSince.push(performance.now() - t0);
    t0 = performance.now();
    await shadow.restore(first.commit, snap);
    out.restore.push(performance.now() - t0);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
}

export async function benchSnapshots() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-snap-"));
  try {
    const repo = join(root, "repo");
    makeRepo(repo);
    const first = await firstSnapshot(repo, root);
    const run = await runs(repo, root);
    const step = await steps(repo, root);
    const pct = (ms) => `${((ms / TURN_MS) * 100).toFixed(1).padStart(5)} %`;
    const row = (name, ms, extra = pct(ms)) => console.log(`| ${name.padEnd(58)} | ${ms.toFixed(1).padStart(8)} ms | ${extra} |`);
    console.log(`\n## Rewind snapshots: ${FILES}-file git repository (+1,000 ignored files)`);
    console.log(`| step | time | of a 1 s turn |`);
    console.log(`|---|---|---|`);
    row("baseline: git add -A of a copy (fresh repository)", first.base, "");
    row("the workspace's first-ever snapshot", first.ours, `${(first.ours / first.base).toFixed(2)}x git add -A (target ≤ 2x)`);
    console.log(`| **whole runs (median of ${RUNS}): "hi" answered at once; "one tool": one bash call first** | | |`);
    for (const kind of ["new thread", "same thread", "same thread, one tool"]) {
      const extra = run[`repo ${kind}`] - run[`empty ${kind}`];
      row(`baseline: run in an empty folder, ${kind}`, run[`empty ${kind}`], "");
      row(`run on the repository, ${kind}`, run[`repo ${kind}`], "");
      row(`  added by the repository, ${kind}`, extra, `${pct(extra)} (target ≤ 10 %)`);
    }
    console.log(`| **snapshot steps (median of ${ITERS})** | | |`);
    row("baseline: git status in the user's repository", step.status);
    row("snapshot after a run that changed 4 files", step.changed);
    row("snapshot after a run that changed nothing", step.unchanged);
    row("a new thread's first snapshot (from the shared store)", step.newThread);
    row("a rewind: the user's edits since (diff)", step.editedSince);
    row("a rewind: restore of those 4 files", step.restore);
    return {
      firstRatio: first.ours / first.base,
      newThreadExtraMs: run["repo new thread"] - run["empty new thread"],
      sameThreadExtraMs: run["repo same thread"] - run["empty same thread"],
      toolRunExtraMs: run["repo same thread, one tool"] - run["empty same thread, one tool"],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSnapshots();
