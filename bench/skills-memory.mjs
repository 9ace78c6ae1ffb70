// What skills and memory cost a headless `deerflow run "hi"` against a local OpenAI-compatible stub (instant
// answers, so deerflow's own work shows): with 50 installed skills and memory on (each start drains the run the
// previous one queued: one more model call and the SQLite writes) against memory off and no skills, in the same
// run, interleaved, medians.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { trustFolder } from "../dist/config/trust-store.js";

const BIN = fileURLToPath(new URL("../bin/deerflow", import.meta.url));
const RUNS = Math.max(3, Number(process.env.BENCH_SKILLS_MEMORY_RUNS ?? 7));

function stub() {
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls += 1;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `c${calls}`,
          object: "chat.completion",
          created: 0,
          model: "stub",
          choices: [{ index: 0, message: { role: "assistant", content: '{"facts": []}' }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/v1`, calls: () => calls })));
}

function world(url, { memory, skills }) {
  const root = mkdtempSync(join(tmpdir(), "deerflow-bench-sm-"));
  const userHome = join(root, "user");
  const cwd = join(userHome, "project");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, ".deerflowrc"), JSON.stringify({ models: { stub: { model: "stub", baseUrl: url, stream: false } }, memory: { enabled: memory } }));
  trustFolder(home, join(cwd, ".deerflowrc")); // its baseUrl applies only in a trusted folder
  for (let i = 0; i < skills; i++) {
    const dir = join(cwd, ".deerflow", "skills", `skill-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), `---\nname: skill-${i}\ndescription: Does thing number ${i} when the user asks for it.\n---\nStep one. Step two.\n`);
  }
  const env = { PATH: process.env.PATH, HOME: userHome, DEERFLOW_HOME: home, NO_COLOR: "1", OPENAI_API_KEY: "sk-bench-0000000000", DEERFLOW_DISCOVER_PORTS: "none" };
  return { root, cwd, env };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchSkillsMemory() {
  const s = await stub();
  const base = world(s.url, { memory: false, skills: 0 });
  const full = world(s.url, { memory: true, skills: 50 });
  // Async: the stub answers from this process, so a synchronous spawn would block it and the run would wait forever.
  const time = async (w) => {
    const t0 = performance.now();
    const run = promisify(execFile)(process.execPath, [BIN, "run", "hi"], { cwd: w.cwd, env: w.env });
    // stdin closed, as a shell gives it: an open and silent one is waited for 3 s (docs/cli.md, "Piped input"), which
    // this bench measured in every row.
    run.child.stdin.end();
    await run;
    return performance.now() - t0;
  };
  try {
    await time(base);
    await time(full); // warm-up; also leaves one run queued, so every measured start drains one
    const a = [];
    const b = [];
    for (let i = 0; i < RUNS; i++) {
      a.push(await time(base));
      b.push(await time(full));
    }
    const ma = median(a);
    const mb = median(b);
    console.log(`\n## Skills and memory in \`deerflow run "hi"\` (median of ${RUNS} runs, local stub model)`);
    console.log(`| setup | median | vs baseline |`);
    console.log(`|---|---|---|`);
    console.log(`| memory off, no skills (baseline) | ${ma.toFixed(0)} ms | 1.00x |`);
    console.log(`| memory on (drains the previous run at start) + 50 skills | ${mb.toFixed(0)} ms | ${(mb / ma).toFixed(2)}x |`);
    return { base: ma, full: mb };
  } finally {
    s.server.close();
    rmSync(base.root, { recursive: true, force: true });
    rmSync(full.root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSkillsMemory();
