// Which test files are end-to-end: they start real processes (the built CLI, a PTY) or use the PostgreSQL server,
// through these helpers. One home for the split: vitest's `e2e` / `unit` projects and the order files start in.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const E2E_HELPERS = /from "\.\.\/support\/(e2e|cli|pty|postgres|team-machine)\.js"/;
const TEST_FILE = /\.test\.tsx?$/;

export function isEndToEnd(source: string): boolean {
  return E2E_HELPERS.test(source);
}

/** The end-to-end test files under `root`/test, as paths relative to `root`. */
export function endToEndTestFiles(root: string): string[] {
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : TEST_FILE.test(e.name) ? [join(dir, e.name)] : []));
  return walk(join(root, "test"))
    .filter((f) => isEndToEnd(readFileSync(f, "utf8")))
    .map((f) => relative(root, f));
}
