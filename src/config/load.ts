// Configuration resolution: .deerflowrc files (home, then the nearest one up from the working directory),
// then the environment, then command-line flags. Later sources win. Only JSON and zod here: this module is on
// the start-up path of every command, so it must stay light.
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ConfigError, NoModelError } from "../errors.js";
import { type LoadedFile, readConfigFile, readIfValid } from "./config-file.js";
import { assertUsableBaseUrl } from "./base-url.js";
import { RC_NAME, dataHomeOf, rcFiles, rcFilesAbove } from "./data-home.js";
import { sandboxPaths } from "./sandbox-paths.js";
import type { ResolvedSandbox } from "./resolved-sandbox.js";
import { type UntrustedProject, withoutUntrustedKeys } from "./project-trust.js";
import { trustHomeOf, trustStateOf } from "./trust-store.js";
import { trustDigest } from "./trust-digest.js";
import { modelEndpoint, resolveSecret } from "./model-endpoint.js";
import { CHANNEL_MODES, type ChannelMode } from "../vocabulary/checkpoint-modes.js";
import type { ApprovalModeSetting, FileConfig, McpServerConfig, ModelConfig } from "./schema.js";
import { type ResolvedWeb, mergeWeb } from "./web-search.js";
import { type ResolvedHook, flattenHooks } from "./hooks-config.js";
import { type MergedModels, mergeModels } from "./merge-models.js";
import { resolveGuards } from "./guards.js";

export { RC_NAME } from "./data-home.js";
export { readConfigFile } from "./config-file.js";
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_SNAPSHOT_FREQUENCY = 20;
const DEFAULT_MODEL_TIMEOUT_S = 120;
const DEFAULT_IDLE_TIMEOUT_S = 60;
const DEFAULT_BASH_TIMEOUT_S = 600;
/** Compaction's message trigger: past 200 messages (about 100 tool turns) a thread is compacted whatever its tokens. */
export const DEFAULT_MAX_MESSAGES = 200;

export interface ConfigInputs {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The user's home directory (where ~/.deerflowrc and ~/.deerflow live). */
  userHome?: string;
  /** Reloading a config (another model): where its trust was read, since `flags.home` is then the resolved home. */
  trustHome?: string;
  /** `defaultApproval`: the mode when neither --approval nor the file sets one (chat: ask; run: auto-edit). */
  flags?: { model?: string; home?: string; approval?: ApprovalModeSetting; defaultApproval?: ApprovalModeSetting; noNetwork?: boolean; noMemory?: boolean };
}

export interface ResolvedModel {
  /** The name it was selected by (a key of `models`, or the raw id from DEERFLOW_MODEL/--model). */
  name: string;
  model: string;
  baseUrl: string;
  /** Undefined when no key is configured (fine for local servers such as Ollama). */
  apiKey?: string;
  /**
   * Set when a key was configured but not sent: it came from another source than the base URL (a key is sent
   * only to a URL chosen by the same trusted source: the user, or one project file). Says which and why.
   */
  keyWithheld?: string;
  contextWindow?: number;
  maxTokens?: number;
  temperature?: number;
  supportsVision: boolean;
  timeoutMs: number;
  /** Longest silence inside a streaming answer. */
  idleTimeoutMs: number;
  passBackReasoning: boolean;
  stream: boolean;
}

export interface ResolvedConfig {
  /** The files that were read, lowest precedence first. */
  files: string[];
  home: string;
  /** Where trust in project folders is recorded (the home as the user alone chose it). */
  trustHome: string;
  /** The project's .deerflowrc when keys of it were left out because its folder is not trusted (or it changed). */
  untrusted?: UntrustedProject;
  /** The team database's postgres:// URL (`database`, DEERFLOW_DATABASE_URL); undefined: the home's SQLite file. */
  database?: string;
  /**
   * `channelMode`: the mode of new threads (default delta). `explicitMode`: DEERFLOW_CHECKPOINT_MODE or
   * checkpoint.channelMode chose it, so every thread is opened in it (a thread of the other mode is refused, docs/architecture.md, Checkpoints);
   * otherwise an existing thread opens in the mode it was written in.
   */
  checkpoint: { channelMode: ChannelMode; explicitMode: boolean; snapshotFrequency: number };
  approval: ApprovalModeSetting;
  sandbox: ResolvedSandbox;
  guards: { loopWarn: number; loopStop: number; toolCallWarn: number; toolCallStop: number; tokenBudget: number };
  /** Memory across threads (.deerflowrc memory.enabled; --no-memory turns it off). */
  memory: { enabled: boolean };
  /** Compaction settings (by the configured, learned or default window; and past maxMessages messages). */
  compaction: { enabled: boolean; threshold: number; keepRecentTokens?: number; maxMessages: number };
  /** Mask personal values (e-mails, phones, cards, IDs, API keys) in what is sent to the provider. Default false. */
  piiRedaction: boolean;
  models: Record<string, ModelConfig>;
  /** No model was selected, and these entries of an untrusted project were not made the default (requireModel says so). */
  untrustedModels?: { names: string[]; file: string };
  defaultModel?: string;
  subagents: NonNullable<FileConfig["subagents"]>;
  /** Seconds a run may take (.deerflowrc runTimeout; --timeout overrides it); undefined: no limit. */
  runTimeoutSeconds?: number;
  /** The selected model, or null when none is configured (`requireModel` turns that into an exit-2 error). */
  model: ResolvedModel | null;
  /** MCP servers (as written; `$VAR`s are read when a server starts) and how their tools are offered. */
  mcp: ResolvedMcp;
  /** web_search's provider as configured (its key is read when the tools are built: config/web-search.ts). */
  web: ResolvedWeb;
  /** `hooks` of every file read (the user's first, a project's only once trusted), flat. */
  hooks: ResolvedHook[];
  /** The folder the configuration was read for (the project): hooks and project files are found there, not in the
   *  process's folder (one `deerflow acp` process serves sessions in many folders). */
  cwd?: string;
}

export interface ResolvedMcpServer extends McpServerConfig {
  /** The .deerflowrc that configured it (a relative `cwd` is read against its folder). */
  file: string;
}

export interface ResolvedMcp {
  servers: Record<string, ResolvedMcpServer>;
  startupTimeoutMs: number;
  deferAbove: number;
  deferTokens: number;
}

export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;

/** A postgres:// URL, or nothing. Anything else is refused without echoing it (it may hold a password). */
function resolveDatabase(url: string | undefined, file: string | undefined): string | undefined {
  if (!url) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(url.trim())) {
    throw new ConfigError(`${file ? `Config ${file}` : "DEERFLOW_DATABASE_URL"} at "database" is not a postgres:// URL.`, {
      file,
      keyPath: "database",
      hint: "Use postgres://user:password@host:5432/dbname, or remove it to keep the SQLite file in the home.",
    });
  }
  return url.trim();
}

export function loadConfig(inputs: ConfigInputs = {}): ResolvedConfig {
  const env = inputs.env ?? process.env;
  const cwd = inputs.cwd ?? process.cwd();
  const userHome = inputs.userHome ?? env.HOME ?? homedir();
  // The user's own file is trusted; a project's keys that need trust are left out until its folder is trusted.
  const userRc = join(userHome, RC_NAME);
  const trustHome = inputs.trustHome ?? trustHomeOf({ flag: inputs.flags?.home, env, cwd, userHome });
  let untrusted: UntrustedProject | undefined;
  const files: LoadedFile[] = rcFiles(cwd, userHome)
    .map(readConfigFile)
    .map((f) => {
      if (f.path === userRc) return { ...f, trusted: true };
      const digest = trustDigest(f.path, f.bytes, f.config);
      const state = trustStateOf(trustHome, f.path, digest);
      if (state === "trusted") return { ...f, trusted: true };
      const gated = withoutUntrustedKeys(f.path, f.config, state, digest);
      untrusted = gated.untrusted;
      return { ...f, config: gated.config, trusted: false };
    });
  // An untrusted project file never hides a trusted one further up: that one applies first, so a file the agent wrote
  // in a subfolder adds only what an untrusted file may (the twenty-ninth pass's A29b-1: `{}` dropped the network cut).
  // One the user trusted that has changed since still applies, as an untrusted file does (its network cut, approval and
  // masking hold; a sandboxed command could change a file its server runs and plant `{}` below: the thirty-second pass's
  // A32c-1). A file above that was never trusted is not read.
  const project = files.at(-1);
  let above: LoadedFile | undefined;
  for (const f of project && !project.trusted ? rcFilesAbove(project.path, userRc).map(readIfValid) : []) {
    const digest = f && trustDigest(f.path, f.bytes, f.config);
    const state = f && digest ? trustStateOf(trustHome, f.path, digest) : "untrusted";
    if (!f || !digest || state === "untrusted") continue;
    if (state === "trusted") above = { ...f, trusted: true };
    else {
      const gated = withoutUntrustedKeys(f.path, f.config, state, digest);
      untrusted ??= gated.untrusted;
      above = { ...f, config: gated.config, trusted: false };
    }
    break;
  }
  const loaded = above ? [...files.slice(0, -1), above, project!] : files;

  // Merge: later files win key by key; `models` and `checkpoint` merge one level deep.
  let merged: FileConfig = {};
  const origin: Record<string, string> = {}; // top-level key → file it came from, for error messages
  let models: MergedModels = { models: {}, origin: {} };
  // A later file's server of the same name replaces the earlier one whole (its keys belong together).
  const mcpServers: Record<string, ResolvedMcpServer> = {};
  let web: ResolvedWeb = {};
  // Every file's hooks run (Claude Code adds them up too), in file order.
  const hooks: ResolvedHook[] = [];
  for (const f of loaded) {
    const c = f.config;
    web = mergeWeb(web, c.web, f.path);
    hooks.push(...flattenHooks(c.hooks, f.path));
    for (const key of Object.keys(c)) origin[key] = f.path;
    models = mergeModels(models, { path: f.path, models: c.models, trusted: f.trusted === true });
    for (const [name, server] of Object.entries(c.mcpServers ?? {})) mcpServers[name] = { ...server, file: f.path };
    merged = {
      ...merged,
      ...c,
      models: models.models,
      checkpoint: { ...merged.checkpoint, ...c.checkpoint },
      sandbox: { ...merged.sandbox, ...c.sandbox },
      guards: { ...merged.guards, ...c.guards },
      compaction: { ...merged.compaction, ...c.compaction },
      memory: { ...merged.memory, ...c.memory },
      subagents: { ...merged.subagents, ...c.subagents },
      mcp: { ...merged.mcp, ...c.mcp },
    };
  }

  // Environment overrides the files.
  const envMode = env.DEERFLOW_CHECKPOINT_MODE;
  if (envMode !== undefined && envMode !== "" && !(CHANNEL_MODES as readonly string[]).includes(envMode)) {
    throw new ConfigError(`DEERFLOW_CHECKPOINT_MODE must be "full" or "delta" (got "${envMode}").`, {
      keyPath: "DEERFLOW_CHECKPOINT_MODE",
    });
  }
  const chosenMode = (envMode || merged.checkpoint?.channelMode || undefined) as ChannelMode | undefined;
  // Delta by default: a long thread stays flat per turn (full mode grows quadratically).
  const channelMode: ChannelMode = chosenMode ?? "delta";
  const snapshotFrequency = merged.checkpoint?.snapshotFrequency ?? DEFAULT_SNAPSHOT_FREQUENCY;

  // Flags override both.
  const home = dataHomeOf({ flag: inputs.flags?.home, env, cwd, userHome, files: loaded.map((f) => ({ path: f.path, home: f.config.home })) });

  const database = resolveDatabase(
    env.DEERFLOW_DATABASE_URL || resolveSecret(merged.database, env, { file: origin.database, keyPath: "database" }),
    env.DEERFLOW_DATABASE_URL ? undefined : origin.database,
  );

  const modelOrigin = models.origin;
  const trustedFiles = new Set(loaded.filter((f) => f.trusted).map((f) => f.path));
  // The single entry becomes the default only when a trusted file defines it: an untrusted project's only entry
  // would be a `defaultModel` no trust rule covers (on a gateway its name chooses the provider: the eighteenth pass's T1).
  const defaultable = Object.keys(models.models).filter((n) => trustedFiles.has(modelOrigin[n]!));
  const notDefault = Object.keys(models.models).filter((n) => !trustedFiles.has(modelOrigin[n]!));
  const selected = inputs.flags?.model || env.DEERFLOW_MODEL || merged.defaultModel || (defaultable.length === 1 ? defaultable[0] : undefined);

  let model: ResolvedModel | null = null;
  if (selected) {
    const named = Object.hasOwn(models.models, selected) ? models.models[selected] : undefined;
    if (!named && merged.defaultModel === selected && !inputs.flags?.model && !env.DEERFLOW_MODEL && Object.keys(models.models).length > 0) {
      throw new ConfigError(`Invalid config in ${origin.defaultModel} at "defaultModel": "${selected}" is not one of the configured models (${Object.keys(models.models).join(", ")}).`, {
        file: origin.defaultModel,
        keyPath: "defaultModel",
      });
    }
    // A per-model baseUrl/apiKey names that model's own endpoint, so it is more specific than the
    // environment; OPENAI_BASE_URL / OPENAI_API_KEY override the files' top-level defaults.
    const file = named ? modelOrigin[selected] : undefined;
    const { baseUrl, apiKey, keyWithheld } = modelEndpoint({
      url: named?.baseUrl
        ? { value: named.baseUrl, file }
        : env.OPENAI_BASE_URL
          ? { value: env.OPENAI_BASE_URL }
          : merged.baseUrl
            ? { value: merged.baseUrl, file: origin.baseUrl }
            : { value: DEFAULT_BASE_URL },
      keys: [
        { ref: named?.apiKey, file, keyPath: `models.${selected}.apiKey` },
        { ref: env.OPENAI_API_KEY ? "$OPENAI_API_KEY" : undefined, file: undefined, keyPath: "OPENAI_API_KEY" },
        { ref: merged.apiKey, file: origin.apiKey, keyPath: "apiKey" },
      ],
      env,
      userRc,
    });
    model = {
      name: selected,
      model: named?.model ?? selected,
      baseUrl: baseUrl.replace(/\/+$/, ""),
      apiKey: apiKey || undefined,
      keyWithheld,
      contextWindow: named?.contextWindow,
      maxTokens: named?.maxTokens,
      temperature: named?.temperature,
      supportsVision: named?.supportsVision ?? false,
      timeoutMs: Math.round((named?.timeout ?? DEFAULT_MODEL_TIMEOUT_S) * 1000),
      stream: named?.stream ?? true,
      idleTimeoutMs: Math.round((named?.idleTimeout ?? DEFAULT_IDLE_TIMEOUT_S) * 1000),
      // DeepSeek's API is the one known to require it; elsewhere the extra field could be rejected.
      passBackReasoning: named?.passBackReasoning ?? /(^|\.)deepseek\.com$/.test(hostOf(baseUrl)),
    };
  }

  return {
    cwd,
    files: loaded.map((f) => f.path),
    home,
    trustHome,
    untrusted,
    database,
    checkpoint: { channelMode, explicitMode: chosenMode !== undefined, snapshotFrequency },
    approval: inputs.flags?.approval ?? merged.approval ?? inputs.flags?.defaultApproval ?? "ask",
    sandbox: {
      bashTimeoutSeconds: merged.sandbox?.bashTimeout ?? DEFAULT_BASH_TIMEOUT_S,
      network: !inputs.flags?.noNetwork && merged.sandbox?.network !== "off",
      hostNetwork: !inputs.flags?.noNetwork && merged.sandbox?.network === "host",
      allowHosts: merged.sandbox?.allowHosts ?? [],
      // Relative and ~ paths are read against the file that set them.
      readWrite: sandboxPaths(merged.sandbox?.readWrite, "readWrite", userHome, origin.sandbox, cwd),
      readOnly: sandboxPaths(merged.sandbox?.readOnly, "readOnly", userHome, origin.sandbox, cwd),
      passEnv: merged.sandbox?.passEnv ?? [],
      require: merged.sandbox?.require ?? false,
    },
    guards: resolveGuards(merged.guards ?? {}, origin.guards),
    memory: { enabled: !inputs.flags?.noMemory && merged.memory?.enabled !== false },
    compaction: {
      enabled: merged.compaction?.enabled ?? true,
      threshold: merged.compaction?.threshold ?? 0.75,
      keepRecentTokens: merged.compaction?.keepRecentTokens,
      maxMessages: merged.compaction?.maxMessages ?? DEFAULT_MAX_MESSAGES,
    },
    piiRedaction: merged.piiRedaction ?? false,
    models: models.models,
    untrustedModels: model || notDefault.length === 0 ? undefined : { names: notDefault, file: modelOrigin[notDefault[0]!]! },
    defaultModel: merged.defaultModel,
    subagents: merged.subagents ?? {},
    runTimeoutSeconds: merged.runTimeout,
    model,
    mcp: {
      servers: mcpServers,
      startupTimeoutMs: merged.mcp?.startupTimeout ?? DEFAULT_MCP_STARTUP_TIMEOUT_MS,
      deferAbove: merged.mcp?.deferAbove ?? 20,
      deferTokens: merged.mcp?.deferTokens ?? 8000,
    },
    web,
    hooks,
  };
}

/** The selected model, or the exit-2 error that says what to set. */
export function requireModel(config: ResolvedConfig): ResolvedModel {
  const m = config.model;
  if (!m && config.untrustedModels) {
    const { names, file } = config.untrustedModels;
    throw new NoModelError(`No model configured: ${file} is not trusted, so its model ${names.join(", ")} is not chosen by default.`, {
      hint: `Pick it yourself with -m ${names[0]} (it then goes to your own endpoint with your key), or review the file and run "deerflow trust ${dirname(file)}".`,
    });
  }
  if (!m) {
    throw new NoModelError("No model configured.", {
      hint: 'Set DEERFLOW_MODEL (plus OPENAI_BASE_URL / OPENAI_API_KEY as your endpoint needs), or add "models" and "defaultModel" to .deerflowrc (see .deerflowrc.example).',
    });
  }
  assertUsableBaseUrl(m.name, m.baseUrl);
  if (!m.apiKey && new URL(m.baseUrl).hostname === "api.openai.com") {
    throw new ConfigError(`No API key for model "${m.name}" at ${m.baseUrl}.`, {
      hint: `Set OPENAI_API_KEY, or "apiKey" for this model in .deerflowrc.`,
    });
  }
  return m;
}

/** Mask a secret for display: keep a short prefix so the user can tell keys apart. */
export function maskSecret(secret: string | undefined): string | undefined {
  if (!secret) return secret;
  if (secret.length <= 8) return "****";
  return `${secret.slice(0, 3)}…${secret.slice(-2)} (${secret.length} chars)`;
}

/**
 * Another configured model by name (a subagent type's `model`), resolved exactly as `--model <name>` would be,
 * so its own baseUrl, key and limits apply.
 */
export function resolveNamedModel(config: ResolvedConfig, name: string): ResolvedModel {
  return requireModel(loadConfig({ flags: { model: name, home: config.home }, trustHome: config.trustHome }));
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
