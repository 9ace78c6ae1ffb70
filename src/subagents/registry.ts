// Subagent types (docs/architecture.md, Subagents): what a `task(subagent_type=…)` call may start. Two built-ins (general-purpose, bash),
// more from the config file (`subagents: { name: {...} }`) and from markdown files in `<home>/agents/*.md` and
// `<cwd>/.deerflow/agents/*.md` (front matter + system prompt body). Later sources override earlier ones by name:
// built-ins < config < home; the project's files only add (below).
//
// Decisions:
// - `task` is never given to a child (no recursive delegation): `tools` lists are filtered by `toolsForType`, and a
//   "task" entry in a user's list is dropped silently rather than failing the whole file.
// - The front matter is YAML (config/front-matter.ts, shared with SKILL.md); an unknown key, a duplicate key or
//   invalid YAML is an error naming the file (and the line).
// - `<cwd>/.deerflow/agents` comes with the repository: anyone may have written it, and folder trust (a hash of the
//   .deerflowrc) does not cover it. So a project file may add a type (marked [project] to the model, like project
//   skills: a tool the repository's authors describe, as any README could) but never replace a built-in or one of
//   the user's (config, <home>/agents): otherwise a cloned repo would rewrite what "general-purpose" means for every
//   delegation. Its max_turns is capped at the default, so a repo cannot lift the limit either, and its `model` is
//   dropped: which of the user's endpoints receives a delegation is the user's choice (the eleventh pass sent a
//   delegated prompt to the user's cloud endpoint from a repository's agent file). Gating the files on
//   folder trust instead would tie them to a hash of another file, and would silently drop harmless ones.
import { FrontMatterError, type FrontMatterValue, scalarText, splitFrontMatter } from "../config/front-matter.js";
import { ConfigError } from "../errors.js";
import { BASH_SUBAGENT_PROMPT, GENERAL_PURPOSE_SUBAGENT_PROMPT } from "./prompts.js";
import { realpathSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { ownedByUserOrRoot, projectFoldersUp } from "../config/project-folders.js";
import { readFileInsideSync } from "../sandbox/safe-fs-sync.js";
import { basename, join } from "node:path";

/** Which of the parent's tools a subagent gets: every tool but `task`, or exactly these names (never `task`). */
export type SubagentToolsSpec = "all-but-task" | readonly string[];

export interface SubagentType {
  name: string;
  description: string;
  tools: SubagentToolsSpec;
  /** Model calls one run of this subagent may make (TurnLimit). */
  maxTurns: number;
  systemPrompt: string;
  /** A model name the wiring resolves (the task tool's model factory receives the whole type). */
  model?: string;
  /** Where the type came from ("built-in", "config", or a file path): for error messages and listings. */
  source?: string;
  /** "project": from the repository's .deerflow/agents, written by its authors, not the user. */
  scope?: "project";
}

/** The tools the built-in `bash` subagent gets. */
export const BASH_SUBAGENT_TOOLS = ["bash", "ls", "glob", "grep", "read_file", "write_file", "str_replace"] as const;
export const DEFAULT_SUBAGENT_MAX_TURNS = 150;

export const BUILTIN_SUBAGENT_TYPES: readonly SubagentType[] = Object.freeze([
  {
    name: "general-purpose",
    description: "A capable general agent with every tool except task: research the codebase, make multi-step changes, investigate a question end to end.",
    tools: "all-but-task",
    maxTurns: 150,
    systemPrompt: GENERAL_PURPOSE_SUBAGENT_PROMPT,
    source: "built-in",
  },
  {
    name: "bash",
    description: "A command-line specialist (bash and file tools): run builds, tests, git and other shell commands and report the results.",
    tools: [...BASH_SUBAGENT_TOOLS],
    maxTurns: 60,
    systemPrompt: BASH_SUBAGENT_PROMPT,
    source: "built-in",
  },
]);

/** A subagent definition that cannot be used (a malformed `.deerflow/agents/*.md`, a bad config entry): exit 2. */
export class SubagentConfigError extends ConfigError {
  constructor(message: string, file?: string) {
    super(message, { file, hint: "Fix or remove that subagent definition." });
  }
}

export class UnknownSubagentTypeError extends Error {
  override readonly name = "UnknownSubagentTypeError";
  constructor(
    readonly requested: string,
    readonly available: readonly string[],
  ) {
    super(`Unknown subagent_type "${requested}". Available subagent types: ${available.join(", ")}.`);
  }
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function checkType(t: SubagentType, where: string): SubagentType {
  if (!NAME_RE.test(t.name)) throw new SubagentConfigError(`${where}: invalid subagent name ${JSON.stringify(t.name)} (letters, digits, ".", "_", "-").`);
  if (!t.description.trim()) throw new SubagentConfigError(`${where}: subagent "${t.name}" needs a description.`);
  if (!t.systemPrompt.trim()) throw new SubagentConfigError(`${where}: subagent "${t.name}" needs a system prompt.`);
  if (!Number.isInteger(t.maxTurns) || t.maxTurns < 1) {
    throw new SubagentConfigError(`${where}: subagent "${t.name}" max_turns must be a positive integer (got ${String(t.maxTurns)}).`);
  }
  const tools = t.tools === "all-but-task" ? t.tools : t.tools.filter((n) => n !== "task");
  return { ...t, tools };
}

export class SubagentRegistry {
  readonly #types = new Map<string, SubagentType>();

  /** Starts with the built-ins unless `builtIns` is false. */
  constructor(types: readonly SubagentType[] = [], options: { builtIns?: boolean } = {}) {
    if (options.builtIns !== false) for (const t of BUILTIN_SUBAGENT_TYPES) this.#types.set(t.name, t);
    for (const t of types) this.register(t);
  }

  /** Add or replace (by name) a type. */
  register(type: SubagentType): this {
    this.#types.set(type.name, checkType(type, type.source ?? "subagent type"));
    return this;
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  names(): string[] {
    return [...this.#types.keys()];
  }

  list(): SubagentType[] {
    return [...this.#types.values()];
  }

  /** The type named `name`; an unknown name is an UnknownSubagentTypeError listing the available ones. */
  resolveType(name: string): SubagentType {
    const t = this.#types.get(name);
    if (!t) throw new UnknownSubagentTypeError(name, this.names());
    return t;
  }

  /** "- name: description" lines for the task tool's description. */
  describe(): string {
    return this.list()
      .map((t) => `- ${t.name}${t.scope === "project" ? " [project]" : ""}: ${t.description}`)
      .join("\n");
  }
}

// ---------------------------------------------------------------------------------------------
// Config object

export interface SubagentConfigEntry {
  description: string;
  tools?: SubagentToolsSpec | string;
  maxTurns?: number;
  max_turns?: number;
  model?: string;
  systemPrompt?: string;
  system_prompt?: string;
}

function toolsSpec(v: unknown, where: string): SubagentToolsSpec {
  if (v === undefined || v === null || v === "all-but-task" || v === "all") return "all-but-task";
  if (typeof v === "string")
    return v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v) && v.every((s) => typeof s === "string")) return v.map((s) => s.trim()).filter(Boolean);
  throw new SubagentConfigError(`${where}: tools must be "all-but-task", a comma list or a list of tool names.`);
}

/** Types from a config object `{ [name]: { description, tools?, maxTurns?, model?, systemPrompt } }`. */
export function typesFromConfig(config: Record<string, SubagentConfigEntry> | undefined | null, source = "config"): SubagentType[] {
  const out: SubagentType[] = [];
  for (const [name, raw] of Object.entries(config ?? {})) {
    const where = `${source} (subagents.${name})`;
    if (!raw || typeof raw !== "object") throw new SubagentConfigError(`${where}: must be an object with description and systemPrompt.`);
    const e = raw as SubagentConfigEntry;
    const systemPrompt = e.systemPrompt ?? e.system_prompt;
    if (typeof e.description !== "string") throw new SubagentConfigError(`${where}: description must be a string.`);
    if (typeof systemPrompt !== "string") throw new SubagentConfigError(`${where}: systemPrompt must be a string.`);
    if (e.model !== undefined && typeof e.model !== "string") throw new SubagentConfigError(`${where}: model must be a string.`);
    const t: SubagentType = {
      name,
      description: e.description,
      tools: toolsSpec(e.tools, where),
      maxTurns: e.maxTurns ?? e.max_turns ?? DEFAULT_SUBAGENT_MAX_TURNS,
      systemPrompt,
      ...(e.model ? { model: e.model } : {}),
      source,
    };
    out.push(checkType(t, where));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Markdown agents

/** `---` YAML front matter and the body after it (config/front-matter.ts); errors name the file. */
export function parseFrontMatter(text: string, file = "<input>"): { data: Record<string, FrontMatterValue>; body: string } {
  try {
    return splitFrontMatter(text);
  } catch (e) {
    if (e instanceof FrontMatterError) throw new SubagentConfigError(`${file}: ${e.message}.`, file);
    throw e;
  }
}

const KNOWN_KEYS = new Set(["name", "description", "tools", "model", "max_turns", "maxTurns"]);

/** One markdown agent file → a subagent type (errors name the file). */
export function parseAgentMarkdown(text: string, file: string): SubagentType {
  const { data, body } = parseFrontMatter(text, file);
  for (const key of Object.keys(data)) {
    if (!KNOWN_KEYS.has(key)) throw new SubagentConfigError(`${file}: unknown front matter key "${key}" (known: name, description, tools, model, max_turns).`, file);
  }
  const str = (key: string): string | undefined => {
    const v = data[key];
    if (v === undefined || v === null) return undefined;
    const text = scalarText(v);
    if (text === undefined) throw new SubagentConfigError(`${file}: "${key}" must be a single value, not a list.`, file);
    return text;
  };
  const name = str("name") || basename(file).replace(/\.md$/i, "");
  const description = str("description");
  if (!description) throw new SubagentConfigError(`${file}: front matter needs a "description".`, file);
  if (!body) throw new SubagentConfigError(`${file}: the body (the subagent's system prompt) is empty.`, file);
  const turnsRaw = str("max_turns") ?? str("maxTurns");
  let maxTurns = DEFAULT_SUBAGENT_MAX_TURNS;
  if (turnsRaw !== undefined) {
    if (!/^\d+$/.test(turnsRaw) || Number(turnsRaw) < 1) throw new SubagentConfigError(`${file}: max_turns must be a positive integer (got ${JSON.stringify(turnsRaw)}).`, file);
    maxTurns = Number(turnsRaw);
  }
  const model = str("model");
  try {
    return checkType({ name, description, tools: toolsSpec(data.tools, file), maxTurns, systemPrompt: body, ...(model ? { model } : {}), source: file }, file);
  } catch (e) {
    if (e instanceof SubagentConfigError) throw new SubagentConfigError(e.message, file);
    throw e;
  }
}

/** A project's agent file larger than this is refused (a type is a prompt and a few keys). */
const PROJECT_AGENT_MAX_BYTES = 1024 * 1024;

/** A project agent file, opened once and judged by what was opened (safe-fs-sync.ts): a link out of the folder,
 *  planted or swapped in by a command while it is read, is refused, never followed to a host file. */
function readProjectAgent(realDir: string, file: string): string {
  try {
    return readFileInsideSync(realDir, file, PROJECT_AGENT_MAX_BYTES, { folder: "the project's agents folder", project: true }).data.toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== undefined) throw e;
    throw new SubagentConfigError(`${file}: ${(e as Error).message}`, file);
  }
}

/** Every `*.md` in `dir` (sorted), or [] when the directory does not exist. `project`: a repository's folder, whose
 *  files are read only where they lie. */
export async function loadAgentDir(dir: string, opts: { project?: boolean } = {}): Promise<SubagentType[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.toLowerCase().endsWith(".md")).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw e;
  }
  const out: SubagentType[] = [];
  const realDir = opts.project ? realpathSync(dir) : undefined;
  for (const n of names) {
    const file = join(dir, n);
    // Another user's file in a group-shared repository's agents folder is not the project's: skipped (read, it is
    // refused, should it be swapped in meanwhile).
    if (opts.project && !ownedByUserOrRoot(file)) continue;
    out.push(parseAgentMarkdown(realDir ? readProjectAgent(realDir, file) : await readFile(file, "utf8"), file));
  }
  return out;
}

export interface RegistrySources {
  /** `subagents` section of the config. */
  config?: Record<string, SubagentConfigEntry> | null;
  /** deerflow home: `<home>/agents/*.md`. */
  home?: string;
  /** project dir: `<cwd>/.deerflow/agents/*.md`. */
  cwd?: string;
}

/** Built-ins, then config, then `<home>/agents` (later wins by name); then `<cwd>/.deerflow/agents`, which only adds. */
export async function loadSubagentRegistry(sources: RegistrySources = {}): Promise<SubagentRegistry> {
  const types = [...typesFromConfig(sources.config)];
  if (sources.home) types.push(...(await loadAgentDir(join(sources.home, "agents"))));
  const registry = new SubagentRegistry(types);
  const projectDir = sources.cwd ? projectAgentsDir(sources.cwd) : undefined;
  if (projectDir) for (const t of await loadAgentDir(projectDir, { project: true })) registerProjectType(registry, t);
  return registry;
}

/**
 * The project's agents folder, undefined where it is not the project's: the working folder is one anyone may write (a
 * shared scratch folder), or the folder belongs to another user (project-folders.ts; the forty-third pass's A43a-2).
 */
function projectAgentsDir(cwd: string): string | undefined {
  const dir = join(cwd, ".deerflow", "agents");
  return projectFoldersUp(cwd).length > 0 && ownedByUserOrRoot(dir) ? dir : undefined;
}

/** A repository's type: new names only, [project], at most the default turns (see the header). */
function registerProjectType(registry: SubagentRegistry, t: SubagentType): void {
  if (registry.has(t.name)) return;
  const { model: _endpointChoice, ...type } = t;
  registry.register({ ...type, scope: "project", maxTurns: Math.min(t.maxTurns, DEFAULT_SUBAGENT_MAX_TURNS) });
}

/** The parent's tools a type may use: never `task`; "all-but-task" → all others; a list → those names. */
export function toolsForType<T>(type: Pick<SubagentType, "tools">, tools: readonly T[]): T[] {
  const nameOf = (t: T) => String((t as { name?: unknown }).name ?? "");
  const allowed = type.tools === "all-but-task" ? undefined : new Set(type.tools);
  return tools.filter((t) => nameOf(t) !== "task" && (!allowed || allowed.has(nameOf(t))));
}
