// The layer rules of docs/architecture.md, checked by dependency-cruiser on the real import graph (layer-rules.ts):
// the core never imports the UI, imports point down only, and the TUI reaches the runtime only through types (its
// bundle must paint before LangChain loads). Dynamic `import()` and `import type` edges count like static ones.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { IModule } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCEPTIONS, RANK, cruiseLayers, layerOf, type Graph } from "./layer-rules.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A file whose every import (transitively, through deerflow's own files) is deerflow's: no package, no node: module. */
function packageFree(modules: IModule[]): (source: string) => boolean {
  const bySource = new Map(modules.map((m) => [m.source, m]));
  const memo = new Map<string, boolean>();
  const free = (source: string): boolean => {
    if (memo.has(source)) return memo.get(source)!;
    memo.set(source, true); // a cycle adds nothing new
    const deps = bySource.get(source)?.dependencies ?? [];
    const ok = deps.every((d) => d.dependencyTypes.includes("type-only") || (d.dependencyTypes.includes("local") && free(d.resolved)));
    memo.set(source, ok);
    return ok;
  };
  return free;
}

let graph: Graph;
beforeAll(async () => {
  graph = await cruiseLayers(["src"], ROOT);
}, 120_000);

describe("layers (dependency-cruiser on src/)", () => {
  it("every file under src/ belongs to a ranked layer", () => {
    const sources = graph.modules.map((m) => m.source).filter((s) => s.startsWith("src/"));
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.map(layerOf).filter((l) => RANK[l] === undefined)).toEqual([]);
  });

  it("no import breaks a layer rule (static, dynamic or type-only)", () => {
    expect(graph.violations).toEqual([]);
  });

  it("every named exception is still needed and its target package-free", () => {
    const free = packageFree(graph.modules);
    for (const e of EXCEPTIONS) {
      const from = graph.modules.find((m) => m.source === e.from);
      expect(
        from?.dependencies.map((d) => d.resolved),
        `${e.from} no longer imports ${e.to}: drop the exception`,
      ).toContain(e.to);
      expect(free(e.to), `${e.to} (excepted into ${e.from}) must stay package-free`).toBe(true);
    }
  });

  it("the TUI takes only package-free vocabulary files by value, never an index (its first frame loads no LangChain)", () => {
    const free = packageFree(graph.modules);
    const bad = graph.modules
      .filter((m) => m.source.startsWith("src/tui/"))
      .flatMap((m) =>
        m.dependencies
          .filter((d) => !d.dependencyTypes.includes("type-only") && d.resolved.startsWith("src/vocabulary/"))
          .filter((d) => !free(d.resolved) || d.resolved.endsWith("index.ts"))
          .map((d) => `${m.source} → ${d.resolved}`),
      );
    expect(bad).toEqual([]);
  });

  it("the agent factory gets the saver brand check from mode-gate.ts (not the SQLite saver and its driver)", () => {
    const factory = graph.modules.find((m) => m.source === "src/agent/create-deerflow-agent.ts")!;
    const targets = factory.dependencies.map((d) => d.resolved);
    expect(targets).not.toContain("src/persistence/sqlite-saver.ts");
    expect(targets).toContain("src/persistence/mode-gate.ts");
  });
});

// The rules must catch what a text scan of `from "…"` missed; a fixture tree of bad edges proves each rule fires.
describe("layer rules on a fixture tree", () => {
  let dir: string;
  const files: Record<string, string> = {
    // A dynamic import from state/ up into the runtime: the edge the old regex check let through.
    "src/state/lazy.ts": 'export async function load() { return (await import("../runtime/run.js")).run; }\n',
    // A type-only import upward is still an upward edge.
    "src/agent/typed.ts": 'import type { Run } from "../runtime/run.js";\nexport const x: Run | undefined = undefined;\n',
    // state/ doing I/O.
    "src/state/io.ts": 'import { readFileSync } from "node:fs";\nexport const read = () => readFileSync("x");\n',
    // The TUI loading the runtime by value, lazily; and by type (allowed).
    "src/tui/lazy-runtime.ts": 'export const go = () => import("../runtime/run.js");\n',
    "src/tui/typed.ts": 'import type { Run } from "../runtime/run.js";\nexport type R = Run;\n',
    // vocabulary/ importing deerflow's own code.
    "src/vocabulary/words.ts": 'import "../errors.js";\nexport const w = 1;\n',
    // The core reaching the UI, even for a type.
    "src/runtime/ui.ts": 'import type { R } from "../tui/typed.js";\nexport type U = R;\n',
    "src/errors.ts": "export class E extends Error {}\n",
    "src/runtime/run.ts": "export type Run = () => void;\nexport const run: Run = () => {};\n",
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "deerflow-layers-"));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("flags the dynamic import from state/ into runtime/, the type-only upward import, I/O in state/, the TUI's lazy value import, the core importing the UI and vocabulary's", async () => {
    const { violations } = await cruiseLayers(["src"], dir);
    expect(violations.sort()).toEqual(
      [
        "src/agent/typed.ts → src/runtime/run.ts (down-only:agent)",
        "src/runtime/ui.ts → src/tui/typed.ts (core-never-imports-ui)",
        "src/runtime/ui.ts → src/tui/typed.ts (down-only:runtime)",
        "src/state/io.ts → fs (state-is-pure)",
        "src/state/lazy.ts → src/runtime/run.ts (down-only:state)",
        "src/tui/lazy-runtime.ts → src/runtime/run.ts (tui-takes-core-as-types)",
        "src/vocabulary/words.ts → src/errors.ts (down-only:vocabulary)",
        "src/vocabulary/words.ts → src/errors.ts (vocabulary-imports-nothing-of-ours)",
      ].sort(),
    );
  }, 120_000);
});
