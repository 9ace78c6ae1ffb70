// The sandbox's only way out with `sandbox.network: "on"`: the session has its own network namespace (nothing of the
// host's loopback, private networks, metadata address or abstract Unix sockets), and deerflow runs this HTTP proxy on
// the host, one per session, on a Unix socket in a private folder bound into the sandbox. The supervisor inside
// relays 127.0.0.1:<port> to it and sets HTTP(S)_PROXY for commands (supervisor-source.ts).
// The proxy resolves every name itself, refuses any address that is not public internet (address-check.ts, the web
// tools' rule) unless the user's sandbox.allowHosts names it, and connects to the very address it checked (no DNS
// rebinding between the check and the connection). It speaks CONNECT (any port: the danger is the host and the
// private networks, not a public host's port, and git or a registry on :8443 must work) and absolute-URI plain HTTP.
// It adds nothing of deerflow's (no credentials, no environment) and drops the client's proxy-only headers.
import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, createServer, request as httpRequest } from "node:http";
import { type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { blockedRange } from "./address-check.js";
import { type AllowedHost, hostAllowed, loopbackForwards, parseAllowHosts } from "../config/allow-hosts.js";
import type { ShellSettings } from "./shell-settings.js";

/** The name of each proxy's private folder starts so (bwrap-args.ts leaves the sockets in them visible). */
export const PROXY_DIR_PREFIX = "deerflow-net-";

/** Open connections one session's commands may hold through the proxy at once (each tunnel counts once). */
export const PROXY_MAX_CONNECTIONS = 256;

export interface NetworkProxy {
  /** The private folder bound into the sandbox (at the same path), holding `socketPath`. */
  dir: string;
  socketPath: string;
  ready: Promise<void>;
  close(): void;
}

type Target = { address: string } | { status: 403 | 502; line: string };

/** Where `host:port` may be reached, or the one line saying why not (and which setting allows it). */
export async function resolveTarget(host: string, port: number, allow: readonly AllowedHost[]): Promise<Target> {
  const name = host.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return { status: 502, line: `deerflow's sandbox proxy could not resolve ${name}.` };
  }
  if (addresses.length === 0) return { status: 502, line: `deerflow's sandbox proxy could not resolve ${name}.` };
  // Every answer is judged (a name answering one public and one private address is refused), as web_fetch does.
  for (const address of addresses) {
    const range = blockedRange(address);
    if (range === undefined || hostAllowed(allow, name, port, address)) continue;
    const what = name === address ? `${address} (${range})` : `${name} resolves to ${address} (${range}), which`;
    return {
      status: 403,
      line: `deerflow's sandbox proxy refused ${name}:${port}: ${what} is not public internet; sandbox.allowHosts in your ~/.deerflowrc allows a named host or port.`,
    };
  }
  return { address: addresses[0]! };
}

/** "host:port" of a CONNECT (IPv6 in brackets), or undefined when it is not one. */
function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(authority ?? "");
  const port = Number(m?.[2]);
  return m && port >= 1 && port <= 65_535 ? { host: m[1]!, port } : undefined;
}

function refuseRaw(socket: Duplex, status: number, line: string): void {
  const body = `${line}\n`;
  const reason = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function refuse(res: ServerResponse, status: number, line: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" }).end(`${line}\n`);
}

async function onConnect(req: IncomingMessage, client: Duplex, head: Buffer, allow: readonly AllowedHost[], track: (s: Socket) => void): Promise<void> {
  client.on("error", () => {});
  const at = parseAuthority(req.url);
  if (!at) return refuseRaw(client, 400, `deerflow's sandbox proxy: "CONNECT ${req.url}" is not host:port.`);
  const target = await resolveTarget(at.host, at.port, allow);
  if ("line" in target) return refuseRaw(client, target.status, target.line);
  const upstream = connect({ host: target.address, port: at.port });
  track(upstream);
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", () => (!connected ? refuseRaw(client, 502, `deerflow's sandbox proxy could not connect to ${at.host}:${at.port}.`) : client.destroy()));
  client.on("close", () => upstream.destroy());
}

/** The request's headers minus those meant for the proxy, or for this hop only. */
function forwardedHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (!/^(?:proxy-|connection$|keep-alive$)/i.test(k)) out[k] = v;
  return out;
}

async function onRequest(req: IncomingMessage, res: ServerResponse, allow: readonly AllowedHost[], track: (s: Socket) => void): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? "");
  } catch {}
  if (url?.protocol !== "http:") return refuse(res, 400, "deerflow's sandbox proxy takes absolute http:// requests and CONNECT (for https); nothing else.");
  const port = Number(url.port || 80);
  const target = await resolveTarget(url.hostname, port, allow);
  if ("line" in target) return refuse(res, target.status, target.line);
  // The checked address itself: the name is not resolved again (no rebinding); the Host header keeps the name.
  const up = httpRequest({ host: target.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers: forwardedHeaders(req), agent: false, setHost: false });
  up.on("socket", track);
  up.on("response", (r) => {
    // A reset mid-answer must not reach deerflow as an unhandled error: the command's connection just ends.
    r.on("error", () => res.destroy());
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  req.on("error", () => up.destroy());
  up.on("error", () => (res.headersSent ? res.destroy() : refuse(res, 502, `deerflow's sandbox proxy could not connect to ${url.host}.`)));
  req.pipe(up);
}

/** Starts a session's proxy; `close()` ends it with every connection and removes its folder. */
export function startNetworkProxy(allow: readonly AllowedHost[]): NetworkProxy {
  const dir = mkdtempSync(join(tmpdir(), PROXY_DIR_PREFIX));
  const socketPath = join(dir, "proxy.sock");
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    open.add(s);
    s.once("close", () => open.delete(s));
  };
  const server = createServer((req, res) => void onRequest(req, res, allow, track));
  server.on("connection", track);
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => void onConnect(req, client, head, allow, track));
  server.on("clientError", (_e, socket) => socket.destroy());
  server.maxConnections = PROXY_MAX_CONNECTIONS;
  const ready = new Promise<void>((resolve, reject) => {
    server.once("error", (e) => reject(new Error(`The shell sandbox's network proxy could not start: ${e.message}`)));
    server.listen(socketPath, () => resolve());
  });
  ready.catch(() => {});
  let closed = false;
  return {
    dir,
    socketPath,
    ready,
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const s of open) s.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The proxy of a session whose network is proxied ("on", not "host"), with what tells the supervisor about it (the
 * socket, and the allowed loopback ports to forward); undefined with the network off or the host's.
 */
export function sessionProxy(settings: ShellSettings): { proxy: NetworkProxy; env: Record<string, string> } | undefined {
  if (!settings.network || settings.hostNetwork) return undefined;
  const allow = parseAllowHosts(settings.allowHosts ?? []);
  const proxy = startNetworkProxy(allow);
  return { proxy, env: { DEERFLOW_PROXY_SOCKET: proxy.socketPath, DEERFLOW_PROXY_FORWARDS: JSON.stringify(loopbackForwards(allow)) } };
}
