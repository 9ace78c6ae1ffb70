// Records how long each test file took, for the order files start in (test/support/slow-first-sequencer.ts): a fresh
// clone (CI) has no vitest results cache, and without durations the longest file can start last and run alone.
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json && node scripts/record-test-durations.mjs /tmp/vitest.json
// Seconds, rounded up; stale figures only cost order, never a result.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const report = JSON.parse(readFileSync(process.argv[2] ?? "/tmp/vitest.json", "utf8"));
const seconds = Object.fromEntries(
  report.testResults.map((f) => [relative(root, f.name), Math.max(1, Math.ceil((f.endTime - f.startTime) / 1000))]).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
);
writeFileSync(new URL("../test/support/test-durations.json", import.meta.url), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`recorded ${Object.keys(seconds).length} files`);
