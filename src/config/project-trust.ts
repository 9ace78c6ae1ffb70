// The gate between a project's .deerflowrc and the merged config: an untrusted (or changed-since-trusted) file keeps
// its safe keys and loses the ones that need trust (trust-keys.ts). What was left out is reported, so each command
// can refuse (headless: it would act), note it (read-only commands) or ask (the TUI).
import { dirname } from "node:path";
import { ConfigError } from "../errors.js";
import type { FileConfig } from "./schema.js";
import { flattenHooks } from "./hooks-config.js";
import { mcpServerDetails } from "./mcp-server-wants.js";
import { type SetKey, keyName, needsTrust, setKeys } from "./trust-keys.js";
import type { TrustState } from "./trust-store.js";
import { maskUrlCredentials } from "../vocabulary/secret-shapes.js";
import { shownText } from "../vocabulary/terminal-text.js";

export interface UntrustedProject {
  file: string;
  folder: string;
  state: Exclude<TrustState, "trusted">;
  /** The keys left out, as concrete paths with their values. */
  ignored: SetKey[];
  /** What they would do, in plain words, one line per server, subagent or key (the TUI's question). */
  wants: string[];
  /** sha256 of the file as read: trusting from the question trusts exactly what was shown. */
  sha256: string;
}

/**
 * The chat's start when the project file has keys that need trust: the TUI asks (trust / continue without them);
 * anywhere else it is the one-line refusal (exit 2). Recognised by `untrustedFolder`, not instanceof (the TUI bundle
 * carries its own copy of this module).
 */
export class UntrustedFolderError extends ConfigError {
  readonly untrustedFolder = true;
  constructor(
    readonly untrusted: UntrustedProject,
    readonly trustHome: string,
  ) {
    super(untrustedLine(untrusted), { file: untrusted.file });
  }
}

/** Server and subagent entries are one thing each: named whole (["mcpServers", "h"]), not key by key; hooks are one. */
function groupOf(keys: readonly string[]): string[] {
  if (keys[0] === "hooks") return ["hooks"];
  return keys[0] === "mcpServers" || keys[0] === "subagents" ? keys.slice(0, 2) : [...keys];
}

/** The distinct groups of these keys, as arrays (a record name may hold "."; never re-split a joined path). */
function groupsOf(ignored: readonly SetKey[]): string[][] {
  return [...new Map(ignored.map((k) => groupOf(k.keys)).map((g) => [JSON.stringify(g), g] as const)).values()];
}

/** The ignored keys as the user reads them: `mcpServers.h, mcpServers."a.b", sandbox.readWrite, approval`. */
export function ignoredKeyNames(u: UntrustedProject): string[] {
  return groupsOf(u.ignored).map(keyName);
}

function deletePath(obj: Record<string, unknown>, path: readonly string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(obj, head)) return;
  if (rest.length === 0) {
    delete obj[head];
    return;
  }
  const child = obj[head] as Record<string, unknown>;
  deletePath(child, rest);
  if (Object.keys(child).length === 0) delete obj[head];
}

/** `config` without the keys that need trust, and what was left out (undefined: nothing was). */
export function withoutUntrustedKeys(file: string, config: FileConfig, state: Exclude<TrustState, "trusted">, sha256 = ""): { config: FileConfig; untrusted?: UntrustedProject } {
  const ignored = setKeys(config as Record<string, unknown>).filter((k) => needsTrust(k.keys, k.value));
  if (ignored.length === 0) return { config };
  const kept = structuredClone(config) as Record<string, unknown>;
  // A server or subagent missing one of its keys would be a different one: such entries go whole.
  for (const group of groupsOf(ignored)) deletePath(kept, group);
  const wants = [...new Set(ignored.map((k) => describeKey(k, config, file)))];
  return { config: kept as FileConfig, untrusted: { file, folder: dirname(file), state, ignored, wants, sha256 } };
}

/** One line: which file, which keys, and the command that trusts it. */
export function untrustedLine(u: UntrustedProject): string {
  const keys = ignoredKeyNames(u).join(", ");
  const why = u.state === "changed" ? "changed since you trusted it, and its" : "is not trusted, and its";
  return `${u.file} ${why} ${keys} apply only in a trusted folder: review it, then run "deerflow trust ${u.folder}" (or remove those keys).`;
}

/** What a headless command that would act throws: exit 2, the one line above. */
export function refuseUntrusted(u: UntrustedProject | undefined): void {
  if (u) throw new ConfigError(untrustedLine(u), { file: u.file });
}

/** For read-only commands: the same facts, saying nothing of them is used. */
export function ignoredNotice(u: UntrustedProject): string {
  const why = u.state === "changed" ? "changed since you trusted it" : "not trusted";
  return `ignoring ${ignoredKeyNames(u).join(", ")} from ${u.file} (${why}; "deerflow trust ${u.folder}" trusts it)`;
}

/** One argument as a shell would need it written: the user sees where each argument starts and ends. */
// A word with newlines or controls is shown quoted as one string: 60 blank lines cannot push `curl … | sh` off the
// trust question's screen (the thirteenth pass's M2).
const shellWord = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : shownText(a) !== a ? shownText(a) : `'${a.replace(/'/g, `'\\''`)}'`);

/** One ignored key in plain words, for the TUI's question ("run MCP server h: bash -c 'touch x'"). Nothing is cut:
 * a hostile author would put the dangerous part past any limit, so the question and `deerflow trust` wrap instead. */
function describeKey(k: SetKey, config: FileConfig, file: string): string {
  const [top, rawName, leaf] = k.keys;
  const name = rawName === undefined ? "" : keyName([rawName]);
  const v = k.value;
  if (top === "mcpServers") {
    const s = config.mcpServers?.[rawName!];
    const what = s?.command ? `run MCP server ${name}: ${[s.command, ...(s.args ?? [])].map(shellWord).join(" ")}` : `connect to MCP server ${name} at ${String(s?.url ?? s?.httpUrl)}`;
    return s ? `${what}${mcpServerDetails(s, file, shellWord)}` : what;
  }
  if (top === "subagents") {
    // Its instructions and tools whole, as a server's command is (the thirty-third pass's A33b-6).
    const t = config.subagents?.[rawName!];
    if (!t) return `add subagent type ${name}`;
    const tools = t.tools === undefined || t.tools === "all-but-task" ? "every tool but task" : t.tools.join(", ");
    return `add subagent type ${name} with tools ${tools}${t.model ? `, model ${keyName([t.model])}` : ""}${t.maxTurns ? `, up to ${t.maxTurns} turns` : ""}; its instructions: ${shownText(t.systemPrompt)}`;
  }
  if (top === "hooks")
    return `run hooks on your host: ${flattenHooks(config.hooks, "")
      .map((h) => `${h.event}${h.matcher ? ` ${shownText(h.matcher)}` : ""}: ${shownText(h.command)}`)
      .join("; ")}`;
  if (top === "approval") return `approval mode ${String(v)}`;
  if (k.path === "sandbox.readWrite") return `let commands write ${(v as string[]).join(", ")}`;
  if (k.path === "sandbox.readOnly") return `let commands read ${(v as string[]).join(", ")}`;
  if (k.path === "sandbox.passEnv") return `pass ${(v as string[]).join(", ")} to commands`;
  if (leaf === "baseUrl" || k.path === "baseUrl") return `send the conversation${top === "models" ? ` of model ${name}` : ""} to ${String(v)}`;
  if (leaf === "apiKey" || k.path === "apiKey") return `use the API key ${String(v).startsWith("$") ? `from ${String(v).slice(1)}` : "written in the file"}`;
  if (top === "defaultModel") return `talk to model ${keyName([String(v)])} (and its endpoint) by default`;
  if (top === "home") return `keep deerflow's data in ${String(v)}`;
  // Where the threads go, shown as the base URLs are (the password masked): the thirty-second pass's A32c-5.
  if (top === "database") return `keep threads in the team database at ${maskUrlCredentials(String(v))}`;
  return `set ${k.path} to ${JSON.stringify(v)}`;
}
