// Bundles the TUI (our tui/ code + Ink + React) into dist/tui-bundle/start.cjs after tsc. Loading Ink as ~300
// separate ES modules takes ~600 ms on a 2-core machine; one minified production file takes a fraction of that,
// which is what puts the first frame on screen within the 400 ms budget. The runtime (LangChain, SQLite) is never
// part of the bundle: the TUI imports it as types only, and this script fails the build if a value import slips in.
// CommonJS, one file, like the runtime's bundle: src/cli/code-cache.ts compiles it with V8's code cache. That needs
// a script without top-level await, and two of Ink's modules have one (see `noTopLevelAwait`).
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { refuseDynamicImports } from "./bundle-checks.mjs";
import { NARROW_TEXT_SOURCE, ONE_UNIT_GRAPHEMES_SOURCE } from "./narrow-text.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = `${root}dist/tui-bundle`;
await rm(outDir, { recursive: true, force: true });

/**
 * yoga-layout's entry awaits its WebAssembly (`wrapAssembly(await loadYoga())`): Emscripten instantiates it
 * asynchronously unless given `instantiateWasm`, so it gets one that compiles the module's own embedded bytes
 * synchronously (13 ms) and the layout engine is ready when the entry returns. Ink's reconciler awaits its React
 * devtools and its package.json only when DEV=true; the devtools need a package we do not ship, so DEV is off here.
 */
const noTopLevelAwait = {
  name: "no-top-level-await",
  transform(code, id) {
    if (id.endsWith("/yoga-layout/dist/src/index.js")) {
      const binary = readFileSync(new URL("../binaries/yoga-wasm-base64-esm.js", `file://${id}`), "utf8");
      const base64 = binary.match(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/)?.[1];
      const entry = "const Yoga = wrapAssembly(await loadYoga());";
      if (!base64 || !code.includes(entry)) throw new Error(`yoga-layout changed (${id}): revisit scripts/bundle-tui.mjs`);
      const sync = `const yogaModule = { instantiateWasm(imports, receive) {
        const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(${JSON.stringify(base64)}, "base64")), imports);
        receive(instance);
        return instance.exports;
      } };
      loadYoga(yogaModule);
      if (typeof yogaModule.Node !== "function") throw new Error("yoga-layout did not initialise synchronously");
      const Yoga = wrapAssembly(yogaModule);`;
      return code.replace(entry, sync);
    }
    if (id.endsWith("/ink/build/reconciler.js")) {
      const awaits = ["await import('./devtools.js');", "await loadPackageJson()"];
      if (!awaits.every((a) => code.includes(a)) || !code.includes("import { isDev } from './utils.js';")) {
        throw new Error(`ink changed (${id}): revisit scripts/bundle-tui.mjs`);
      }
      return awaits.reduce((c, a) => c.replace(a, "undefined"), code).replace("import { isDev } from './utils.js';", "const isDev = () => false;");
    }
    return undefined;
  },
};

/** string-width (Ink's, wrap-ansi's, cli-truncate's copies) answers plain narrow text at once (see narrow-text.mjs). */
const narrowTextFastPath = {
  name: "narrow-text-fast-path",
  transform(code, id) {
    if (!/\/string-width\/index\.js$/.test(id) || !code.includes("function stringWidth(")) return undefined;
    const head = /export default function stringWidth\((input|string), options = \{\}\) \{/;
    if (!head.test(code) || !code.includes("import stripAnsi from 'strip-ansi';")) throw new Error(`string-width changed (${id}): revisit scripts/bundle-tui.mjs`);
    return code.replace(
      head,
      (_, input) =>
        `const narrowText = new RegExp(${JSON.stringify(NARROW_TEXT_SOURCE)});
export default function stringWidth(input, options = {}) {
  if (typeof input === "string" && options.ambiguousIsNarrow !== false) {
    // Colours do not count (string-width strips them the same way unless told to count them).
    const text = !options.countAnsiEscapeCodes && (input.includes("\u001B") || input.includes("\u009B")) ? stripAnsi(input) : input;
    if (narrowText.test(text)) return text.length;
  }
  return stringWidthOf(input, options);
}
function stringWidthOf(${input}, options = {}) {`,
    );
  },
};

/**
 * Ink wraps text with wrap-ansi and `trim: false` (to keep indentation), which leaves the space at a soft break at
 * the start of the next row (" next"), or alone on a row when a word ends on the last column. Each source line is
 * wrapped on its own, and in its continuation rows one such break space is dropped (colour codes before it kept).
 * Ink measures a text's height with the same function, so its layout stays exact.
 */
const wrapBreakSpaces = {
  name: "wrap-break-spaces",
  transform(code, id) {
    if (!id.endsWith("/ink/build/wrap-text.js")) return undefined;
    const call = /wrappedText = wrapAnsi\(text, maxWidth, \{\s*trim: false,\s*hard: true,\s*\}\);/;
    if (!call.test(code)) throw new Error(`ink changed (${id}): revisit scripts/bundle-tui.mjs`);
    return `${code.replace(call, "wrappedText = text.split('\\n').map((line) => dropBreakSpaces(wrapAnsi(line, maxWidth, { trim: false, hard: true }))).join('\\n');")}
function dropBreakSpaces(wrapped) {
  const rows = wrapped.split('\\n');
  const out = [rows[0]];
  for (const row of rows.slice(1)) {
    const plain = row.replace(/\\u001B\\[[0-9;]*m/g, '');
    if (plain === ' ') continue;
    out.push(/^(?:\\u001B\\[[0-9;]*m)* (?! )/.test(row) ? row.replace(/^((?:\\u001B\\[[0-9;]*m)*) /, '$1') : row);
  }
  return out.join('\\n');
}`;
  },
};

/** Ink's per-line tokenizer walks plain narrow text (with its colour codes) by code unit (see narrow-text.mjs). */
const tokenizeFastPath = {
  name: "tokenize-fast-path",
  transform(code, id) {
    if (!id.endsWith("/@alcalzone/ansi-tokenize/build/tokenize.js")) return undefined;
    const loop = "for (const { segment, index } of segmenter.segment(str)) {";
    if (!code.includes(loop)) throw new Error(`@alcalzone/ansi-tokenize changed (${id}): revisit scripts/bundle-tui.mjs`);
    return `${code.replace(loop, "for (const { segment, index } of graphemesOf(str)) {")}
const oneUnitGraphemes = new RegExp(${JSON.stringify(ONE_UNIT_GRAPHEMES_SOURCE)});
function graphemesOf(str) {
  return oneUnitGraphemes.test(str) ? Array.from(str, (segment, index) => ({ segment, index })) : segmenter.segment(str);
}`;
  },
};

/**
 * Intl.Segmenter's first construction loads ICU's break-iterator data (15-25 ms), and Ink's dependencies construct
 * seven at load time; the first frame segments nothing (narrow text, above), so each is built on its first use.
 */
const LAZY_SEGMENTER = "\0deerflow-lazy-segmenter";
const lazySegmenter = {
  name: "lazy-segmenter",
  resolveId: (id) => (id === LAZY_SEGMENTER ? id : undefined),
  load: (id) =>
    id === LAZY_SEGMENTER
      ? `export class LazySegmenter {
  #args; #segmenter;
  constructor(...args) { this.#args = args; }
  #real() { return (this.#segmenter ??= new Intl.Segmenter(...this.#args)); }
  segment(text) { return this.#real().segment(text); }
  resolvedOptions() { return this.#real().resolvedOptions(); }
}`
      : undefined,
  transform(code, id) {
    if (id === LAZY_SEGMENTER || !code.includes("new Intl.Segmenter")) return undefined;
    if (!/^\s*(import|export)\s/m.test(code)) throw new Error(`${id} constructs an Intl.Segmenter outside an ES module: revisit scripts/bundle-tui.mjs`);
    return `import { LazySegmenter as DeerflowLazySegmenter } from ${JSON.stringify(LAZY_SEGMENTER)};\n${code.replaceAll("new Intl.Segmenter", "new DeerflowLazySegmenter")}`;
  },
};

const leaked = new Set();
const bundle = await rolldown({
  input: `${root}dist/tui/start.js`,
  platform: "node",
  // Ink's optional devtools integration is only loaded with DEV=true and needs a package we do not ship.
  external: (id, importer) => {
    if (id === "react-devtools-core") return true;
    if (importer && importer.includes("/dist/") && !importer.includes("/node_modules/") && id.startsWith("..")) {
      const target = new URL(id, `file://${importer}`).pathname;
      if (!target.includes("/dist/tui/") && !target.endsWith("/dist/errors.js")) leaked.add(`${importer.slice(root.length)} → ${id}`);
    }
    return false;
  },
  transform: { define: { "process.env.NODE_ENV": '"production"' } },
  plugins: [noTopLevelAwait, narrowTextFastPath, tokenizeFastPath, wrapBreakSpaces, lazySegmenter],
  logLevel: "warn",
});
if (leaked.size > 0) {
  throw new Error(`The TUI bundle must not contain the runtime (import it as a type, or load it through ChatSession):\n  ${[...leaked].join("\n  ")}`);
}
// keepNames: LangChain serializes a message by its class name (`RemoveMessage`); mangled names ("Sd") written into a
// checkpoint by the bundled chat made the thread unreadable to the unbundled `deerflow run` ("Invalid identifer").
// charset "ascii": non-ASCII characters are written as escapes, so src/cli/code-cache.ts reads the file as latin1 into a
// one-byte string (a UTF-8 decode of the whole file was a cold start's largest single cost before compiling).
await bundle.write({ dir: outDir, format: "cjs", codeSplitting: false, minify: true, keepNames: true, charset: "ascii", entryFileNames: "[name].cjs" });
await bundle.close();
refuseDynamicImports(`${outDir}/start.cjs`);
