// The sandbox's network with bubblewrap and the network on (the default): its own network namespace whose only way
// out is deerflow's proxy on the host. Host services (a real HTTP server on the host's loopback), the cloud metadata
// address and names resolving to loopback are refused with one line naming the setting (the host's abstract Unix
// sockets are not there at all); the user's allow-list (~/.deerflowrc sandbox.allowHosts) lets a named host:port
// through, a repository's .deerflowrc cannot; a server a command starts inside stays reachable on the sandbox's own
// loopback; --no-network and "host" keep their meaning.
import { writeFileSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { type AddressInfo, type Server as NetServer, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { HAS_BWRAP, toolResults } from "../support/confinement.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
/** A service of the host on its loopback: a dev database, Docker's API, a local model server stand for it. */
let hostService: Server;
let port: number;
const SECRET = "HOST-SERVICE-ANSWER-61c2";
beforeAll(async () => {
  hostService = createServer((_req, res) => res.end(SECRET));
  await new Promise<void>((r) => hostService.listen(0, "127.0.0.1", r));
  port = (hostService.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => hostService.close(() => r())));
/** An abstract Unix socket of the host (an X server's `@/tmp/.X11-unix/X0` stands for it): per network namespace. */
const ABSTRACT = `\0deerflow-test-abstract-${process.pid}`;
let abstract: NetServer;
beforeAll(async () => {
  abstract = createNetServer((c) => c.on("error", () => {}).end());
  await new Promise<void>((r) => abstract.listen(ABSTRACT, r));
});
afterAll(() => new Promise<void>((r) => abstract.close(() => r())));
const abstractProbe = `node -e 'require("net").connect(${JSON.stringify(ABSTRACT)}).on("connect",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>console.log("BLOCKED "+e.code))'`;

/** curl through the sandbox's proxy explicitly (NO_PROXY would send loopback names to the sandbox's own lo). */
const viaProxy = (url: string) => `curl -sS --max-time 20 --noproxy '' -x "$HTTP_PROXY" ${url}; echo " rc=$?"`;
const plain = (url: string) => `curl -sS --max-time 20 ${url}; echo " rc=$?"`;

/** Runs the bash calls in one headless run (in-process) and returns their outputs by id. */
async function commands(sb: ReturnType<typeof e2e.sandbox>, calls: Record<string, string>, flags: string[] = []): Promise<Record<string, string>> {
  e2e.server.requests.length = 0;
  e2e.server.push({ toolCalls: Object.entries(calls).map(([id, command]) => ({ id, name: "bash", args: { command } })) }, { content: "done" });
  // --yes: the audit asks about network commands; the sandbox's network, not the audit, is under test.
  const r = await runCli(sb, ["run", "--yes", ...flags, "probe the network"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return toolResults(e2e.server.requests[1]!);
}

describe.runIf(HAS_BWRAP)("the sandbox's network (bwrap, network on)", () => {
  it("refuses the host's loopback, the metadata address and a name resolving to loopback, with one line naming the setting", async () => {
    const sb = e2e.sandbox();
    const out = await commands(sb, {
      env: 'echo "$HTTP_PROXY|$HTTPS_PROXY|$NO_PROXY"',
      direct: plain(`http://127.0.0.1:${port}/`),
      proxied: viaProxy(`http://127.0.0.1:${port}/`),
      name: viaProxy(`http://localhost:${port}/`),
      metadata: plain("http://169.254.169.254/latest/meta-data/"),
      tunnel: `curl -sS --max-time 20 https://169.254.169.254/ 2>&1; echo " rc=$?"`,
      v6: viaProxy("http://[fd00:ec2::254]/"),
      abstract: abstractProbe,
    });
    expect(out.env).toMatch(/^http:\/\/127\.0\.0\.1:\d+\|http:\/\/127\.0\.0\.1:\d+\|localhost,127\.0\.0\.1,::1$/);
    for (const k of Object.keys(out)) expect(out[k], k).not.toContain(SECRET);
    // Straight to 127.0.0.1 is the sandbox's own loopback, where nothing listens.
    expect(out.direct).toMatch(/Failed to connect|Couldn't connect/);
    const line = (what: string) => `deerflow's sandbox proxy refused ${what} is not public internet; sandbox.allowHosts in your ~/.deerflowrc allows a named host or port.`;
    expect(out.proxied).toContain(line(`127.0.0.1:${port}: 127.0.0.1 (loopback)`));
    expect(out.name).toMatch(new RegExp(`refused localhost:${port}: localhost resolves to \\S+ \\(loopback\\), which is not public internet`));
    expect(out.metadata).toContain(line("169.254.169.254:80: 169.254.169.254 (linkLocal)"));
    expect(out.tunnel).toMatch(/CONNECT tunnel failed, response 403/);
    expect(out.abstract).toBe("BLOCKED ECONNREFUSED");
    expect(out.v6).toContain(line("fd00:ec2::254:80: fd00:ec2::254 (uniqueLocal)"));
  }, 120_000);

  it("the user's sandbox.allowHosts lets the same requests through (HTTP proxy and the forwarded loopback port)", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ sandbox: { allowHosts: [`127.0.0.1:${port}`] } }));
    const out = await commands(sb, {
      proxied: viaProxy(`http://127.0.0.1:${port}/`),
      forwarded: plain(`http://127.0.0.1:${port}/`),
      tunnel: viaProxy(`-p http://127.0.0.1:${port}/`),
      otherPort: viaProxy(`http://127.0.0.1:${port === 65_535 ? 1 : port + 1}/`),
    });
    expect(out.proxied).toBe(`${SECRET} rc=0`);
    expect(out.forwarded).toBe(`${SECRET} rc=0`);
    expect(out.tunnel).toBe(`${SECRET} rc=0`);
    // The entry names one port: the host's others stay refused.
    expect(out.otherPort).toContain("deerflow's sandbox proxy refused 127.0.0.1:");
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^✓ sandbox +bubblewrap works \\(\\S+\\): shell commands run confined; network: public internet only, through deerflow's proxy; also 127\\.0\\.0\\.1:${port} \\(sandbox\\.allowHosts\\)$`,
        "m",
      ),
    );
  }, 120_000);

  it("a server a command starts inside is reachable from the next command on the sandbox's own loopback", async () => {
    const sb = e2e.sandbox();
    // The same port as the host's service: the sandbox's loopback is its own, so it is free there.
    const server = `node -e "require('http').createServer((q,s)=>s.end('INSIDE-SERVER')).listen(${port},'127.0.0.1',()=>console.log('up'))"`;
    e2e.server.push(
      { toolCalls: [{ id: "start", name: "bash", args: { command: server, run_in_background: true } }] },
      // Polls until the job is listening (a bounded wait on the event, not a sleep): up to a minute, since node's
      // start inside the sandbox took over 10 s on a loaded 2-core CI machine.
      { toolCalls: [{ id: "reach", name: "bash", args: { command: `for i in $(seq 600); do curl -s http://localhost:${port}/ && break; sleep 0.1; done; echo " rc=$?"` } }] },
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "--yes", "serve"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests.at(-1)!);
    expect(out.reach).toBe("INSIDE-SERVER rc=0");
  }, 120_000);

  it('a repository\'s .deerflowrc cannot set sandbox.allowHosts or "host" before trust', async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ sandbox: { network: "host", allowHosts: [`127.0.0.1:${port}`, "169.254.169.254"] } }));
    const r = await runCli(sb, ["run", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `deerflow: ${join(sb.cwd, ".deerflowrc")} is not trusted, and its sandbox.network, sandbox.allowHosts apply only in a trusted folder: review it, then run "deerflow trust ${sb.cwd}" (or remove those keys).\n`,
    );
    expect(e2e.server.requests).toEqual([]);
    // "off" only tightens: it applies untrusted.
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ sandbox: { network: "off" } }));
    const off = await commands(sb, { net: plain("http://169.254.169.254/") });
    expect(off.net).toMatch(/Failed to connect|Couldn't connect|Could not resolve/);
    expect(off.net).not.toContain("deerflow's sandbox proxy");
  }, 120_000);

  it('"host" is the old shared namespace: the host\'s loopback service answers (the user chose it)', async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.userHome, ".deerflowrc"), JSON.stringify({ sandbox: { network: "host" } }));
    const out = await commands(sb, { direct: plain(`http://127.0.0.1:${port}/`), env: 'echo "proxy=[$HTTP_PROXY]"', abstract: abstractProbe });
    expect(out.direct).toBe(`${SECRET} rc=0`);
    expect(out.abstract).toBe("CONNECTED");
    expect(out.env).toBe("proxy=[]");
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.stdout).toContain('shell commands run confined; network: the host\'s (sandbox.network "host": its loopback services and the metadata address are reachable)');
  }, 120_000);

  it("through the built CLI: the metadata address is refused with the one line; --no-network has no proxy at all", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "meta", name: "bash", args: { command: plain("http://169.254.169.254/") } }] }, { content: "done" });
    const r = await sb.run(["run", "--yes", "metadata"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(toolResults(e2e.server.requests[1]!).meta).toContain("deerflow's sandbox proxy refused 169.254.169.254:80: 169.254.169.254 (linkLocal) is not public internet;");
    e2e.server.requests.length = 0;
    e2e.server.push({ toolCalls: [{ id: "off", name: "bash", args: { command: `echo "proxy=[$HTTP_PROXY]"; ${plain(`http://127.0.0.1:${port}/`)}` } }] }, { content: "done" });
    const off = await sb.run(["run", "--yes", "--no-network", "offline"]);
    expect(off.exitCode, off.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!).off!;
    expect(out).toMatch(/^proxy=\[\]\n/);
    expect(out).toMatch(/Failed to connect|Couldn't connect/);
    expect(out).not.toContain(SECRET);
  }, 120_000);
});
