// `sandbox.allowHosts`: the private hosts (and ports) the user lets sandboxed commands reach through the network
// proxy, which otherwise refuses every address that is not public internet (sandbox/network-proxy.ts). Only the user's own
// configuration may set it (trust-keys.ts): a cloned repository's .deerflowrc must not open the host's
// loopback services or the cloud metadata address to the model's commands.
import ipaddr from "ipaddr.js";

export interface AllowedHost {
  /** A host name (lower case) or a normalized IP address. */
  host: string;
  /** undefined: any port. */
  port?: number;
}

/** Names that mean this machine: an entry for one of them with a port is also forwarded inside the sandbox. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1"]);

function normalHost(host: string): string {
  const h = host.toLowerCase();
  return ipaddr.isValid(h) ? ipaddr.process(h).toString() : h;
}

/** "host", "host:port", "[v6]" or "[v6]:port" → the entry; a message saying what is wrong otherwise. */
export function parseAllowHost(entry: string): AllowedHost | string {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+)|([0-9a-fA-F:.]*:[0-9a-fA-F:.]*))(?::(\d{1,5}))?$/.exec(entry);
  // A bare IPv6 address has colons of its own: it has no port unless written in brackets.
  const bareV6 = m?.[3] !== undefined && ipaddr.IPv6.isValid(entry);
  if (!m || (m[3] !== undefined && !bareV6)) return `"${entry}" is not host, host:port or [IPv6]:port`;
  const host = bareV6 ? entry : (m[1] ?? m[2])!;
  if (m[1] !== undefined && !ipaddr.IPv6.isValid(m[1])) return `"${entry}" has brackets around something that is not an IPv6 address`;
  const port = bareV6 || m[4] === undefined ? undefined : Number(m[4]);
  if (port !== undefined && (port < 1 || port > 65_535)) return `"${entry}" has a port outside 1-65535`;
  return { host: normalHost(host), port };
}

/** Every entry parsed; throws with the first bad one (the config loader turns it into its one line). */
export function parseAllowHosts(entries: readonly string[]): AllowedHost[] {
  return entries.map((e) => {
    const r = parseAllowHost(e);
    if (typeof r === "string") throw new Error(r);
    return r;
  });
}

/** Whether the request for `host:port`, about to connect to `address`, is allowed by an entry. */
export function hostAllowed(allow: readonly AllowedHost[], host: string, port: number, address: string): boolean {
  const name = normalHost(host.replace(/^\[|\]$/g, ""));
  const addr = normalHost(address);
  return allow.some((a) => (a.port === undefined || a.port === port) && (a.host === name || a.host === addr));
}

/**
 * The entries reached on the sandbox's own loopback: "localhost:5432" lets `psql -h localhost` inside reach the
 * host's 5432 (raw TCP, not only HTTP), through the proxy's CONNECT. Ports below 1024 cannot be listened on there.
 */
export function loopbackForwards(allow: readonly AllowedHost[]): { port: number; target: string }[] {
  const out = new Map<number, string>();
  for (const a of allow) {
    if (a.port === undefined || !LOOPBACK_NAMES.has(a.host) || out.has(a.port)) continue;
    out.set(a.port, `${a.host.includes(":") ? `[${a.host}]` : a.host}:${a.port}`);
  }
  return [...out].map(([port, target]) => ({ port, target }));
}
