// The SDK transport of one configured MCP server. Stdio servers get their own process group (`setsid`), so the
// group can be killed whole at the end of a chat or run (a server started through `npx` or a shell leaves children),
// and, unconfined, a watchdog shell that kills that group and what left it when deerflow dies (host-watchdog.ts);
// with `sandbox: true` they run inside bubblewrap exactly as shell commands do (bwrap-args.ts: host read-only,
// secrets hidden, own PID namespace that dies with deerflow). Remote servers: streamable HTTP, or SSE when asked.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedMcpServer } from "../config/load.js";
import type { McpSdk } from "./sdk.js";
import { bwrapArgs } from "../sandbox/bwrap-args.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { newRunToken, watchdogLine } from "../sandbox/host-watchdog.js";
import { hostProgramPath, onHostPath } from "../sandbox/env-scrub.js";
import { findBwrap } from "../sandbox/run-shell.js";
import { realOrSelf } from "../sandbox/real-path.js";
import type { ShellSettings } from "../sandbox/shell-settings.js";
import { expandEnv, expandRecord } from "./expand-env.js";
import { replaceableBy, replaceableFolderLine } from "../sandbox/replaceable-folders.js";

export interface TransportContext {
  env: NodeJS.ProcessEnv;
  /** The thread whose workspace a confined server sees (needed only for `sandbox: true`). */
  paths?: ThreadPaths;
  shell: ShellSettings;
}

export interface BuiltTransport {
  transport: Transport;
  kind: "stdio" | "http" | "sse";
  /** Stdio: the server's process group (killed whole at close), when it has its own. */
  processGroup(): number | undefined;
  /** Unconfined stdio: the token in the environment of the server and all it starts (host-watchdog.ts). */
  runToken?: string;
  /** The last lines the server wrote to stderr (why it failed to start). */
  stderrTail(): string;
}

/** Longest stderr kept per server: enough for its error, bounded against a server that spams. */
const STDERR_KEEP = 4000;

export function isRemote(server: ResolvedMcpServer): boolean {
  return server.command === undefined;
}

/**
 * Whether the server can reach the network whatever `sandbox.network` says: a remote one is the network, and an
 * unconfined stdio one is a host process. Only a stdio server with `sandbox: true` shares the shell's cut.
 */
export function reachesNetworkFromHost(server: ResolvedMcpServer): boolean {
  return isRemote(server) || server.sandbox !== true;
}

export function transportKind(server: ResolvedMcpServer): BuiltTransport["kind"] {
  if (!isRemote(server)) return "stdio";
  return server.type === "sse" ? "sse" : "http";
}

function remoteTransport(sdk: McpSdk, name: string, server: ResolvedMcpServer, ctx: TransportContext): BuiltTransport {
  const raw = expandEnv((server.httpUrl ?? server.url)!, ctx.env, `mcpServers.${name}.url`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`mcpServers.${name}.url is not a URL (${raw.slice(0, 80)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`mcpServers.${name}.url must be http(s) (got ${url.protocol})`);
  const headers = expandRecord(server.headers, ctx.env, `mcpServers.${name}.headers`);
  const requestInit = headers ? { headers } : undefined;
  const kind = transportKind(server);
  const transport = kind === "sse" ? new sdk.SSEClientTransport(url, { requestInit }) : new sdk.StreamableHTTPClientTransport(url, { requestInit });
  return { transport, kind, processGroup: () => undefined, stderrTail: () => "" };
}

/** Program and arguments of a stdio server: in bubblewrap when confined, else in its own session (setsid). */
function launchLine(name: string, server: ResolvedMcpServer, ctx: TransportContext, cwd: string | undefined, token: string): { command: string; args: string[]; ownGroup: boolean } {
  const command = expandEnv(server.command!, ctx.env, `mcpServers.${name}.command`);
  const args = (server.args ?? []).map((a, i) => expandEnv(a, ctx.env, `mcpServers.${name}.args[${i}]`));
  if (server.sandbox) {
    const bwrap = findBwrap();
    if (!bwrap) throw new Error(`mcpServers.${name}.sandbox is true but bubblewrap (bwrap) is not available here (install the bubblewrap package, or drop "sandbox")`);
    if (!ctx.paths) throw new Error(`mcpServers.${name}.sandbox needs a thread's workspace, and none is open yet`);
    // A new thread's directories are made by its first run, after the agent (and so this server) is set up.
    for (const p of [ctx.paths.workspace_path, ctx.paths.uploads_path, ctx.paths.outputs_path]) if (p) mkdirSync(p, { recursive: true });
    // The user's own server keeps the host's network (as before the proxied network): the proxy serves the agent's
    // commands; a server reaching a local service or an intranet is what the user configured it for.
    const line = bwrapArgs(ctx.paths, { ...ctx.shell, hostNetwork: true }, [command, ...args]);
    // bwrap-args ends with `--chdir <workspace> -- …`: a configured cwd (readable in the sandbox) wins. Without one, a
    // server of the user's own file starts in the home (empty in the sandbox but for toolchains), as an unconfined one
    // does: in the workspace, `npx` ran a cloned repository's copy of the package with the server's token (the
    // fortieth pass's A40a-5). A project's own server keeps the workspace (its files are part of the folder's trust).
    const at = line.lastIndexOf("--chdir");
    const home = realOrSelf(ctx.shell.userHome);
    const start = cwd ?? (realOrSelf(dirname(server.file)) === home ? home : undefined);
    if (start && at >= 0) line[at + 1] = start;
    // The sandbox's /tmp is empty: a server program installed under /tmp (a checkout there) would vanish, so its
    // files (its node_modules tree, else its folder) are bound back read-only. Only files: a directory argument
    // is data the server may be denied (a home with ~/.ssh), never re-exposed.
    line.splice(at >= 0 ? at : 0, 0, ...programBinds([command, ...args]));
    const setsid = onHostPath("setsid");
    return setsid ? { command: setsid, args: [bwrap, ...line], ownGroup: true } : { command: bwrap, args: line, ownGroup: false };
  }
  const setsid = onHostPath("setsid", ctx.paths?.workspace_path);
  if (!setsid) return { command, args, ownGroup: false };
  // The host watchdog (sandbox/host-watchdog.ts) between the server and deerflow: when deerflow dies, even by
  // SIGKILL, it kills the server's group and whatever left it (setsid, double forks) by the server's token.
  const watched = watchdogLine(token, command, args);
  return { command: setsid, args: watched ? [watched.command, ...watched.args] : [command, ...args], ownGroup: true };
}

function stdioTransport(sdk: McpSdk, name: string, server: ResolvedMcpServer, ctx: TransportContext): BuiltTransport {
  const rawCwd = server.cwd ? expandEnv(server.cwd, ctx.env, `mcpServers.${name}.cwd`) : undefined;
  const cwd = rawCwd ? (isAbsolute(rawCwd) ? rawCwd : resolve(dirname(server.file), rawCwd)) : undefined;
  if (cwd && !existsSync(cwd)) throw new Error(`mcpServers.${name}.cwd ${cwd} does not exist`);
  // A server starts on the host in this folder, by its path: one another user could swap ran their server.js as you
  // (A46a-4). So does the folder of the file that configured it, where a server without a cwd starts.
  const startsIn = cwd ?? dirname(server.file);
  const replaceable = server.sandbox ? undefined : replaceableBy(startsIn);
  if (replaceable) throw new Error(replaceableFolderLine(`mcpServers.${name} starts in ${startsIn}, which`, replaceable));
  // The program is looked up on the host's filtered PATH (env-scrub.ts), never a project folder on it (direnv's
  // node_modules/.bin, where a sandboxed command could write an `npx`: the sixteenth pass's M1); a PATH the user sets
  // in the server's own `env` is theirs.
  const env = { PATH: hostProgramPath(ctx.env.PATH ?? process.env.PATH ?? "", ctx.paths?.workspace_path), ...expandRecord(server.env, ctx.env, `mcpServers.${name}.env`) };
  const token = newRunToken();
  const line = launchLine(name, server, ctx, cwd, token);
  // The SDK passes only HOME, PATH, SHELL, TERM, USER, LOGNAME of ours plus the server's own `env`: no API keys.
  // Unconfined and with no cwd of its own, a server starts in the folder of the file that configured it (the home for
  // ~/.deerflowrc), never the project deerflow runs in: npx and `python3 -m` resolve from their cwd, so a repository's
  // node_modules/.bin, .npmrc or module file ran on the host with the server's token (the eleventh pass).
  const where = server.sandbox ? undefined : (cwd ?? dirname(server.file));
  const transport = new sdk.StdioClientTransport({ command: line.command, args: line.args, env, cwd: where, stderr: "pipe" });
  // The pid is gone from the transport once it closes: keep it to kill the group afterwards.
  let pid: number | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    pid = transport.pid ?? undefined;
  };
  let tail = "";
  transport.stderr?.on("data", (d: Buffer) => {
    tail = (tail + d.toString("utf8")).slice(-STDERR_KEEP);
  });
  return {
    transport,
    kind: "stdio",
    processGroup: () => (line.ownGroup ? pid : undefined),
    runToken: server.sandbox ? undefined : token,
    stderrTail: () => tail,
  };
}

/** `sdk`: the MCP SDK as loaded by the hub (sdk.ts: imported when the first server starts). */
export function buildTransport(sdk: McpSdk, name: string, server: ResolvedMcpServer, ctx: TransportContext): BuiltTransport {
  return isRemote(server) ? remoteTransport(sdk, name, server, ctx) : stdioTransport(sdk, name, server, ctx);
}

/** Read-only binds for a confined server's program files that live under /tmp (hidden by the sandbox's tmpfs). */
function programBinds(words: string[]): string[] {
  const binds = new Set<string>();
  for (const w of words) {
    if (!w.startsWith("/tmp/") || !isFile(w)) continue;
    const nm = w.lastIndexOf("/node_modules/");
    binds.add(nm >= 0 ? w.slice(0, nm + "/node_modules".length) : dirname(w));
  }
  return [...binds].flatMap((b) => ["--ro-bind", b, b]);
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
