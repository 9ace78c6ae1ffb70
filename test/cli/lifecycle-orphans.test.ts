// No process outlives deerflow, confined or not: the model's command leaves `sleep N &`, a `setsid` one and a double
// fork running, and deerflow is then killed with SIGKILL (nothing of it can clean up: the watchdog must) or sent
// SIGHUP (a closed terminal: it stops cleanly, says so in one line, and the thread takes the next run). /proc must then
// show no process with that command line. Both with bubblewrap and without it (a PATH without `bwrap`). An MCP
// server's `setsid` grandchild goes too, after a clean end and after kill -9.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { HAS_BWRAP, type Mode, pathWithoutBwrap, unconfinedFlag, approveUnconfined } from "../support/confinement.js";
import { useE2E } from "../support/e2e.js";
import { FIXTURE, writeRc } from "../support/mcp.js";
import { processesMatching } from "../support/processes.js";
import { WAIT_MS, until } from "../support/wait.js";

const e2e = useE2E();
const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];

/** A sleep duration no other test uses: its command line marks this test's processes in /proc. */
let seq = 0;
function uniqueSecs(): string {
  return String(3_019_000 + ((process.pid * 7 + Date.now() + ++seq * 131) % 900_000));
}

/** The 3 leftovers (plain background, setsid, double fork) and a foreground sleep that keeps the command running. */
function leaveBehind(secs: string): string {
  return [`sleep ${secs} &`, `setsid sleep ${secs} &`, `( (sleep ${secs} &) & )`, "echo started", `sleep ${secs}`].join("\n");
}

/** Each `sleep <secs>` process (the command lines of bash and the watchdog name the number too). */
const sleeps = (secs: string) => processesMatching(`sleep\u0000${secs}`);

function envFor(mode: Mode, sb: Sandbox): Record<string, string> {
  return mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : {};
}

describe.each(modes)("no process outlives deerflow (%s)", (mode) => {
  it("kill -9 while a command runs: its background, setsid and double-forked children are gone", async () => {
    const sb = e2e.sandbox();
    const secs = uniqueSecs();
    e2e.server.push({ toolCalls: [{ id: "leave", name: "bash", args: { command: leaveBehind(secs), timeout: 600 } }] }, { content: "never" });
    const child = sb.spawn(["run", "--yes", ...unconfinedFlag(mode), "leave things running"], { env: envFor(mode, sb) });
    await until(() => sleeps(secs).length >= 4, "the command's four sleeps to run");
    child.kill("SIGKILL");
    await child;
    await until(() => sleeps(secs).length === 0 && processesMatching(secs).length === 0, `no process with "${secs}" in its command line`);
  });

  it("SIGHUP while a command runs: one line, exit 130, nothing left, and the thread takes the next run", async () => {
    const sb = e2e.sandbox();
    const secs = uniqueSecs();
    e2e.server.push({ toolCalls: [{ id: "leave", name: "bash", args: { command: leaveBehind(secs), timeout: 600 } }] }, { content: "never" });
    const child = sb.spawn(["run", ...approveUnconfined(mode), "--output-format", "json", "leave things running"], { env: envFor(mode, sb) });
    await until(() => sleeps(secs).length >= 4, "the command's four sleeps to run");
    child.kill("SIGHUP");
    const r = await child;
    expect(r.exitCode).toBe(130);
    // After the progress lines, one line says what happened and how to go on.
    const last = String(r.stderr).trim().split("\n").at(-1)!;
    expect(last).toMatch(/^deerflow: Run \S+ on thread (\S+) was interrupted\. Continue with `deerflow run --thread \S+ "…"`\.$/);
    expect(String(r.stderr).match(/interrupted/g), String(r.stderr)).toHaveLength(1);
    const thread = /on thread (\S+) was interrupted/.exec(last)![1]!;
    await until(() => processesMatching(secs).length === 0, `no process with "${secs}" in its command line`);
    e2e.server.setScript([]);
    e2e.server.push({ content: "continued" });
    const next = await sb.run(["run", "--thread", thread, "go on"], { env: envFor(mode, sb) });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).toBe("continued\n");
  });

  it("kill -9 with a background job running: the job and what it left are gone", async () => {
    const sb = e2e.sandbox();
    const secs = uniqueSecs();
    e2e.server.push(
      { toolCalls: [{ id: "bg", name: "bash", args: { command: `setsid sleep ${secs} & sleep ${secs}`, run_in_background: true } }] },
      { toolCalls: [{ id: "fg", name: "bash", args: { command: `sleep ${Number(secs) + 1}`, timeout: 600 } }] },
      { content: "never" },
    );
    const child = sb.spawn(["run", "--yes", ...unconfinedFlag(mode), "start a server"], { env: envFor(mode, sb) });
    await until(() => sleeps(secs).length >= 2 && sleeps(String(Number(secs) + 1)).length >= 1, "the job's sleeps and the next command to run");
    child.kill("SIGKILL");
    await child;
    await until(() => processesMatching(secs).length === 0 && sleeps(String(Number(secs) + 1)).length === 0, `no process with "${secs}" in its command line`);
  });
});

describe("an interrupted run without bubblewrap, with a leftover that escapes the group and the token", () => {
  // `setsid env -i` leaves the process group and clears the environment token; only bubblewrap's PID namespace would
  // catch it. It still holds the command's output open: deerflow must not wait for it (it did, for the command's
  // whole timeout, after saying "was interrupted").
  it("SIGTERM: exit 130 at once, and the leftover holding the output is gone", async () => {
    const sb = e2e.sandbox();
    const secs = uniqueSecs();
    e2e.server.push({ toolCalls: [{ id: "esc", name: "bash", args: { command: `setsid env -i sleep ${secs} &\necho started\nsleep ${secs}`, timeout: 600 } }] }, { content: "never" });
    const child = sb.spawn(["run", ...approveUnconfined("fallback"), "escape the sweep"], { env: { PATH: pathWithoutBwrap(sb) } });
    try {
      await until(() => sleeps(secs).length >= 2, "the leftover and the foreground sleep to run");
      child.kill("SIGTERM");
      // A bound, not an order: before the fix deerflow waited out the command's 600 s timeout here.
      const r = await Promise.race([child, new Promise<undefined>((res) => setTimeout(res, WAIT_MS))]);
      expect(r, "deerflow to exit after SIGTERM").toBeDefined();
      expect(r!.exitCode, String(r!.stderr)).toBe(130);
      expect(String(r!.stderr).trim().split("\n").at(-1)).toMatch(/was interrupted\./);
      await until(() => sleeps(secs).length === 0, `the leftover "sleep ${secs}" holding the output to be gone`);
    } finally {
      child.kill("SIGKILL");
      for (const pid of processesMatching(`sleep\u0000${secs}`)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone
        }
      }
    }
  });
});

describe("without bubblewrap, a leftover that leaves the group, clears the token and lets go of the output", () => {
  // The twenty-fourth pass's A24-8: `env -u DEERFLOW_SHELL_RUN setsid -f …` and bash's `exec -c` escaped the group,
  // the token and the output pipe, and outlived deerflow. The watchdog is their subreaper now.
  const escapes = (secs: string) => [
    `env -u DEERFLOW_SHELL_RUN setsid -f sleep ${secs} >/dev/null 2>&1 </dev/null`,
    `(exec -c setsid -f sleep ${secs} >/dev/null 2>&1 </dev/null)`,
    `setsid -f env -i sleep ${secs} >/dev/null 2>&1 </dev/null`,
  ];
  it("is gone once its command ends, and after deerflow is killed with SIGKILL", async () => {
    const sb = e2e.sandbox();
    const ended = uniqueSecs();
    const killed = uniqueSecs();
    e2e.server.push(
      { toolCalls: [{ id: "end", name: "bash", args: { command: escapes(ended).join("\n") } }] },
      { toolCalls: [{ id: "run", name: "bash", args: { command: [...escapes(killed), "echo started", `sleep ${killed}`].join("\n"), timeout: 600 } }] },
      { content: "never" },
    );
    const child = sb.spawn(["run", ...approveUnconfined("fallback"), "escape the sweep"], { env: { PATH: pathWithoutBwrap(sb) } });
    try {
      await until(() => sleeps(killed).length >= 4, "the second command's leftovers and its foreground sleep to run");
      // The first command has ended: what it left is gone already.
      expect(sleeps(ended)).toEqual([]);
      child.kill("SIGKILL");
      await child.catch(() => undefined);
      await until(() => sleeps(killed).length === 0, `no "sleep ${killed}" left after kill -9`);
    } finally {
      child.kill("SIGKILL");
      for (const pid of [...sleeps(ended), ...sleeps(killed)]) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone
        }
      }
    }
  });
});

describe("an unconfined MCP server's setsid grandchild", () => {
  const server = (secs: string) => ({ command: "bash", args: ["-c", `setsid sleep ${secs} & exec "${process.execPath}" "${FIXTURE}" --tools 1`] });

  it("is gone after the run ends, and after deerflow is killed with SIGKILL", async () => {
    const sb = e2e.sandbox();
    const clean = uniqueSecs();
    writeRc(sb, { kids: server(clean) });
    e2e.server.push({ toolCalls: [{ id: "t", name: "mcp__kids__fixture_0", args: { text: "hi" } }] }, { content: "done" });
    const r = await sb.run(["run", "call it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    await until(() => sleeps(clean).length === 0, `the grandchild "sleep ${clean}" to be gone after the run`);

    const killed = uniqueSecs();
    writeRc(sb, { kids: server(killed) });
    e2e.server.push({ hang: true });
    const child = sb.spawn(["run", "hang"]);
    await until(() => sleeps(killed).length === 1 && e2e.server.requests.length >= 2, "the server's grandchild and the model call");
    child.kill("SIGKILL");
    await child;
    await until(() => processesMatching(killed).length === 0, `no process with "${killed}" in its command line`);
  });
});

// SIGUSR1 opens Node's inspector, through which a command on the host ran code inside deerflow and left a process
// outside the watchdog (`node inspect -p <pid>`: the twenty-eighth pass's A28-12). deerflow ignores the signal.
describe("SIGUSR1 sent to deerflow", () => {
  it("opens no inspector, and the run goes on to its answer", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ toolCalls: [{ id: "w", name: "bash", args: { command: "touch started; while [ ! -e go ]; do sleep 0.05; done; echo waited" } }] }, { content: "finished" });
    const child = sb.spawn(["run", "--yes", "-w", sb.cwd, "wait for go"]);
    await until(() => existsSync(join(sb.cwd, "started")), "the command to start");
    process.kill(child.pid!, "SIGUSR1");
    // Without the listener, Node prints "Debugger listening" within milliseconds of the signal; a second is ample.
    await new Promise((r) => setTimeout(r, 1_000));
    writeFileSync(join(sb.cwd, "go"), "");
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe("finished\n");
    expect(String(r.stderr)).not.toMatch(/Debugger listening|inspector/i);
  });
});
