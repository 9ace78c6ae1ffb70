// The layer rules of docs/architecture.md as dependency-cruiser rules, checked on the real import graph: static,
// dynamic (`await import("…")`), type-only, side-effect and re-export edges alike (the TypeScript sources are read
// before compilation, so `import type` edges are seen too).
import { cruise, type ICruiseResult, type IFlattenedRuleSet, type IModule, type IViolation } from "dependency-cruiser";

/**
 * README's layer order, highest first; a file may import its own layer and any lower one, never a higher.
 * `errors.ts` (typed errors every layer throws) and `vocabulary/` (the shared words) sit under everything.
 */
export const RANK: Record<string, number> = {
  cli: 11,
  // `deerflow eval`: a CLI-level driver of the runtime (like `deerflow run`); nothing below the CLI imports it.
  eval: 11,
  tui: 10,
  // `deerflow acp`: the editor's front end (the Agent Client Protocol), beside the TUI; drives the runtime.
  acp: 10,
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
  // Custom slash commands: reads `.deerflow/commands/*.md` (config's front matter, skills' confined file read).
  commands: 4,
  // Hooks: the user's commands run on the host on agent events (the runner and Claude Code's output protocol).
  hooks: 4,
  state: 3,
  persistence: 2,
  // The shadow git repositories of rewind: storage beside the SQLite file, run by the host's git as the sandbox
  // finds it (its filtered PATH: sandbox/env-scrub.ts), so beside the sandbox.
  snapshots: 4,
  // The memory store (its own SQLite file), the fact filter and the extraction call: storage beside persistence.
  memory: 2,
  config: 2,
  // The model layer around ChatOpenAI: config's model factory builds it, middleware reads its error types.
  model: 2,
  "errors.ts": 1,
  vocabulary: 0,
};

/**
 * Named exceptions to the rules below: `from → to` (paths relative to the cruised root) and why the edge is right.
 * An entry needs a reason a reviewer accepts, not "it was there"; the test also holds every excepted target
 * package-free, so an exception into the TUI can never pull LangChain into its bundle.
 */
export const EXCEPTIONS: { from: string; to: string; reason: string }[] = [
  {
    from: "src/tui/commands/memory-command.ts",
    to: "src/memory/review.ts",
    reason: "the review words of `deerflow memory` and `/memory` (one home, so both front ends say the same); pure, type-only imports",
  },
];

/** The layer of a path under src/ ("src/runtime/goal/x.ts" → "runtime", "src/errors.ts" → "errors.ts"). */
export const layerOf = (path: string) => path.replace(/^src\//, "").split("/")[0]!;

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A path pattern for the given layers under src/ (a folder, or a single file such as errors.ts). */
const under = (layers: string[]) => `^src/(${layers.map((l) => (l.endsWith(".ts") ? `${esc(l)}$` : `${esc(l)}/`)).join("|")})`;
const IO = "^(node:)?(fs|fs/promises|child_process|net|http|https)$|(^|/)node_modules/(better-sqlite3|execa)/";
/** Everything the TUI must not take by value: it is bundled alone and paints before LangChain loads. */
const CORE = Object.keys(RANK).filter((l) => RANK[l]! < RANK.tui! && l !== "vocabulary" && l !== "errors.ts");

function rankRules(): IFlattenedRuleSet["forbidden"] {
  return Object.keys(RANK).flatMap((layer) => {
    const higher = Object.keys(RANK).filter((l) => RANK[l]! > RANK[layer]!);
    return higher.length === 0 ? [] : [{ name: `down-only:${layer}`, severity: "error" as const, from: { path: under([layer]) }, to: { path: under(higher) } }];
  });
}

export const RULES: IFlattenedRuleSet = {
  forbidden: [
    ...rankRules()!,
    {
      name: "core-never-imports-ui",
      comment: "nothing below tui/ and cli/ imports ink, react or the TUI",
      severity: "error",
      from: { path: "^src/", pathNot: under(["tui", "cli"]) },
      to: { path: `${under(["tui"])}|(^|/)node_modules/(ink|react)/` },
    },
    {
      name: "tui-takes-core-as-types",
      comment: "the TUI imports the runtime and lower layers as types only (no value import, static or dynamic)",
      severity: "error",
      from: { path: under(["tui"]) },
      to: { path: under(CORE), dependencyTypesNot: ["type-only"] },
    },
    {
      name: "state-is-pure",
      comment: "state/ (reducers and schemas) does no I/O",
      severity: "error",
      from: { path: under(["state"]) },
      to: { path: IO },
    },
    {
      name: "vocabulary-imports-nothing-of-ours",
      comment: "vocabulary/ is the shared words: it imports nothing of deerflow's and no I/O",
      severity: "error",
      from: { path: under(["vocabulary"]) },
      to: { path: `^src/|${IO}`, pathNot: under(["vocabulary"]) },
    },
    {
      name: "no-unresolvable-import",
      comment: "an import the resolver cannot find is a broken edge the other rules would miss",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true },
    },
  ],
};

export type Graph = { modules: IModule[]; violations: string[] };

/** Cruises `dirs` (relative to `baseDir`) with RULES; violations as "from → to (rule)", minus the named exceptions. */
export async function cruiseLayers(dirs: string[], baseDir: string): Promise<Graph> {
  const result = await cruise(dirs, {
    baseDir,
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    // Resolve packages the way Node's ESM loader does (`exports` with the `import` condition), or ink and the MCP SDK
    // read as unresolvable.
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "node", "default", "types"], mainFields: ["module", "main", "types"] },
    validate: true,
    ruleSet: RULES,
  });
  const output = result.output as ICruiseResult;
  const excepted = (v: IViolation) => EXCEPTIONS.some((e) => e.from === v.from && e.to === v.to);
  return {
    modules: output.modules,
    violations: output.summary.violations.filter((v) => !excepted(v)).map((v) => `${v.from} → ${v.to} (${v.rule.name})`),
  };
}
