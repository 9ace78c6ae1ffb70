// Loads the runtime (runtime-entry.ts) as one bundled file through V8's code cache (code-cache.ts), kept in the
// user's cache directory (config/cache-home.ts). Running from src (tests) there is no bundle: the modules load as
// they are, and both read and write the same threads (scripts/bundle-runtime.mjs keeps class names for that).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cacheHomeOf } from "../config/cache-home.js";
import { type LoadedBundle, loadBundle } from "./code-cache.js";
import { debugLog } from "../model/debug-log.js";
// Each sets a V8 flag when loaded. V8 refuses a code cache written under other flags, so they are set here, before any
// bundle is compiled, rather than halfway through running the runtime's bundle (which carries the same modules):
// otherwise every cache written carries a flag the next start compiles without, and is never used.
import "../tools/bounded-regex.js";
import "../sandbox/wasm-baseline.js";

export type Runtime = typeof import("./runtime-entry.js");

let runtime: Promise<Runtime> | undefined;
let bundle: LoadedBundle<Runtime> | undefined;

/**
 * The runtime, loaded once per process. `use` names the command (`run`, `chat`, `threads`…): each keeps a cache of
 * what its own start compiled (code-cache.ts loadBundle).
 */
export function loadRuntime(use: string): Promise<Runtime> {
  runtime ??= (async () => {
    const bundled = fileURLToPath(new URL("../runtime-bundle/runtime.cjs", import.meta.url));
    if (!existsSync(bundled)) return import("./runtime-entry.js");
    const cacheDir = cacheHomeOf();
    bundle = loadBundle<Runtime>(bundled, cacheDir, use);
    // How the start went: a start that keeps compiling from scratch shows here (--debug, DEERFLOW_LOG).
    debugLog("cli.code_cache", { bundle: "runtime", use, cache: bundle.cache, dir: cacheDir });
    return bundle.exports;
  })();
  return runtime;
}

/**
 * Keeps the code compiled so far (the bundle and what this start ran of it) for the next start. Only the first
 * start with a new build or node pays for it (tens of ms); a no-op when the cache was used.
 */
export function saveRuntimeCache(): void {
  bundle?.saveCache();
}

/**
 * Runs a command of the runtime and returns its exit code. The compiled code is kept only after a command that
 * ended well: one that stopped at a configuration error ran little of the runtime, and a used cache is never
 * rewritten, so every later start would compile the rest again.
 */
export async function fromRuntime(use: string, command: (runtime: Runtime) => Promise<number>): Promise<number> {
  const code = await command(await loadRuntime(use));
  if (code === 0) saveRuntimeCache();
  return code;
}
