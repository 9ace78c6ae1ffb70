// Search on a big repository: the grep, glob, ls and read_file tools (invoked as the agent's ToolNode calls them)
// against rg, `rg --files`, find and cat on the same generated tree, measured in the same run. The tree: 100,000
// files, half of them build output under an ignored build/ (.gitignore), the other half source in nested folders.
// Targets (issue 21): grep ≤ 2× rg, glob ≤ 2× `rg --files -g <pattern>`, read_file ≤ 3× cat. The tree is made once
// (BENCH_SEARCH_TREE names a directory to reuse; it is kept then) and removed at the end otherwise. Variants
// alternate within each round, so machine drift hits all of them; each row is the median of the rounds.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createGlobTool } from "../dist/tools/glob.js";
import { createGrepTool } from "../dist/tools/grep.js";
import { createLsTool } from "../dist/tools/ls.js";
import { createReadFileTool } from "../dist/tools/read-file.js";
import { findRipgrep } from "../dist/tools/ripgrep.js";

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 7);
const NEEDLE = "ZX_RARE_NEEDLE_41";
const MARKER = ".deerflow-bench-tree";

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** src/pNN/mNN/fNN.ts (half the files) and build/cNN/oNN.js (the other half, ignored); a few hold the needle. */
function makeTree(dir) {
  if (existsSync(join(dir, MARKER))) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A git repository, as users' are (plain rg honours .gitignore only inside one).
  mkdirSync(join(dir, ".git", "info"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, ".gitignore"), "build/\n*.log\n");
  const half = Math.floor(FILES / 2);
  const body = (i) =>
    `// file ${i}\nimport { helper${i % 97} } from "../util";\nexport function fn${i}(x: number): number {\n  return helper${i % 97}(x) + ${i};\n}\n` +
    (i % 5000 === 17 ? `export const marker = "${NEEDLE}";\n` : "");
  for (let i = 0; i < half; i++) {
    const d = join(dir, "src", `p${String(Math.floor(i / 1000)).padStart(2, "0")}`, `m${String(Math.floor(i / 100) % 10)}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.ts`), body(i));
  }
  for (let i = 0; i < FILES - half; i++) {
    const d = join(dir, "build", `c${String(Math.floor(i / 500)).padStart(3, "0")}`);
    if (i % 500 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `o${i}.js`), `"use strict";${body(i)}`);
  }
  writeFileSync(join(dir, "README.md"), "# bench\n");
  writeFileSync(join(dir, MARKER), String(FILES));
}

let seq = 0;
function call(t, args, mounts) {
  return t.invoke(args, { configurable: { thread_id: "bench-search" }, state: { thread_data: mounts }, toolCallId: `call_${++seq}` });
}

function run(cmd, args, cwd) {
  // stdin closed: rg without a path argument would search a piped stdin.
  const r = spawnSync(cmd, args, { cwd, maxBuffer: 1 << 30, encoding: "buffer", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Rounds of every variant in turn (the order rotates); name → median ms. */
async function rounds(variants) {
  const names = Object.keys(variants);
  for (const n of names) await variants[n](); // warm-up: page cache, the rg lookup, JIT
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(k + r) % names.length];
      const t0 = performance.now();
      await variants[n]();
      times[n].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

export async function benchSearch() {
  const rg = findRipgrep();
  const given = process.env.BENCH_SEARCH_TREE;
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "deerflow-bench-search-")));
  const tree = given ?? join(scratch, "repo");
  const t0 = performance.now();
  makeTree(tree);
  const made = performance.now() - t0;
  const mounts = { workspace_path: tree, uploads_path: join(scratch, "uploads"), outputs_path: join(scratch, "outputs") };
  mkdirSync(mounts.uploads_path, { recursive: true });
  mkdirSync(mounts.outputs_path, { recursive: true });
  const grep = createGrepTool();
  const glob = createGlobTool();
  const ls = createLsTool();
  const read = createReadFileTool();
  const sample = "src/p10/m3/f10300.ts";
  const rows = [];
  try {
    // Sanity: the tools and the baselines agree on what they find.
    const hits = String(await call(grep, { pattern: NEEDLE }, mounts))
      .split("\n")
      .filter((l) => l.startsWith("/mnt"));
    const rgHits = rg
      ? String(run(rg, ["-n", NEEDLE], tree))
          .trim()
          .split("\n")
      : [];
    if (rg && hits.length !== rgHits.length) throw new Error(`grep found ${hits.length} lines, rg ${rgHits.length}`);
    const globbed = String(await call(glob, { pattern: "**/f1234*.ts", max_results: 10000 }, mounts)).split("\n");
    if (rg) {
      const rgFiles = String(run(rg, ["--files", "-g", "**/f1234*.ts"], tree))
        .trim()
        .split("\n");
      if (globbed.length !== rgFiles.length) throw new Error(`glob listed ${globbed.length} files, rg --files ${rgFiles.length}`);
    }

    const section = async (name, variants, baseline, target) => {
      const res = await rounds(variants);
      for (const [variant, ms] of Object.entries(res))
        rows.push({
          section: name,
          variant,
          ms,
          ratio: baseline && res[baseline] ? ms / res[baseline] : undefined,
          target: variant === Object.keys(variants).find((v) => v.endsWith("tool")) ? target : undefined,
        });
    };
    const rgOr = (args) => (rg ? { [`rg ${args.join(" ")}`]: () => run(rg, args, tree) } : {});
    await section(
      "grep",
      {
        ...rgOr(["-n", NEEDLE]),
        [`grep -rn --exclude-dir=build`]: () => run("grep", ["-rn", "--exclude-dir=build", NEEDLE, "."], tree),
        "grep tool": () => call(grep, { pattern: NEEDLE }, mounts),
      },
      rg ? `rg -n ${NEEDLE}` : undefined,
      2,
    );
    await section(
      "glob",
      {
        ...rgOr(["--files", "-g", "**/f1234*.ts"]),
        "find -name": () => run("find", [".", "-path", "./build", "-prune", "-o", "-name", "f1234*.ts", "-print"], tree),
        "glob tool": () => call(glob, { pattern: "**/f1234*.ts" }, mounts),
      },
      rg ? "rg --files -g **/f1234*.ts" : undefined,
      2,
    );
    await section(
      "ls",
      {
        "find -maxdepth 2": () => run("find", [".", "-maxdepth", "2"], tree),
        "ls tool": () => call(ls, { path: "." }, mounts),
      },
      "find -maxdepth 2",
    );
    await section(
      "read_file",
      {
        cat: () => run("cat", [sample], tree),
        "read_file tool": () => call(read, { path: sample }, mounts),
      },
      "cat",
      3,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const ms = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(1)} ms`);
  console.log(`\n## Search on a ${FILES.toLocaleString("en")}-file repository (half ignored build output)`);
  console.log(
    `engine: ${rg ? `ripgrep (${rg})` : "JavaScript walker (rg not on PATH)"}; tree ${given ? `reused at ${given}` : `generated in ${(made / 1000).toFixed(1)} s`}; median of ${ROUNDS} rounds`,
  );
  console.log(`| tool | variant | median | vs baseline | target |`);
  console.log(`|---|---|---|---|---|`);
  for (const r of rows) {
    const verdict = r.target === undefined || r.ratio === undefined ? "" : `≤ ${r.target}x ${r.ratio <= r.target ? "met" : "NOT met"}`;
    console.log(`| ${r.section} | ${r.variant} | ${ms(r.ms)} | ${r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}x`} | ${verdict} |`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSearch();
