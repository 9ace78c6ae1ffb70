// What the shell sandbox needs to know besides the thread's directories: the user's choices from .deerflowrc and
// flags, and what must stay hidden (the data directory, every .deerflowrc, the configured API keys). The runtime
// passes it to the bash tool in `configurable.deerflow_shell`; library callers without it get the defaults.
import { cacheHomeOf } from "../config/cache-home.js";
import { readRunConfigurable } from "../vocabulary/configurable.js";
import { homedir } from "node:os";
import { notePastWorkspaces, noteSandboxWritable } from "./sandbox-writable.js";
import { join } from "node:path";

export interface ShellSettings {
  /**
   * false: no network at all (the sandbox's own network namespace, not even the host's loopback). true: the public
   * internet through deerflow's proxy (network-proxy.ts), or the host's whole network with `hostNetwork`.
   */
  network: boolean;
  /** sandbox.network "host": commands share the host's network namespace (its loopback services, metadata address). */
  hostNetwork?: boolean;
  /** sandbox.allowHosts: private hosts / host:port the proxy lets through (allow-hosts.ts). */
  allowHosts?: string[];
  /** Extra host paths bound read-write / read-only at their own paths. */
  readWrite: string[];
  readOnly: string[];
  /** Variables that reach commands unscrubbed (the only way a secret-looking variable gets in). */
  passEnv: string[];
  /** Refuse to run commands when bubblewrap is unavailable (instead of running them unconfined). */
  require: boolean;
  /** deerflow's data directory: never visible to commands (except the thread's own directories inside it). */
  dataDir: string;
  /** The user's home directory (where ~/.ssh and friends are hidden). */
  userHome: string;
  /** Files hidden from commands wherever they are bound: the .deerflowrc files that were read. */
  hiddenFiles: string[];
  /** Folders hidden from commands (an empty tmpfs over each), like the data directory. */
  hiddenDirs?: string[];
  /** Secret values (API keys): a variable holding one is scrubbed whatever its name. */
  secretValues: string[];
  /** Installed skills, name → host folder: shown read-only at /mnt/skills/<name>. */
  skillDirs?: Record<string, string>;
}

export function defaultShellSettings(over: Partial<ShellSettings> = {}): ShellSettings {
  const userHome = over.userHome ?? process.env.HOME ?? homedir();
  return {
    network: true,
    readWrite: [],
    readOnly: [],
    passEnv: [],
    require: false,
    dataDir: process.env.DEERFLOW_HOME || join(userHome, ".deerflow"),
    userHome,
    hiddenFiles: [],
    secretValues: [],
    ...over,
  };
}

/** The settings a tool call runs with: the runtime's, else the defaults. */
export function shellSettingsOf(configurable: Record<string, unknown> | undefined): ShellSettings {
  const run = readRunConfigurable(configurable);
  const s = run.shell as ShellSettings | undefined;
  if (s && typeof s === "object" && typeof s.dataDir === "string") return s;
  const home = run.home;
  return defaultShellSettings(home ? { dataDir: home } : {});
}

/** The settings of a chat or run, from its resolved configuration. */
export function shellSettingsFromConfig(config: {
  home: string;
  files: string[];
  sandbox: { network: boolean; hostNetwork?: boolean; allowHosts?: string[]; readWrite: string[]; readOnly: string[]; passEnv: string[]; require: boolean; hidden?: string[] };
  models: Record<string, { apiKey?: string }>;
  model: { apiKey?: string } | null;
}): ShellSettings {
  const keys = [config.model?.apiKey, ...Object.values(config.models).map((m) => m.apiKey)].filter((k): k is string => typeof k === "string" && !k.startsWith("$") && k.length >= 8);
  const s = config.sandbox;
  // Known before anything looks for bwrap or runs a hook: nothing deerflow runs on the host comes from these.
  noteSandboxWritable([...s.readWrite, config.home]);
  notePastWorkspaces(config.home);
  return defaultShellSettings({
    network: s.network,
    hostNetwork: s.hostNetwork === true,
    allowHosts: s.allowHosts ?? [],
    readWrite: s.readWrite,
    readOnly: s.readOnly,
    passEnv: s.passEnv,
    require: s.require,
    dataDir: config.home,
    hiddenFiles: config.files,
    // The code cache too (V8 code deerflow runs at its next start, and the key that signs it): a command that could
    // write it there would run on the host later (the eleventh pass, through `sandbox.readWrite: ["~/.cache"]`).
    hiddenDirs: [...(s.hidden ?? []), cacheHomeOf()],
    secretValues: [...new Set(keys)],
  });
}

/** Whether commands are kept off the host's network services: no network, or the proxied one (not "host"). */
export function confinedNetwork(s: Pick<ShellSettings, "network" | "hostNetwork">): boolean {
  return !s.network || s.hostNetwork !== true;
}

/** The network commands get, in words (`deerflow doctor`); `confined`: bubblewrap runs them. */
export function networkModeText(s: Pick<ShellSettings, "network" | "hostNetwork" | "allowHosts">, confined: boolean): string {
  if (!s.network) return "network off";
  if (!confined) return "Network: the host's whole network";
  if (s.hostNetwork) return 'network: the host\'s (sandbox.network "host": its loopback services and the metadata address are reachable)';
  const allowed = s.allowHosts?.length ? `; also ${s.allowHosts.join(", ")} (sandbox.allowHosts)` : "";
  return `network: public internet only, through deerflow's proxy${allowed}`;
}
