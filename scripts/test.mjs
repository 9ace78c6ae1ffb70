// `npm test` after the build check: the typecheck and the linter run beside the test suite instead of before it. They
// use one core for ~35 s where the suite's workers leave part of the machine idle (tests wait on processes,
// timers and disks), so the whole takes about the suite's time. Their output is held and printed after the suite's;
// the exit code is the first failure's, and every check runs to its end whatever the others do.
import { spawn } from "node:child_process";

function run(command, args, { quiet }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (quiet) {
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
    }
    child.on("error", (err) => resolve({ code: 1, output: `${command}: ${err.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const checks = [
  ["typecheck", "npx", ["tsc", "-p", "tsconfig.json", "--noEmit"]],
  ["lint", "npx", ["biome", "check", "--error-on-warnings", "."]],
];
const held = checks.map(([name, command, args]) => run(command, args, { quiet: true }).then((r) => ({ name, ...r })));
const suite = await run("npx", ["vitest", "run", ...process.argv.slice(2)], { quiet: false });
let failed = suite.code;
for (const check of await Promise.all(held)) {
  if (check.code === 0) {
    console.log(`${check.name}: ok`);
    continue;
  }
  process.stdout.write(`\n${check.name} failed:\n${check.output}`);
  failed ||= check.code;
}
process.exit(failed);
