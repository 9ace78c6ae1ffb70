// The order test files start in: the longest first, so the last minutes are not one long file running alone on a
// core while the other idles. Vitest orders by each file's duration in its results cache (node_modules/.vite), which a
// fresh clone (CI) lacks; it then starts the largest files first, and size says little (a large unit-test file runs
// in a second, a small one that spawns the CLI for minutes). So when any duration is unknown, files that start real
// processes or a database (test-kinds.ts) go first, each group largest first.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { isEndToEnd } from "./test-kinds.js";

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(config.root, f.moduleId)}`;
    if (files.every((f) => cache.getFileTestResults(key(f)) !== undefined)) return super.sort(files);
    const rank = new Map(
      files.map((f) => {
        const text = readFileSync(f.moduleId, "utf8");
        return [f, (isEndToEnd(text) ? 1e9 : 0) + text.length];
      }),
    );
    return [...files].sort((a, b) => rank.get(b)! - rank.get(a)!);
  }
}
