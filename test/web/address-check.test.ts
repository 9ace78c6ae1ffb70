// The address rule of web_fetch as a table (ipaddr.js's ranges: every form a hostile URL or DNS answer may take),
// and the redirect rules that need no server: a downgrade from https, a hop to a private address or with credentials.
import { describe, expect, it } from "vitest";
import { blockedRange } from "../../src/sandbox/address-check.js";
import { nextHop } from "../../src/tools/web/fetch-page.js";

describe("blockedRange", () => {
  it("lets public unicast addresses through, v4 and v6", () => {
    for (const a of ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"]) expect(blockedRange(a), a).toBeUndefined();
  });

  it("refuses loopback, private, link-local (metadata), CGNAT, unspecified, multicast, broadcast and the v6 forms of them", () => {
    const table: [string, string][] = [
      ["127.0.0.1", "loopback"],
      ["127.1.2.3", "loopback"],
      ["::1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      // IPv4-compatible (deprecated) forms: the thirteenth pass's L2.
      ["::7f00:1", "loopback"],
      ["::a9fe:a9fe", "linkLocal"],
      ["10.0.0.1", "private"],
      ["172.16.5.4", "private"],
      ["192.168.1.1", "private"],
      ["::ffff:192.168.1.1", "private"],
      ["169.254.169.254", "linkLocal"],
      ["fe80::1", "linkLocal"],
      ["100.64.0.1", "carrierGradeNat"],
      ["fd00::1", "uniqueLocal"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["224.0.0.1", "multicast"],
      ["255.255.255.255", "broadcast"],
      ["64:ff9b::7f00:1", "rfc6052"],
      ["2002:7f00:1::", "6to4"],
    ];
    expect(table.map(([a]) => [a, blockedRange(a)])).toEqual(table);
  });

  it("the test switch opens loopback only", () => {
    expect(blockedRange("127.0.0.1", true)).toBeUndefined();
    expect(blockedRange("::ffff:127.0.0.1", true)).toBeUndefined();
    expect(blockedRange("10.0.0.1", true)).toBe("private");
    expect(blockedRange("169.254.169.254", true)).toBe("linkLocal");
  });
});

describe("nextHop", () => {
  const from = new URL("https://docs.example.com/a");
  it("follows relative and cross-site redirects, and http → https", () => {
    expect(nextHop(from, "/b").href).toBe("https://docs.example.com/b");
    expect(nextHop(from, "https://other.example.org/c").href).toBe("https://other.example.org/c");
    expect(nextHop(new URL("http://docs.example.com/"), "https://docs.example.com/").href).toBe("https://docs.example.com/");
  });

  it("refuses a downgrade to http, a private target, credentials and other schemes, each in one line", () => {
    expect(() => nextHop(from, "http://docs.example.com/b")).toThrow("https://docs.example.com/a redirected from https to plain http (http://docs.example.com/b); the downgrade is refused.");
    expect(() => nextHop(from, "https://10.0.0.5/")).toThrow(/redirected to https:\/\/10\.0\.0\.5\/: 10\.0\.0\.5 \(private\) is not an address web_fetch reaches/);
    expect(() => nextHop(from, "https://u:p@docs.example.com/")).toThrow(/user name or password are refused/);
    expect(() => nextHop(from, "file:///etc/passwd")).toThrow(/file: URLs are not fetched/);
  });
});
