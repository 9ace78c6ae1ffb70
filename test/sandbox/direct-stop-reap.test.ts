// deerflow's own stop of a command run on the host (no bubblewrap) where there are no user namespaces, so the
// watchdog is an ordinary process in the command's group (the forty-first pass's A41c-3): a job's `setsid -f env -i`
// child carries no token and is adopted by the watchdog. Killing the group at once killed the watchdog before it
// reaped, and the child planted on after deerflow exited. Now the watchdog is asked to sweep; /proc decides.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { directBackground, runDirect } from "../../src/sandbox/direct-shell.js";
import { newRunToken, watchdogLine } from "../../src/sandbox/host-watchdog.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { pathWithout } from "../support/confinement.js";
import { killAllMatching, processesMatching } from "../support/processes.js";
import { until } from "../support/wait.js";

const dir = mkdtempSync(join(tmpdir(), "df-direct-stop-"));
const savedPath = process.env.PATH;
process.env.PATH = pathWithout(join(dir, "bin"), ["bwrap", "unshare"]);
const watched = watchdogLine(newRunToken(), "true", []) !== undefined;
process.env.PATH = savedPath;
const marker = `df-orphan-${process.pid}`;
afterAll(() => {
  process.env.PATH = savedPath;
  killAllMatching(marker);
});
const settings = defaultShellSettings({ userHome: join(dir, "home"), dataDir: join(dir, "data") });
/**
 * A command that leaves a child out of its group with a cleared environment (no token), then waits. The child is
 * named `<name>-2`, which the command's own text does not hold.
 */
const leaving = (name: string) => `setsid -f env -i /bin/bash -c 'exec -a ${name}-$((1+1)) sleep 300' >/dev/null 2>&1 </dev/null; trap '' TERM; sleep 300 & wait; wait`;

describe.skipIf(!watched)("the stop of an unconfined command without user namespaces", () => {
  it("a killed background job's setsid env -i child is gone when the job's end is reported", async () => {
    process.env.PATH = pathWithout(join(dir, "bin"), ["bwrap", "unshare"]);
    const name = `${marker}-bg`;
    let end: () => void = () => undefined;
    const ended = new Promise<void>((r) => (end = r));
    const job = directBackground(leaving(name), { cwd: dir, logPath: join(dir, "bg.log"), settings, onEnd: () => end() });
    await until(() => processesMatching(`${name}-2`).length === 1, "the child to start");
    job.kill();
    await ended;
    expect(processesMatching(`${name}-2`)).toEqual([]);
  }, 60_000);

  it("a timed-out command that ignores SIGTERM leaves no setsid env -i child either", async () => {
    process.env.PATH = pathWithout(join(dir, "bin"), ["bwrap", "unshare"]);
    const name = `${marker}-fg`;
    const r = await runDirect(leaving(name), { cwd: dir, timeoutSeconds: 2, settings });
    expect(r.stoppedBy).toBe("timeout");
    expect(processesMatching(`${name}-2`)).toEqual([]);
  }, 60_000);
});
