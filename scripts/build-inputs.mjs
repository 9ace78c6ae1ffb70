// Whether dist/ was built from the sources as they are now, so `npm test` builds only when something changed: CI's
// `npm ci` has just built (through `prepare`), and building again cost ~35 s of CPU on the 2-core machine.
//   --record   after a build: writes a hash of the build's inputs to dist/.build-inputs
//   --current  exits 0 when dist/.build-inputs matches the inputs now (and the built entry points exist), else 1
// The inputs: every file under src/ and scripts/, the tsconfigs, package.json and the lockfile (a dependency's new
// version changes the bundles). Contents, not modification times: a fresh clone's times say nothing.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const STAMP = join(root, "dist", ".build-inputs");
const OUTPUTS = ["dist/cli/main.js", "dist/tui-bundle/start.cjs", "dist/runtime-bundle/runtime.cjs"];
const INPUT_DIRS = ["src", "scripts"];
const INPUT_FILES = ["tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"];

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : e.isFile() ? [path] : [];
  });
}

function inputsHash() {
  const hash = createHash("sha256");
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(join(root, d))), ...INPUT_FILES.map((f) => join(root, f)).filter(existsSync)];
  for (const file of files.map((f) => relative(root, f)).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const mode = process.argv[2];
if (mode === "--record") {
  writeFileSync(STAMP, `${inputsHash()}\n`);
} else if (mode === "--current") {
  const built = existsSync(STAMP) && OUTPUTS.every((f) => existsSync(join(root, f)));
  const current = built && readFileSync(STAMP, "utf8").trim() === inputsHash();
  if (!current) process.stderr.write("dist/ is missing or older than the sources: building\n");
  process.exit(current ? 0 : 1);
} else {
  process.stderr.write("usage: node scripts/build-inputs.mjs --record | --current\n");
  process.exit(2);
}
