// sandbox.allowHosts: how an entry is read, what it lets through (the request's name or the address connected, and
// its port only), which entries are also forwarded on the sandbox's own loopback, and the one line a bad entry gets.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostAllowed, loopbackForwards, parseAllowHost, parseAllowHosts } from "../../src/config/allow-hosts.js";
import { loadConfig } from "../../src/config/load.js";
import { ConfigError } from "../../src/errors.js";

describe("parseAllowHost", () => {
  it("reads host, host:port, IPv6 bare or in brackets; names lower-cased and addresses normalized", () => {
    expect(parseAllowHost("10.0.0.7")).toEqual({ host: "10.0.0.7", port: undefined });
    expect(parseAllowHost("DB.Internal:5432")).toEqual({ host: "db.internal", port: 5432 });
    expect(parseAllowHost("localhost:5432")).toEqual({ host: "localhost", port: 5432 });
    expect(parseAllowHost("fd00::7")).toEqual({ host: "fd00::7", port: undefined });
    expect(parseAllowHost("[fd00:0::7]:8080")).toEqual({ host: "fd00::7", port: 8080 });
    expect(parseAllowHost("[::ffff:127.0.0.1]:80")).toEqual({ host: "127.0.0.1", port: 80 });
  });

  it("says what is wrong with a bad entry", () => {
    expect(parseAllowHost("http://10.0.0.7/")).toBe('"http://10.0.0.7/" is not host, host:port or [IPv6]:port');
    expect(parseAllowHost("h:0")).toBe('"h:0" has a port outside 1-65535');
    expect(parseAllowHost("h:70000")).toBe('"h:70000" has a port outside 1-65535');
    expect(parseAllowHost("[nothost]:80")).toMatch(/is not host, host:port|not an IPv6 address/);
    expect(parseAllowHost("")).toMatch(/is not host, host:port/);
    expect(() => parseAllowHosts(["ok", "a b"])).toThrow('"a b" is not host, host:port or [IPv6]:port');
  });
});

describe("hostAllowed", () => {
  const allow = parseAllowHosts(["localhost:5432", "10.0.0.7", "127.0.0.1:8080"]);
  it("matches the requested name or the address connected, on the entry's port only", () => {
    expect(hostAllowed(allow, "localhost", 5432, "127.0.0.1")).toBe(true);
    expect(hostAllowed(allow, "localhost", 5433, "127.0.0.1")).toBe(false);
    expect(hostAllowed(allow, "anything.example", 443, "10.0.0.7")).toBe(true);
    // Another spelling of an allowed address is the same address.
    expect(hostAllowed(allow, "2130706433", 8080, "127.0.0.1")).toBe(true);
    expect(hostAllowed(allow, "[::ffff:127.0.0.1]", 8080, "::ffff:127.0.0.1")).toBe(true);
    expect(hostAllowed(allow, "169.254.169.254", 80, "169.254.169.254")).toBe(false);
    expect(hostAllowed([], "localhost", 5432, "127.0.0.1")).toBe(false);
  });

  it("forwards only loopback entries with a port, once per port", () => {
    expect(loopbackForwards(parseAllowHosts(["localhost:5432", "127.0.0.1:5432", "[::1]:6379", "127.0.0.1", "10.0.0.7:22"]))).toEqual([
      { port: 5432, target: "localhost:5432" },
      { port: 6379, target: "[::1]:6379" },
    ]);
  });
});

describe("a bad sandbox.allowHosts entry in ~/.deerflowrc", () => {
  let root: string | undefined;
  afterEach(() => root && rmSync(root, { recursive: true, force: true }));
  it("stops with the file, the key and what is wrong", () => {
    root = mkdtempSync(join(tmpdir(), "deerflow-allow-"));
    const cwd = join(root, "work");
    mkdirSync(cwd);
    writeFileSync(join(root, ".deerflowrc"), JSON.stringify({ sandbox: { allowHosts: ["ok.internal", "http://x/"] } }));
    let err: unknown;
    try {
      loadConfig({ cwd, env: {}, userHome: root, flags: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).keyPath).toBe("sandbox.allowHosts.1");
    expect((err as Error).message).toContain('"http://x/" is not host, host:port or [IPv6]:port');
    expect((err as Error).message.split("\n")).toHaveLength(1);
  });
});
