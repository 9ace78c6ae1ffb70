// A sandbox session that misses a host socket bound since it started is restarted when idle (run-shell.ts sessionFor).
// A batch's calls reach the session concurrently: one still waiting for the sandbox to start had no command
// registered yet, so the next call found the session "idle" and restarted it under the first, whose command came
// back "[the sandbox ended (exit 0); its processes are gone]" (CI, sandbox-network.test.ts with allowHosts). A call
// now claims the session as soon as it gets it. Real bwrap, in-process.
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeShellSessions, findBwrap, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await closeShellSessions();
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!HAS_BWRAP)("a batch's calls and the session's restart for new host sockets", () => {
  it("a call still waiting for the sandbox keeps it: a socket bound meanwhile does not restart it under that call", async () => {
    const root = makeRoot("deerflow-restart-race-");
    const paths = makeThread(root, "A");
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const req = { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 60 };
    // Elsewhere on the host disk (/tmp is replaced inside the sandbox anyway): covered only by a session started after it.
    const dir = `/var/tmp/deerflow-race-${process.pid}-${Date.now()}`;
    mkdirSync(dir);
    dirs.push(dir);

    const first = runShell("echo first", req);
    // Bound after the first call created the session, before the second call looks it up.
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(dir, "late.sock"), resolve));
    const second = runShell("echo second", req);
    const [a, b] = await Promise.all([first, second]);
    expect(a.output).toBe("first\n");
    expect(a.exitCode).toBe(0);
    expect(b.output).toBe("second\n");
  }, 60_000);

  // CI: sandbox-network.test.ts's sandbox failed to start ("bwrap: Can't mkdir parents for /var/tmp/…/agent.sock:
  // Read-only file system") because sandbox-edges.test.ts removed its socket's folder between deerflow listing the
  // host's sockets and bubblewrap covering them. Any program's short-lived socket can do that on a user's machine.
  it("a host socket removed while the sandbox starts does not fail the command: the sandbox is started afresh", async () => {
    const root = makeRoot("deerflow-vanish-race-");
    const paths = makeThread(root, "A");
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const dir = `/var/tmp/deerflow-vanish-${process.pid}-${Date.now()}`;
    mkdirSync(dir);
    dirs.push(dir);
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(dir, "short-lived.sock"), resolve));
    // The real bubblewrap, reached through a program that removes the socket's folder at the moment bubblewrap
    // starts with mounts naming it (the race made certain): what another program's clean-up would do.
    const real = findBwrap()!;
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\ncase "$*" in *"${dir}/"*) rm -rf "${dir}";; esac\nexec "${real}" "$@"\n`);
    chmodSync(join(bin, "bwrap"), 0o755);
    vi.stubEnv("PATH", `${bin}:${process.env.PATH}`);
    const r = await runShell("echo still here", { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 60 });
    expect(existsSync(dir)).toBe(false);
    expect(r.output).toBe("still here\n");
    expect(r.exitCode).toBe(0);
  }, 60_000);
});
