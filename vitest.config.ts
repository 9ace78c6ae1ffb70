import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.js";
import { endToEndTestFiles, isolatedTestFiles } from "./test/support/test-kinds.js";

const ROOT = fileURLToPath(new URL(".", import.meta.url));
const TESTS = ["test/**/*.test.{ts,tsx}"];
// Files that start real processes or use PostgreSQL (test-kinds.ts); `npx vitest run --project 'unit*'` runs the rest.
const E2E = endToEndTestFiles(ROOT);
// Files that mock a module or stub the environment: each gets its own module graph (test-kinds.ts).
const ISOLATED = isolatedTestFiles(ROOT);

export default defineConfig({
  test: {
    // The checkpoint-validation suite registers its tests through vitest globals.
    globals: true,
    // Generous: CLI tests spawn several real processes each; on a loaded 2-core machine one can take a minute.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    // Three workers on two cores: the suite's files wait on processes, timers and disks, so two workers left a quarter
    // of the CPU idle (742 s of CPU in 512 s); three use it (465 s wall against 537 s). Tests must pass under load.
    maxWorkers: 3,
    // The longest files first (see the file): a long file started last would finish alone.
    sequence: { sequencer: SlowFirstSequencer },
    // No test reads or writes the real ~/.deerflow: code that defaults to it (a shell run without settings notes its
    // workspace in the data directory) gets a folder of the suite's own, which need not exist.
    env: { DEERFLOW_HOME: join(tmpdir(), `deerflow-test-data-${process.getuid?.() ?? "user"}`) },
    // A PostgreSQL server for the team-database tests (started when it is down; see the file).
    globalSetup: ["test/support/postgres-global-setup.ts"],
    projects: [
      // Files share their worker's modules (isolate: false): re-importing the agent's module graph for each file cost
      // more than many files' tests (the e2e files that drive main() in-process: 75 s of imports per run, 6 s shared).
      // unit-file-env.ts puts back the environment and cwd a file leaves. Files that need their own graph (a mock)
      // run in `unit-isolated`.
      { extends: true, test: { name: "e2e", include: E2E, isolate: false, setupFiles: ["test/support/unit-file-env.ts"] } },
      { extends: true, test: { name: "unit", include: TESTS, exclude: [...configDefaults.exclude, ...E2E, ...ISOLATED], isolate: false, setupFiles: ["test/support/unit-file-env.ts"] } },
      { extends: true, test: { name: "unit-isolated", include: ISOLATED } },
    ],
  },
});
