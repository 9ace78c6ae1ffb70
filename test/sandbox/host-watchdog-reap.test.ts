// The unconfined watchdog is its program's subreaper: when the program ends, it kills what the program left, round
// after round. A "hopper" defeats a watchdog that stops at its first lost race: each generation leaves the group and
// clears its environment (setsid -f env -i), starts the next, and exits at once, so a kill often finds the pid gone
// while the next generation is already there (the twenty-seventh pass's A27-2). Real processes; /proc decides.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newRunToken, watchdogLine } from "../../src/sandbox/host-watchdog.js";
import { killAllMatching, processesMatching } from "../support/processes.js";

const marker = `hop-${process.pid}-${Date.now()}`;
const hopper = join(mkdtempSync(join(tmpdir(), "df-hop-")), `${marker}.sh`);
writeFileSync(hopper, 'setsid -f env -i /bin/sh "$0" >/dev/null 2>&1 </dev/null\nsleep 0.02\n');

afterEach(() => killAllMatching(marker));

const line = watchdogLine(newRunToken(), "/bin/sh", ["-c", `/bin/sh ${hopper}; sleep 0.2`]);

describe.skipIf(line === undefined)("the host watchdog's reap", () => {
  it("leaves no generation of a hopper that re-forks under setsid with a cleared environment", async () => {
    for (let round = 0; round < 5; round++) {
      const child = spawn(line!.command, line!.args, { detached: true, stdio: "ignore" });
      await new Promise((done) => child.on("exit", done));
      // The chain always has a live generation while it runs: any one left now means it outlived its command.
      expect(processesMatching(marker), `round ${round}`).toEqual([]);
    }
  }, 60_000);

  it("passes an exit status above 128 through as one (147 once stopped the watchdog: A28-4); a death by a signal stays one", async () => {
    const outcome = (script: string) =>
      new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((done) => {
        const l = watchdogLine(newRunToken(), "/bin/sh", ["-c", script])!;
        const child = spawn(l.command, l.args, { stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        child.stderr.on("data", (d) => (err += d));
        child.on("exit", (code, signal) => done({ code, signal, err }));
      });
    expect(await outcome("exit 147")).toEqual({ code: 147, signal: null, err: "" });
    expect(await outcome("exit 255")).toEqual({ code: 255, signal: null, err: "" });
    expect(await outcome("kill -TERM $$")).toMatchObject({ code: null, signal: "SIGTERM" });
  }, 60_000);
});
