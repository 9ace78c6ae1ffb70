// `@` completion on a big workspace (issue 27): the path index (the search engine glob and grep use, listed once in
// the background) against `rg --files` of the same tree in the same run, then what each keystroke costs: the fuzzy
// match over the list in memory while a path is typed character by character. Target: a keystroke well under a
// frame (16 ms) on 100,000 files; the listing never blocks one (it runs while the chat is idle).
// The tree: BENCH_AT_FILES (100,000) files in nested source folders that count, and an ignored build/ of 20,000
// that must not show up. BENCH_AT_TREE names a directory to reuse (kept then); removed at the end otherwise.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { WorkspacePathIndex } from "../dist/runtime/workspace-path-index.js";

const FILES = Number(process.env.BENCH_AT_FILES ?? 100_000);
const IGNORED = 20_000;
const MARKER = ".deerflow-bench-at-tree";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function makeTree(dir) {
  if (existsSync(join(dir, MARKER))) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, ".git", "info"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, ".gitignore"), "build/\n");
  for (let i = 0; i < FILES; i++) {
    const d = join(dir, "packages", `pkg${Math.floor(i / 5000)}`, "src", `mod${Math.floor(i / 100) % 50}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `${["user", "order", "billing", "session", "report"][i % 5]}Service${i}.ts`), "");
  }
  for (let i = 0; i < IGNORED; i++) {
    const d = join(dir, "build", `c${Math.floor(i / 500)}`);
    if (i % 500 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `o${i}.js`), "");
  }
  writeFileSync(join(dir, MARKER), String(FILES));
}

export async function benchAtCompletion() {
  const keep = process.env.BENCH_AT_TREE;
  const dir = keep ?? join(realpathSync(mkdtempSync(join(tmpdir(), "deerflow-bench-at-"))), "tree");
  const t0 = performance.now();
  makeTree(dir);
  console.log(`\n@ completion: ${FILES} files (+${IGNORED} ignored) made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  try {
    const rgMs = [];
    const indexMs = [];
    let index;
    for (let r = 0; r < 3; r++) {
      let t = performance.now();
      const out = spawnSync("rg", ["--files", "--hidden", "-g", "!.git"], { cwd: dir, maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
      rgMs.push(performance.now() - t);
      if (r === 0) console.log(`  rg --files lists ${out.stdout.toString().split("\n").filter(Boolean).length} files`);
      index = new WorkspacePathIndex(dir);
      t = performance.now();
      await index.refresh();
      indexMs.push(performance.now() - t);
    }
    console.log(`  index (background, once): ${median(indexMs).toFixed(0)} ms for ${index.size} files; rg --files: ${median(rgMs).toFixed(0)} ms (${(median(indexMs) / median(rgMs)).toFixed(2)}×)`);
    const leaked = index.search("build/", 5).filter((p) => p.startsWith("build/"));
    if (leaked.length) throw new Error(`ignored files in the index: ${leaked.join(", ")}`);
    for (const typed of ["packages/pkg7/src/mod23/orderService37301.ts", "orderService37301", "bilsvc9"]) {
      const per = [];
      let shown = [];
      // Each keystroke: the query so far, as the menu asks for it (a fresh index state per word typed).
      for (let i = 1; i <= typed.length; i++) {
        const t = performance.now();
        shown = index.search(typed.slice(0, i), 8);
        per.push(performance.now() - t);
      }
      console.log(
        `  typing "${typed}": per keystroke median ${median(per).toFixed(2)} ms, max ${Math.max(...per).toFixed(2)} ms (first keystroke ${per[0].toFixed(2)} ms); top: ${shown[0] ?? "(none)"}`,
      );
    }
  } finally {
    if (!keep) rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAtCompletion();
