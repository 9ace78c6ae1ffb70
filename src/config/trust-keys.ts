// What each .deerflowrc key can do, and so whether a project's file (a cloned repository: anyone may have written it)
// may set it before the user trusted that folder. A key "needs trust" when a hostile author could use it to run
// commands, widen the sandbox, change approvals, route credentials or the conversation, pass environment, or weaken
// a protection or limit. Keys that only tune apply from any file. `safeWhen` names values that only tighten (e.g.
// `sandbox.network: "off"`): those apply untrusted too. The user's ~/.deerflowrc, the environment and flags are
// always trusted. test/config/trust-keys.test.ts walks the schema, so a key added later must be classified here.

/** A key path: record names (a model's or server's name) are written `*`. */
export type KeyPath = string;

export interface KeyClass {
  needsTrust: boolean;
  /** Why (for the reader of this table). */
  why: string;
  /** Values that only tighten, so an untrusted file may set them. */
  safeWhen?: (value: unknown, path: readonly string[]) => boolean;
}

const TRUST = (why: string, safeWhen?: (value: unknown, path: readonly string[]) => boolean): KeyClass => ({ needsTrust: true, why, safeWhen });
const SAFE = (why: string): KeyClass => ({ needsTrust: false, why });

/** Every part of an MCP server's definition: the server itself runs on the host (or receives what the agent sends). */
const MCP_SERVER = TRUST("part of an MCP server: a stdio server is a command run on your host, a remote one receives tool calls and headers");

export const KEY_CLASSES: Record<KeyPath, KeyClass> = {
  // Which of the user's configured endpoints receives the workspace's contents is routing the conversation: a cloned
  // repository moved a review from the user's local model to their cloud one (the eleventh pass's M1).
  defaultModel: TRUST("chooses which configured model (and so which endpoint) receives the conversation"),
  baseUrl: TRUST("routes the conversation (and a key) to another server"),
  apiKey: TRUST("a credential: which secret (or which environment variable) is sent, and with it where"),
  // The entry's own name as its id changes nothing a project could choose: an entry without `model` sends its name.
  "models.*.model": TRUST("on a gateway (OpenRouter, LiteLLM) the model id is the route: it chooses which provider receives the conversation", (v, path) => v === path[1]),
  "models.*.baseUrl": TRUST("routes the conversation (and a key) to another server"),
  "models.*.apiKey": TRUST("a credential: which secret (or which environment variable) is sent"),
  "models.*.contextWindow": SAFE("tuning: when compaction starts"),
  "models.*.maxTokens": SAFE("tuning: answer length"),
  "models.*.temperature": SAFE("tuning"),
  "models.*.supportsVision": SAFE("tuning: whether images are sent to the same endpoint"),
  "models.*.timeout": SAFE("tuning: request timeout (bounded retries)"),
  "models.*.idleTimeout": SAFE("tuning: stream silence timeout"),
  "models.*.stream": SAFE("tuning: streamed or whole answers"),
  "models.*.passBackReasoning": SAFE("tuning: a protocol detail of the same endpoint"),
  home: TRUST("where threads, memory and trust records live: a project could point it at its own folder"),
  database: TRUST("routes every thread and checkpoint to a server (and reads a secret from the environment)"),
  approval: TRUST('changes what asks before it runs; "ask" is the strictest, so it applies untrusted', (v) => v === "ask"),
  "sandbox.bashTimeout": TRUST("lengthens how long a command may run (a limit)"),
  "sandbox.network": TRUST('"on" could undo a user\'s "off", "host" opens the host\'s loopback and metadata address; "off" only tightens', (v) => v === "off"),
  "sandbox.allowHosts": TRUST("lets commands reach private hosts: the host's loopback services, the cloud metadata address"),
  "sandbox.readWrite": TRUST('lets commands write host folders (e.g. "~")'),
  "sandbox.readOnly": TRUST('lets commands read host folders (e.g. "~/.ssh")'),
  "sandbox.passEnv": TRUST("hands environment variables that look like secrets (your API key) to commands"),
  "sandbox.require": TRUST("false could undo a user's requirement of bubblewrap; true only tightens", (v) => v === true),
  runTimeout: TRUST("a limit on a headless run"),
  "guards.loopWarn": TRUST("a protection against runaway runs"),
  "guards.loopStop": TRUST("a protection against runaway runs"),
  "guards.toolCallWarn": TRUST("a protection against runaway runs"),
  "guards.toolCallStop": TRUST("a protection against runaway runs"),
  "guards.tokenBudget": TRUST("a limit on what a run may spend"),
  "subagents.*.description": TRUST("part of a subagent type: its prompt and tools act with the agent's rights"),
  "subagents.*.tools": TRUST("which tools a subagent gets (e.g. bash)"),
  "subagents.*.maxTurns": TRUST("a limit on a subagent's run"),
  "subagents.*.model": TRUST("part of a subagent type: which endpoint its conversation goes to"),
  "subagents.*.systemPrompt": TRUST("instructions with the authority of a system prompt"),
  "compaction.enabled": SAFE("tuning: how long conversations are shortened"),
  "compaction.threshold": SAFE("tuning"),
  "compaction.keepRecentTokens": SAFE("tuning"),
  "compaction.maxMessages": SAFE("tuning"),
  "memory.enabled": TRUST("true could turn on learning facts that you turned off; false only tightens", (v) => v === false),
  piiRedaction: TRUST("false could turn off masking that you turned on; true only tightens", (v) => v === true),
  "mcpServers.*.type": MCP_SERVER,
  "mcpServers.*.command": MCP_SERVER,
  "mcpServers.*.args": MCP_SERVER,
  "mcpServers.*.env": MCP_SERVER,
  "mcpServers.*.cwd": MCP_SERVER,
  "mcpServers.*.url": MCP_SERVER,
  "mcpServers.*.httpUrl": MCP_SERVER,
  "mcpServers.*.headers": MCP_SERVER,
  "mcpServers.*.enabled": MCP_SERVER,
  "mcpServers.*.timeout": MCP_SERVER,
  "mcpServers.*.startupTimeout": MCP_SERVER,
  "mcpServers.*.includeTools": MCP_SERVER,
  "mcpServers.*.excludeTools": MCP_SERVER,
  "mcpServers.*.trust": MCP_SERVER,
  "mcpServers.*.sandbox": MCP_SERVER,
  "mcpServers.*.description": MCP_SERVER,
  "mcp.startupTimeout": SAFE("tuning: how long servers (already trusted) may take to start"),
  "mcp.deferAbove": SAFE("tuning: how tools are offered"),
  "mcp.deferTokens": SAFE("tuning: how tools are offered"),
  "web.search.provider": TRUST("where the agent's search queries go (and with them the user's key)"),
  "web.search.apiKey": TRUST("a credential: which secret (or which environment variable) is sent, and with it where"),
  "web.search.url": TRUST("routes the agent's search queries (and a key) to another server"),
  "web.search.maxResults": SAFE("tuning: results per search"),
  "checkpoint.channelMode": SAFE("tuning: how checkpoints are stored"),
  "checkpoint.snapshotFrequency": SAFE("tuning"),
  "hooks.*": TRUST("runs commands on your host, outside the sandbox, on agent events"),
};

/** Key paths of the table that are not (yet) in the schema. */
export const RESERVED_KEYS: readonly KeyPath[] = [];

/** A concrete key path (["models", "x", "baseUrl"]) as its table entry's ("models.*.baseUrl"). Paths stay arrays:
 * a record name may contain "." (or anything), so joining and re-splitting would find another key (or none). */
function tablePath(path: readonly string[]): KeyPath {
  const recordAt = new Set(["models", "subagents", "mcpServers", "hooks"]);
  return path.map((p, i) => (i === 1 && recordAt.has(path[0]!) ? "*" : p)).join(".");
}

/** A key path as the user reads it: `mcpServers."a.b".command` (a part that is not a plain word is quoted). */
export function keyName(path: readonly string[]): string {
  return path.map((p) => (/^[A-Za-z0-9_-]+$/.test(p) ? p : JSON.stringify(p))).join(".");
}

export interface SetKey {
  /** The concrete path, one part per level, e.g. ["mcpServers", "a.b", "command"]. */
  keys: string[];
  /** The same for display (keyName). */
  path: string;
  value: unknown;
}

/** Every leaf key a parsed config sets (record entries per name), in file order. */
export function setKeys(config: Record<string, unknown>, prefix: string[] = []): SetKey[] {
  const out: SetKey[] = [];
  for (const [k, v] of Object.entries(config)) {
    const path = [...prefix, k];
    if (v === undefined) continue;
    if (KEY_CLASSES[tablePath(path)] === undefined && v !== null && typeof v === "object" && !Array.isArray(v)) out.push(...setKeys(v as Record<string, unknown>, path));
    else out.push({ keys: path, path: keyName(path), value: v });
  }
  return out;
}

/** Whether this key, set to this value by a file nobody trusted, must be ignored. Unknown paths need trust. */
export function needsTrust(path: readonly string[], value: unknown): boolean {
  const cls = KEY_CLASSES[tablePath(path)];
  if (!cls) return true;
  return cls.needsTrust && !(cls.safeWhen?.(value, path) ?? false);
}
