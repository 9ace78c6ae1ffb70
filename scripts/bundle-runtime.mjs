// Bundles the runtime (cli/runtime-entry.js: the chat's session and every command that loads the runtime, with
// LangChain, LangGraph, the OpenAI client, zod, MCP…) into dist/runtime-bundle/runtime.cjs after tsc. Node loads it
// as some 1,500 separate ES modules otherwise: resolving, reading and compiling them took 1.4-2.7 s on the shared
// 2-core machine against 0.5-0.6 s for one minified file (`npm run bench`: "ready"). `deerflow chat`, `run`,
// `threads`, `eval`… load it through cli/load-runtime.ts; the library entry (package.json "main") stays dist/ as
// compiled.
// Native and optional packages stay external (loaded from node_modules as usual). So does web-tree-sitter (the shell
// audit's bash grammar): sandbox/shell-grammar.ts loads it through createRequire at run time, which the bundler leaves
// alone, so it finds its own .wasm, and tree-sitter-bash's, in node_modules.
// CommonJS, one file: src/cli/code-cache.ts compiles it as a vm.Script with V8's code cache, which Node 20 offers for
// scripts only (not ES modules); that takes most of the remaining compile time off every start after the first.
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { refuseDynamicImports } from "./bundle-checks.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = `${root}dist/runtime-bundle`;
await rm(outDir, { recursive: true, force: true });

const bundle = await rolldown({
  input: { runtime: `${root}dist/cli/runtime-entry.js` },
  platform: "node",
  // better-sqlite3 is a native addon; pg asks for its optional native binding (pg-native) only when used. web_fetch's
  // page conversion (pdf.js through unpdf, linkedom, Readability, turndown) is required on the first fetch only
  // (tools/web/page-content.ts): bundled, it more than doubled the file every start reads (2.9 → 5.4 MB).
  external: (id) => /^(better-sqlite3|pg-native|unpdf|linkedom|@mozilla\/readability|turndown)(\/|$)/.test(id),
  // jsonc-parser's "main" is a UMD build whose require("./impl/format") calls the bundler cannot follow; its ES build
  // ("module") bundles cleanly. Unbundled Node keeps loading the UMD build.
  resolve: { alias: { "jsonc-parser": `${root}node_modules/jsonc-parser/lib/esm/main.js` } },
  logLevel: "warn",
});
// keepNames: LangChain serializes a message by its class name (`RemoveMessage`); mangled names ("Sd") written into a
// checkpoint by the bundled chat made the thread unreadable to the unbundled runtime ("Invalid identifer"): the
// library entry, the tests, and every deerflow before this bundle served `run` read the same threads.
// charset "ascii": non-ASCII characters are written as escapes, so src/cli/code-cache.ts reads the file as latin1 into a
// one-byte string (a UTF-8 decode of the whole file was a cold start's largest single cost before compiling).
await bundle.write({ dir: outDir, format: "cjs", codeSplitting: false, minify: true, keepNames: true, charset: "ascii", entryFileNames: "[name].cjs" });
await bundle.close();
refuseDynamicImports(`${outDir}/runtime.cjs`);
