// The layer rules of docs/architecture.md, checked on the source: the core never imports the UI, and the TUI reaches
// the runtime only through types (its bundle must paint before LangChain loads).
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

/** `[specifier, typeOnly]` of every static import/export-from in a file. */
function imports(file: string): [string, boolean][] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)].map((m) => [m[3]!, Boolean(m[2])]);
}

const all = files(SRC).map((f) => ({ rel: relative(SRC, f), imports: imports(f) }));

describe("layers", () => {
  it("nothing below tui/ and cli/ imports ink, react or the TUI", () => {
    const bad = all
      .filter((f) => !f.rel.startsWith("tui/") && !f.rel.startsWith("cli/"))
      .flatMap((f) => f.imports.filter(([s]) => /^(ink|react)(\/|$)/.test(s) || s.includes("/tui/")).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });

  it("the TUI imports the runtime and lower layers as types only", () => {
    const bad = all
      .filter((f) => f.rel.startsWith("tui/"))
      .flatMap((f) => f.imports.filter(([s, typeOnly]) => !typeOnly && /^(\.\.\/)+(runtime|agent|middleware|tools|sandbox|state|persistence|config|subagents)\//.test(s)).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });

  it("state/ stays pure: no I/O modules", () => {
    const bad = all
      .filter((f) => f.rel.startsWith("state/"))
      .flatMap((f) => f.imports.filter(([s]) => /^(node:)?(fs|child_process|net|http|https)(\/|$)|better-sqlite3|execa/.test(s)).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });
});

// docs/architecture.md's layer order, highest first; a file may import its own layer and any lower one, never a higher.
// `errors.ts` (typed errors every layer throws) and `vocabulary/` (the shared words) sit under everything.
const RANK: Record<string, number> = {
  cli: 11,
  // `deerflow eval`: a CLI-level driver of the runtime (like `deerflow run`); nothing below the CLI imports it.
  eval: 11,
  tui: 10,
  runtime: 9,
  subagents: 8,
  agent: 7,
  middleware: 6,
  tools: 5,
  // MCP servers and their tools (the adapter on the SDK): beside the built-in tools, above the sandbox they may run in.
  mcp: 5,
  sandbox: 4,
  // Skill discovery and activation text: reads SKILL.md folders, names their sandbox mount (sandbox/paths).
  skills: 4,
  state: 3,
  persistence: 2,
  // The shadow git repositories of rewind: storage beside the SQLite file.
  snapshots: 2,
  // The memory store (its own SQLite file), the fact filter and the extraction call: storage beside persistence.
  memory: 2,
  config: 2,
  // The model layer around ChatOpenAI: config's model factory builds it, middleware reads its error types.
  model: 2,
  "errors.ts": 1,
  vocabulary: 0,
};

/** The layer of a path relative to src/ ("runtime/goal/x.ts" → "runtime"). */
const layerOf = (rel: string) => rel.split("/")[0]!;

describe("imports point down only", () => {
  it("every file under src/ belongs to a ranked layer", () => {
    expect(all.map((f) => layerOf(f.rel)).filter((l) => RANK[l] === undefined)).toEqual([]);
  });

  it("no file imports a higher layer", () => {
    const bad = all.flatMap((f) => {
      const from = layerOf(f.rel);
      return f.imports
        .filter(([s]) => s.startsWith("."))
        .map(([s]) => relative(SRC, join(SRC, f.rel, "..", s)).replace(/\.js$/, ".ts"))
        .filter((target) => RANK[layerOf(target)]! > RANK[from]!)
        .map((target) => `${f.rel} → ${target}`);
    });
    expect(bad).toEqual([]);
  });

  it("vocabulary/ imports nothing of deerflow's and no I/O", () => {
    const bad = all
      .filter((f) => f.rel.startsWith("vocabulary/"))
      .flatMap((f) => f.imports.filter(([s]) => s.startsWith("..") || /^(node:)?(fs|child_process|net|http|https)(\/|$)|better-sqlite3|execa/.test(s)).map(([s]) => `${f.rel} → ${s}`));
    expect(bad).toEqual([]);
  });

  it("the TUI takes only package-free vocabulary files by value (its first frame loads no LangChain)", () => {
    const packageFree = new Set(all.filter((f) => f.rel.startsWith("vocabulary/") && f.imports.every(([s]) => s.startsWith("."))).map((f) => f.rel));
    const bad = all
      .filter((f) => f.rel.startsWith("tui/"))
      .flatMap((f) =>
        f.imports
          .filter(([s, typeOnly]) => !typeOnly && s.includes("/vocabulary/"))
          .map(([s]) => relative(SRC, join(SRC, f.rel, "..", s)).replace(/\.js$/, ".ts"))
          .filter((target) => !packageFree.has(target) || target.endsWith("index.ts"))
          .map((target) => `${f.rel} → ${target}`),
      );
    expect(bad).toEqual([]);
  });

  it("the agent factory gets the saver brand check from mode-gate.ts (not the SQLite saver and its driver)", () => {
    const factory = all.find((f) => f.rel === "agent/create-deerflow-agent.ts")!;
    expect(factory.imports.map(([s]) => s)).not.toContain("../persistence/sqlite-saver.js");
    expect(factory.imports.map(([s]) => s)).toContain("../persistence/mode-gate.js");
  });
});
