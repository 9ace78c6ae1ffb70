// Which network addresses web_fetch, and the sandbox's network proxy (network-proxy.ts), may connect to: one home
// for both, in the sandbox layer below the tools. The check runs on the address the connection is about to use
// (a custom `lookup` on the request, so it sees what DNS answered at connect time: a name that resolved to a public
// address for an earlier check and to 127.0.0.1 now — DNS rebinding — is refused), and on IP literals before any
// connection (Node skips `lookup` for them). Ranges come from ipaddr.js's tables, not hand-written masks.
import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The one switch that lets web_fetch reach loopback addresses: for tests only (their recorded pages are served on
 * 127.0.0.1; private, link-local and metadata addresses stay refused, so a redirect to them is still caught). An
 * environment variable, not a .deerflowrc key, so no project file can turn it on; the name says what it is for.
 */
export const ALLOW_LOOPBACK_ENV = "DEERFLOW_TEST_ONLY_WEB_FETCH_ALLOWS_LOOPBACK";

export function loopbackAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ALLOW_LOOPBACK_ENV] === "1";
}

/** The ipaddr.js range of public internet addresses (v4 and v6). */
const PUBLIC_RANGES = new Set(["unicast"]);

/** Why `address` may not be fetched ("loopback", "private", …), or undefined for a public unicast address. */
export function blockedRange(address: string, allowLoopback = false): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  let ip = ipaddr.parse(address);
  // ::ffff:127.0.0.1 and friends reach the IPv4 host: judge them as IPv4.
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  // The deprecated IPv4-compatible form (`::7f00:1` is 127.0.0.1 to a stack that still routes it): judged as IPv4 too.
  const parts = ip.kind() === "ipv6" ? (ip as ipaddr.IPv6).parts : [];
  if (parts.length === 8 && parts.slice(0, 6).every((p) => p === 0) && (parts[6]! > 0 || parts[7]! > 1)) ip = ipaddr.fromByteArray([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]);
  const range = ip.range();
  // Everything but "unicast" is refused: loopback, private, linkLocal (169.254.169.254, the cloud metadata address),
  // uniqueLocal, carrierGradeNat, unspecified (0.0.0.0, ::), multicast, and the v6 tunnels that embed a v4 host.
  return PUBLIC_RANGES.has(range) || (allowLoopback && range === "loopback") ? undefined : range;
}

/** The error a refused address raises (its message is the one line the model reads). */
export class BlockedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    const what = host === address ? `${address} (${range})` : `${host} resolves to ${address} (${range}), which`;
    super(`${what} is not an address web_fetch reaches: only public internet addresses are fetched.`);
    this.name = "BlockedAddressError";
  }
}

/** A `lookup` for http(s).request that resolves as usual, then refuses any blocked address it would connect to. */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...(options as LookupOneOptions), all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as unknown as LookupAddress[];
      for (const a of list) {
        const range = blockedRange(a.address, allowLoopback);
        if (range) return (callback as (e: Error) => void)(new BlockedAddressError(hostname, a.address, range));
      }
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return (callback as (e: Error) => void)(new Error(`${hostname} has no address`));
      (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family);
    });
  };
}
