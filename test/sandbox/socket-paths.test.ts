// The host's Unix socket paths that `--no-network` covers, read from /proc/net/unix: bound paths (spaces and all),
// never abstract sockets (those the network namespace already cuts) or unnamed ones.
import { describe, expect, it } from "vitest";
import { hostSocketPaths } from "../../src/sandbox/bwrap-args.js";

const TABLE = [
  "Num       RefCount Protocol Flags    Type St Inode Path",
  "00000000fcd6e4a4: 00000003 00000000 00000000 0001 03 137420",
  "00000000254e5cf6: 00000002 00000000 00010000 0001 01  5510 /var/run/postgresql/.s.PGSQL.5432",
  "0000000011111111: 00000002 00000000 00010000 0001 01  5511 @/tmp/.X11-unix/X0",
  "0000000022222222: 00000002 00000000 00010000 0001 01  5512 /home/u/my sockets/agent.sock",
  "0000000033333333: 00000002 00000000 00010000 0001 01  5513 /var/run/postgresql/.s.PGSQL.5432",
].join("\n");

describe("hostSocketPaths", () => {
  it("lists each bound path once, with its spaces; skips abstract and unnamed sockets", () => {
    expect(hostSocketPaths(TABLE)).toEqual(["/var/run/postgresql/.s.PGSQL.5432", "/home/u/my sockets/agent.sock"]);
  });

  it("an empty table (no /proc/net/unix) gives none", () => {
    expect(hostSocketPaths("")).toEqual([]);
  });
});
