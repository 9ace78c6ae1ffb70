// Bundles the TUI (our tui/ code + Ink + React) into dist/tui-bundle/start.js after tsc. Loading Ink as ~300
// separate ES modules takes ~600 ms on a 2-core machine; one minified production file takes a fraction of that,
// which is what puts the first frame on screen within the 400 ms budget. The runtime (LangChain, SQLite) is never
// part of the bundle: the TUI imports it as types only, and this script fails the build if a value import slips in.
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = `${root}dist/tui-bundle`;
await rm(outDir, { recursive: true, force: true });

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
  logLevel: "warn",
});
if (leaked.size > 0) {
  throw new Error(`The TUI bundle must not contain the runtime (import it as a type, or load it through ChatSession):\n  ${[...leaked].join("\n  ")}`);
}
// keepNames: LangChain serializes a message by its class name (`RemoveMessage`); mangled names ("Sd") written into a
// checkpoint by the bundled chat made the thread unreadable to the unbundled `deerflow run` ("Invalid identifer").
await bundle.write({ dir: outDir, format: "esm", minify: true, keepNames: true, entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" });
await bundle.close();
