import { defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.js";

export default defineConfig({
  test: {
    // The checkpoint-validation suite registers its tests through vitest globals.
    globals: true,
    include: ["test/**/*.test.{ts,tsx}"],
    // Generous: CLI tests spawn several real processes each; on a loaded 2-core machine one can take a minute.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    // Two cores: end-to-end tests spawn real processes; keep parallelism modest.
    maxWorkers: 2,
    // The longest files first (see the file): a long file started last would finish alone.
    sequence: { sequencer: SlowFirstSequencer },
    // A PostgreSQL server for the team-database tests (started when it is down; see the file).
    globalSetup: ["test/support/postgres-global-setup.ts"],
  },
});
