// A generated repository the way real ones look to the search tools: nested .gitignores (one re-including a file,
// one anchored), a .ignore, .git/info/exclude, an ignored build folder, symlinks that stay inside and that lead
// out, a pnpm-style node_modules (a symlink into .pnpm whose files are hard links to a store OUTSIDE the repo),
// a binary file, a name with a newline and a name that is not UTF-8. Every searchable file holds NEEDLE.
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const NEEDLE = "NEEDLE_7f3a";

/** What glob lists for every file by default, in path order (relative to the repository). */
export const VISIBLE = [
  ".gitignore",
  ".ignore",
  "README.md",
  "nested/name\nwith-newline.ts",
  "packages/app/.gitignore",
  "packages/app/src/dist/keep.ts",
  "packages/app/src/main.ts",
  "src/.gitignore",
  "src/blob.bin",
  "src/important.log",
  "src/index.ts",
  "src/util/strings.ts",
];

/** What `grep NEEDLE` finds by default, in order: path and line. */
export const GREP_HITS: Array<[string, number]> = [
  ["README.md", 2],
  ["nested/name\nwith-newline.ts", 1],
  ["packages/app/.gitignore", 2],
  ["packages/app/src/dist/keep.ts", 1],
  ["packages/app/src/main.ts", 1],
  ["src/.gitignore", 3],
  ["src/important.log", 1],
  ["src/index.ts", 2],
  ["src/util/strings.ts", 1],
];

/** Files that exist but are ignored (listed with include_ignored), in path order. */
export const IGNORED = [
  "build/bundle.js",
  "local-notes.md",
  "node_modules/.pnpm/zod@3.23.8/node_modules/zod/index.js",
  "packages/app/dist/app.js",
  "secret-fixtures/f.txt",
  "src/debug.log",
  "src/generated/out.ts",
];

/** The pnpm store file the repository's node_modules links to. */
export const STORE_TEXT = `export const parse = () => "${NEEDLE} from zod";\n`;

function put(path: string, text: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Builds the repository at `repo` and the outside places it links to under `outside`. */
export function makeRepo(repo: string, outside: string): { storeFile: string } {
  const line = `const x = "${NEEDLE}";\n`;
  put(join(repo, ".gitignore"), "build/\n*.log\nnode_modules/\n");
  put(join(repo, ".ignore"), "secret-fixtures/\n");
  put(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
  put(join(repo, ".git", "info", "exclude"), "local-notes.md\n");
  put(join(repo, ".git", "objects", "blob"), line);
  put(join(repo, "README.md"), `# demo\n${NEEDLE} in the readme\n`);
  put(join(repo, "local-notes.md"), line);
  put(join(repo, "secret-fixtures", "f.txt"), line);
  put(join(repo, "build", "bundle.js"), line);
  put(join(repo, "src", ".gitignore"), `generated/\n!important.log\n# ${NEEDLE} in a comment\n`);
  put(join(repo, "src", "index.ts"), `import { s } from "./util/strings";\n${line}`);
  put(join(repo, "src", "util", "strings.ts"), line);
  put(join(repo, "src", "generated", "out.ts"), line);
  put(join(repo, "src", "important.log"), line);
  put(join(repo, "src", "debug.log"), line);
  put(join(repo, "src", "blob.bin"), Buffer.concat([Buffer.from(NEEDLE), Buffer.from([0, 1, 2, 0])]));
  put(join(repo, "packages", "app", ".gitignore"), `/dist\n# ${NEEDLE}\n`);
  put(join(repo, "packages", "app", "dist", "app.js"), line);
  put(join(repo, "packages", "app", "src", "dist", "keep.ts"), line);
  put(join(repo, "packages", "app", "src", "main.ts"), line);
  put(join(repo, "nested", "name\nwith-newline.ts"), line);
  // A name that is not UTF-8: no tool can name it, so neither engine lists it.
  writeFileSync(Buffer.concat([Buffer.from(join(repo, "nested") + "/bad-"), Buffer.from([0xff, 0xfe]), Buffer.from(".ts")]), line);
  // Symlinks: one inside (never followed, never listed by a search), one leading out.
  put(join(outside, "secret", "leak.ts"), `${NEEDLE} OUTSIDE-SECRET\n`);
  symlinkSync(join(repo, "src"), join(repo, "src-link"));
  symlinkSync(join(outside, "secret"), join(repo, "out-link"));
  symlinkSync(join(outside, "secret", "leak.ts"), join(repo, "leak-link.ts"));
  // pnpm: node_modules/zod → .pnpm/zod@3.23.8/node_modules/zod, whose files are hard links to the store.
  const storeFile = join(outside, "pnpm-store", "v3", "files", "ab", "cdef-index.js");
  put(storeFile, STORE_TEXT);
  const pkg = join(repo, "node_modules", ".pnpm", "zod@3.23.8", "node_modules", "zod");
  mkdirSync(pkg, { recursive: true });
  linkSync(storeFile, join(pkg, "index.js"));
  symlinkSync(join(".pnpm", "zod@3.23.8", "node_modules", "zod"), join(repo, "node_modules", "zod"));
  return { storeFile };
}
