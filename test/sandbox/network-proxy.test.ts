// The sandbox's host proxy driven over its Unix socket as a command inside reaches it (no bubblewrap needed): the
// spellings of loopback and metadata a hostile command may try are refused with the one line, an allowed target is
// reached without deerflow adding or passing on anything of the proxy's, and close() ends tunnels and the folder.
import { existsSync } from "node:fs";
import { type IncomingHttpHeaders, type Server, createServer, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllowHosts } from "../../src/config/allow-hosts.js";
import { type NetworkProxy, startNetworkProxy } from "../../src/sandbox/network-proxy.js";

let target: Server;
let port: number;
let seen: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  target = createServer((req, res) => {
    seen.push(req.headers);
    res.end(`TARGET ${req.url}`);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  port = (target.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));
const proxies: NetworkProxy[] = [];
afterEach(() => {
  for (const p of proxies.splice(0)) p.close();
  seen = [];
});

async function proxy(allow: string[] = []): Promise<NetworkProxy> {
  const p = startNetworkProxy(parseAllowHosts(allow));
  proxies.push(p);
  await p.ready;
  return p;
}

/** An absolute-URI request through the proxy: status and body. */
function get(p: NetworkProxy, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: p.socketPath, path: url, headers: { host: URL.canParse(url) ? new URL(url).host : "x", ...headers } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A raw CONNECT: the proxy's status line and body up to its close, or the tunnel's socket once it is up. */
function tunnel(p: NetworkProxy, authority: string): Promise<{ head: string; socket: ReturnType<typeof connect> }> {
  return new Promise((resolve, reject) => {
    const s = connect(p.socketPath);
    let got = "";
    s.on("error", reject);
    s.on("data", (d) => {
      got += d.toString("latin1");
      if (got.startsWith("HTTP/1.1 200") && got.includes("\r\n\r\n")) {
        s.removeAllListeners("data");
        resolve({ head: got, socket: s });
      }
    });
    s.on("end", () => resolve({ head: got, socket: s }));
    s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

describe("the sandbox's network proxy", () => {
  it("refuses every spelling of loopback, unspecified, private and metadata, over CONNECT and plain HTTP", async () => {
    const p = await proxy();
    for (const host of ["127.0.0.1", "localhost", "2130706433", "0x7f.1", "0", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254", "[fd00:ec2::254]", "10.0.0.7", "100.64.0.1", "[::]"]) {
      const plain = await get(p, `http://${host}:${port}/x`);
      expect(plain.status, host).toBe(403);
      expect(plain.body, host).toMatch(/^deerflow's sandbox proxy refused .* is not public internet; sandbox\.allowHosts in your ~\/\.deerflowrc allows a named host or port\.\n$/);
      const t = await tunnel(p, `${host}:${port}`);
      expect(t.head, host).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*\r\n\r\ndeerflow's sandbox proxy refused /);
    }
    expect(seen).toEqual([]);
  });

  it("says what it takes when the request is not a proxy request", async () => {
    const p = await proxy();
    expect(await get(p, "/relative")).toEqual({ status: 400, body: "deerflow's sandbox proxy takes absolute http:// requests and CONNECT (for https); nothing else.\n" });
    expect((await tunnel(p, "no-port")).head).toMatch(/^HTTP\/1\.1 400 Bad Request[\s\S]*"CONNECT no-port" is not host:port\.\n$/);
  });

  it("reaches an allowed target, dropping the command's Proxy-* headers and adding nothing of its own", async () => {
    const p = await proxy([`127.0.0.1:${port}`]);
    const r = await get(p, `http://127.0.0.1:${port}/path?q=1`, { "proxy-authorization": "Basic c2VjcmV0", "x-mine": "kept" });
    expect(r).toEqual({ status: 200, body: "TARGET /path?q=1" });
    expect(seen[0]!["x-mine"]).toBe("kept");
    expect(Object.keys(seen[0]!).filter((h) => h.startsWith("proxy-") || h === "authorization")).toEqual([]);
    const t = await tunnel(p, `127.0.0.1:${port}`);
    expect(t.head).toBe("HTTP/1.1 200 Connection Established\r\n\r\n");
    const answer = new Promise<string>((resolve) => {
      let got = "";
      t.socket.on("data", (d) => {
        got += d;
        if (got.includes("TARGET /t")) resolve(got);
      });
    });
    t.socket.write(`GET /t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*TARGET \/t$/);
    // close() ends the open tunnel and removes the folder (the socket with it).
    const ended = new Promise<void>((r) => t.socket.on("close", () => r()));
    p.close();
    await ended;
    expect(existsSync(p.dir)).toBe(false);
  });
});
