// The recorded test durations that order a fresh clone's run (slow-first-sequencer.ts) name only files that exist: a
// renamed or deleted file's figure would silently stop ordering it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("test-durations.json", () => {
  it("records only test files that exist, each with a positive number of seconds", () => {
    const recorded = JSON.parse(readFileSync(join(ROOT, "test/support/test-durations.json"), "utf8")) as Record<string, number>;
    const stale = Object.keys(recorded).filter((p) => !existsSync(join(ROOT, p)));
    expect(stale, "run scripts/record-test-durations.mjs").toEqual([]);
    for (const [p, s] of Object.entries(recorded)) expect(s, p).toBeGreaterThan(0);
  });
});
