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
    // Reported as the signal, or (in a PID namespace, whose first process cannot signal itself) as 128 + 15, as bwrap does.
    expect(await outcome("kill -TERM $$")).toSatisfy((o: { code: number | null; signal: string | null }) => o.signal === "SIGTERM" || o.code === 143);
  }, 60_000);

  it("a command that SIGKILLs or stops its own watchdog still leaves nothing behind (A38b-2)", async () => {
    const orphan = `${marker}-wd`;
    const script = join(mkdtempSync(join(tmpdir(), "df-wd-")), `${orphan}.sh`);
    // Walks up its parents to the watchdog, as the thirty-eighth pass did, after leaving an orphan with no token.
    writeFileSync(
      script,
      [
        `setsid -f env -i /bin/bash -c 'exec -a ${orphan} sleep 300' >/dev/null 2>&1 </dev/null`,
        "p=$PPID",
        "while [ \"$p\" -gt 1 ] && ! tr '\\0' ' ' < /proc/$p/cmdline | grep -q deerflow-watchdog; do p=$(awk '/^PPid/{print $2}' /proc/$p/status); done",
        "kill -STOP $p; kill -9 $p; echo tried $p",
      ].join("\n"),
    );
    const l = watchdogLine(newRunToken(), "/bin/sh", [script])!;
    const child = spawn(l.command, l.args, { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    await new Promise((done) => child.on("exit", done));
    expect(out).toMatch(/^tried \d+/);
    expect(processesMatching(orphan)).toEqual([]);
  }, 60_000);
});
