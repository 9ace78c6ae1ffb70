// The command audit's cost per bash call (issue 26: it moved from a hand lexer onto tree-sitter-bash): the grammar's
// one-time load, then the median time to audit typical commands. Run after `npm run build`:
// `node bench/shell-audit.mjs` (BASELINE=<dir with an older dist/sandbox/shell-audit.js> compares against it).
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { execa } from "execa";

const COMMANDS = [
  "npm test",
  "ls -la && git status --porcelain",
  "grep -rn 'TODO' src | head -20",
  "cd packages/app && npm run build 2>&1 | tail -40",
  "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"name\"])' < package.json",
  "find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l | sort -n | tail -5",
  "cat <<'EOF' > notes.md\n# Notes\n- one\n- two\nEOF",
  'for f in src/*.ts; do echo "$f: $(wc -l < "$f")"; done',
];
const ITERS = 2_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The same-run baseline: what the audited command itself costs at the least (a bare bash spawn), median of 40. */
async function bashSpawnMs() {
  const times = [];
  for (let i = 0; i < 40; i++) {
    const s = performance.now();
    await execa("bash", ["-c", "true"]);
    times.push(performance.now() - s);
  }
  return median(times);
}

async function measure(dir, label) {
  const t0 = performance.now();
  const { auditCommand } = await import(pathToFileURL(join(dir, "dist/sandbox/shell-audit.js")).href);
  await auditCommand("true");
  const load = performance.now() - t0;
  const perCommand = [];
  for (const cmd of COMMANDS) {
    for (let i = 0; i < 200; i++) await auditCommand(cmd);
    const times = [];
    for (let i = 0; i < ITERS; i++) {
      const s = performance.now();
      await auditCommand(cmd);
      times.push(performance.now() - s);
    }
    perCommand.push(median(times) * 1000);
  }
  const mean = perCommand.reduce((a, b) => a + b, 0) / perCommand.length;
  const spawn = await bashSpawnMs();
  console.log(`${label}: audit mean ${mean.toFixed(0)} µs = ${((mean / 1000 / spawn) * 100).toFixed(2)} % of a bare execa("bash", ["-c", "true"]) (${spawn.toFixed(1)} ms, same run)`);
  console.log(
    `${label}: first audit (module + grammar load) ${load.toFixed(1)} ms; median per command ${perCommand.map((u) => u.toFixed(0)).join(", ")} µs; mean ${(perCommand.reduce((a, b) => a + b, 0) / perCommand.length).toFixed(0)} µs`,
  );
}

export async function benchShellAudit() {
  console.log("\n## the command audit (tree-sitter-bash) per bash call");
  await measure(new URL("..", import.meta.url).pathname, "tree-sitter-bash");
  if (process.env.BASELINE) await measure(process.env.BASELINE, "baseline");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchShellAudit();
