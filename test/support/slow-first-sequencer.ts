// The order test files start in: the longest first, so the last minutes are not one long file running alone on a
// core while the other idles. Vitest orders by each file's duration in its results cache (node_modules/.vite), which a
// fresh clone (CI) lacks: its size order started the longest file (the eval suite, ~2 min) last. So when any duration
// is unknown, the durations recorded in test-durations.json (scripts/record-test-durations.mjs) rank the files; a
// file not recorded yet ranks by kind (one that starts real processes or a database, test-kinds.ts, as a long one),
// then size.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { isEndToEnd } from "./test-kinds.js";

const recorded = JSON.parse(readFileSync(new URL("./test-durations.json", import.meta.url), "utf8")) as Record<string, number>;
/** Seconds assumed for a file not recorded yet: an end-to-end file as a typical one, a unit file as a short one. */
const UNRECORDED = { endToEnd: 15, unit: 1 };

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const path = (f: TestSpecification) => relative(config.root, f.moduleId);
    if (files.every((f) => cache.getFileTestResults(`${f.project.name}:${path(f)}`) !== undefined)) return super.sort(files);
    const rank = new Map(
      files.map((f) => {
        const text = readFileSync(f.moduleId, "utf8");
        const seconds = recorded[path(f)] ?? (isEndToEnd(text) ? UNRECORDED.endToEnd : UNRECORDED.unit);
        return [f, seconds * 1e7 + text.length];
      }),
    );
    return [...files].sort((a, b) => rank.get(b)! - rank.get(a)!);
  }
}
