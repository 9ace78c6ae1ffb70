// The host's Unix socket paths that a confined network covers, read from /proc/net/unix: bound paths (spaces and all),
// never abstract sockets (those the network namespace already cuts) or unnamed ones; a socket bound by a relative name
// (gunicorn's `unix:app.sock`) is found in its service's folder and is out of the sandbox's reach (A40b-2).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostSocketPaths } from "../../src/sandbox/host-sockets.js";
import { closeShellSessions, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const TABLE = [
  "Num       RefCount Protocol Flags    Type St Inode Path",
  "00000000fcd6e4a4: 00000003 00000000 00000000 0001 03 137420",
  "00000000254e5cf6: 00000002 00000000 00010000 0001 01  5510 /var/run/postgresql/.s.PGSQL.5432",
  "0000000011111111: 00000002 00000000 00010000 0001 01  5511 @/tmp/.X11-unix/X0",
  "0000000022222222: 00000002 00000000 00010000 0001 01  5512 /home/u/my sockets/agent.sock",
  "0000000033333333: 00000002 00000000 00010000 0001 01  5513 /var/run/postgresql/.s.PGSQL.5432",
].join("\n");

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await closeShellSessions();
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("hostSocketPaths", () => {
  it("lists each bound path once, with its spaces; skips abstract and unnamed sockets", () => {
    expect(hostSocketPaths(TABLE, () => [])).toEqual(["/var/run/postgresql/.s.PGSQL.5432", "/home/u/my sockets/agent.sock"]);
  });

  it("an empty table (no /proc/net/unix) gives none", () => {
    expect(hostSocketPaths("")).toEqual([]);
  });

  it("a socket bound by a relative name is found in the folder its service works in; the sandbox cannot connect to it (A40b-2)", async () => {
    // Elsewhere on the host disk (/tmp is the sandbox's own anyway), bound as `listen("app.sock")` binds: relatively.
    const dir = `/var/tmp/deerflow-relsock-${process.pid}-${Date.now()}`;
    mkdirSync(dir);
    dirs.push(dir);
    const service = spawn(process.execPath, ["-e", "require('net').createServer((s) => s.end('HOST-SERVICE-SECRET\\n')).listen('app.sock', () => console.log('up'))"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(service);
    await new Promise<void>((resolve) => service.stdout!.once("data", () => resolve()));
    expect(hostSocketPaths()).toContain(join(dir, "app.sock"));
    if (!HAS_BWRAP) return;
    const root = makeRoot("deerflow-relsock-");
    const paths = makeThread(root, "A");
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const probe = `node -e "require('net').connect(process.argv[1]).on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log('BLOCKED', e.code))" ${join(dir, "app.sock")}`;
    const r = await runShell(probe, { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 60 });
    expect(r.output).toMatch(/^BLOCKED E/);
    expect(r.output).not.toContain("HOST-SERVICE-SECRET");
  });
});
