// Rewind's cost per run: the shadow-git snapshot deerflow takes of the workspace before each run, on a 5,000-file
// repository (the user's own git repository, committed, with a .gitignore'd node_modules). Reported: the first
// snapshot (every file is hashed once), a snapshot after a run that changed a few files, one after a run that changed
// nothing, and a restore of the few files. Baselines measured in the same run: `git status` in the user's repository
// (the cheapest way any tool can see what changed), and the 1-second model turn the target is stated against
// (a snapshot under 10 % of it). Since runs also snapshot when they end (so a rewind can tell the user's later edits
// from the run's), a run pays its changes at its end and the next run's start finds nothing new: the cost added per
// run is one unchanged snapshot, and a rewind adds one diff of two snapshots (the user's edits since).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ShadowRepo } from "../dist/snapshots/shadow-repo.js";

const FILES = Number(process.env.BENCH_SNAPSHOT_FILES ?? 5000);
const ITERS = Number(process.env.BENCH_SNAPSHOT_ITERS ?? 15);
const TURN_MS = 1000;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** FILES source files of ~1-4 KB in 100 directories, plus an ignored node_modules of 1,000 more. */
function makeRepo(root) {
  const repo = join(root, "repo");
  for (let d = 0; d < 100; d++) mkdirSync(join(repo, "src", `mod${d}`), { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(repo, "src", `mod${i % 100}`, `file${i}.ts`), `// file ${i}\n${"export const x = 1;\n".repeat(50 + (i % 150))}`);
  mkdirSync(join(repo, "node_modules", "dep"), { recursive: true });
  for (let i = 0; i < 1000; i++) writeFileSync(join(repo, "node_modules", "dep", `m${i}.js`), "module.exports = 1;\n");
  writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@x", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@x" };
  execFileSync("git", ["init", "-q"], { cwd: repo, env });
  execFileSync("git", ["add", "-A"], { cwd: repo, env });
  execFileSync("git", ["commit", "-qm", "init"], { cwd: repo, env });
  return { repo, env };
}

export async function benchSnapshots() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-snap-"));
  try {
    const { repo, env } = makeRepo(root);
    const shadow = new ShadowRepo(join(root, "data", "snapshots.git"), repo);
    let t0 = performance.now();
    const first = await shadow.snapshot("first", ["refs/deerflow/runs/first"]);
    const firstMs = performance.now() - t0;

    const status = [];
    const changed = [];
    const unchanged = [];
    const restore = [];
    const editedSince = [];
    for (let i = 0; i < ITERS; i++) {
      t0 = performance.now();
      execFileSync("git", ["--no-optional-locks", "status", "--porcelain"], { cwd: repo, env });
      status.push(performance.now() - t0);

      // A run that edited three files and created one.
      for (let k = 0; k < 3; k++) writeFileSync(join(repo, "src", `mod${k}`, `file${k}.ts`), `// edit ${i}\n`);
      writeFileSync(join(repo, `new${i}.txt`), `new ${i}\n`);
      t0 = performance.now();
      const snap = await shadow.snapshot(`run ${i}`, [`refs/deerflow/runs/r${i}`]);
      changed.push(performance.now() - t0);

      t0 = performance.now();
      await shadow.snapshot(`idle ${i}`, []);
      unchanged.push(performance.now() - t0);

      t0 = performance.now();
      await shadow.changedFiles(snap.commit, first.commit);
      editedSince.push(performance.now() - t0);

      t0 = performance.now();
      await shadow.restore(first.commit, snap);
      restore.push(performance.now() - t0);
    }
    const row = (name, ms) => console.log(`| ${name.padEnd(44)} | ${ms.toFixed(1).padStart(8)} ms | ${((ms / TURN_MS) * 100).toFixed(1).padStart(5)} % |`);
    console.log(`\n## Rewind snapshots: ${FILES}-file git repository (+1,000 ignored files), median of ${ITERS}`);
    console.log("| step                                         |     time   | of a 1 s turn |");
    console.log("|----------------------------------------------|------------|-------|");
    row("baseline: git status in the user's repo", median(status));
    row("first snapshot (every file hashed once)", firstMs);
    row("snapshot after a run that changed 4 files", median(changed));
    row("snapshot after a run that changed nothing", median(unchanged));
    row("restore of those 4 files (rewind)", median(restore));
    row("added per run: end snapshot (unchanged)", median(unchanged));
    row("added per rewind: user edits since (diff)", median(editedSince));
    console.log(`(per-run snapshot / git status baseline: ${(median(changed) / median(status)).toFixed(2)}x; target: under 10 % of a 1 s model turn after the first snapshot)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSnapshots();
