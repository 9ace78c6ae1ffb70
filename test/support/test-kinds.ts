// Which test files are end-to-end: they start real processes (the built CLI, a PTY) or use the PostgreSQL server,
// through these helpers. One home for the split: vitest's `e2e` / `unit` / `unit-isolated` projects and the order
// files start in.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const E2E_HELPERS = /from "\.\.\/support\/(e2e|cli|pty|postgres|team-machine)\.js"/;
const TEST_FILE = /\.test\.tsx?$/;

export function isEndToEnd(source: string): boolean {
  return E2E_HELPERS.test(source);
}

// What a file sharing its worker's modules with other files must not do (vitest's list for `isolate: false`): replace a
// module (a mock applies only where the module is first loaded) or stub a global or the environment for the worker.
const NEEDS_ISOLATION = /\bvi\.(mock|doMock|unmock|stubGlobal|stubEnv|resetModules)\(/;

export function needsIsolation(source: string): boolean {
  return NEEDS_ISOLATION.test(source);
}

function testFiles(root: string, keep: (source: string) => boolean): string[] {
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : TEST_FILE.test(e.name) ? [join(dir, e.name)] : []));
  return walk(join(root, "test"))
    .filter((f) => keep(readFileSync(f, "utf8")))
    .map((f) => relative(root, f));
}

/** The end-to-end test files under `root`/test that can share their worker's modules, as paths relative to `root`. */
export function endToEndTestFiles(root: string): string[] {
  return testFiles(root, (source) => isEndToEnd(source) && !needsIsolation(source));
}

/** The test files under `root`/test, end-to-end or not, that need a fresh module graph of their own (needsIsolation). */
export function isolatedTestFiles(root: string): string[] {
  return testFiles(root, needsIsolation);
}
