// What a command leaves in the sandbox must not outlive it, and the host does not take the sandbox's word for it
// (adversarial pass 42): a process whose main thread exited reads as a zombie in /proc and was skipped by every
// clean-up (A42c-2); a job made the supervisor say it had ended (A42c-3 attached with ptrace; writing to the
// supervisor's output through /proc/2/fd/1 does the same) and the host stopped looking, while it planted git code
// for the rest of the run. Real bwrap, real processes, real git, in-process.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sweepWhileJob } from "../../src/sandbox/background-guard-sweep.js";
import { killByToken, newRunToken, RUN_TOKEN_VAR } from "../../src/sandbox/host-watchdog.js";
import { closeShellSessions, findBwrap, setShellWarningSink, startBackground } from "../../src/sandbox/run-shell.js";
import { ShellSession } from "../../src/sandbox/shell-session.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { gitWorkspace } from "../support/git-workspace.js";
import { killAllMatching, runningProcessesMatching } from "../support/processes.js";
import { until } from "../support/wait.js";

const said: string[] = [];
setShellWarningSink((m) => said.push(m));
// Not a part of any sandbox path (a bwrap's command line holds the thread root's name).
const m = `deerflow-leader-exits-${process.pid}`;
const fixture = join(import.meta.dirname, "../fixtures/hostile/leader-exits.c");

const savedPath = process.env.PATH;
afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});
afterAll(() => killAllMatching(m));

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const fsmonitorIn = (ws: string, repo: string) => {
  try {
    return readFileSync(join(ws, repo, ".git", "config"), "utf8").includes("fsmonitor");
  } catch {
    return false;
  }
};

describe.skipIf(!HAS_BWRAP)("leftovers in the sandbox", () => {
  const { ws, sh, paths, settings } = gitWorkspace("deerflow-leftovers-", "bwrap");
  beforeAll(async () => {
    copyFileSync(fixture, join(ws, "le.c"));
    expect(await sh(`gcc -O2 -pthread -o ${m} le.c && echo built`)).toBe("built\n");
  });

  it("a process whose main thread exited (it reads as a zombie) is gone when its command returns (A42c-2)", async () => {
    for (let round = 0; round < 2; round++) {
      expect(await sh(`./${m}`)).toBe("leader exits\n");
      expect(runningProcessesMatching(m), `round ${round}`).toEqual([]);
    }
  });

  // Where this kernel lets a process attach to another of the same user (no Yama, or its classic scope), on x86-64.
  const canAttach = process.arch === "x64" && !/^[123]/.test(readOr("/proc/sys/kernel/yama/ptrace_scope"));
  // Commands run in a user namespace of their own where one can be made; root without capabilities (bubblewrap as root)
  // cannot map its uid 0 into one, so there a command shares the supervisor's.
  const ownNamespace = process.getuid?.() !== 0;

  it.runIf(canAttach && ownNamespace)("a command cannot attach to the supervisor (A42c-3)", async () => {
    copyFileSync(join(import.meta.dirname, "../fixtures/hostile/forge-end.c"), join(ws, "forge.c"));
    expect(await sh("gcc -O2 -o forge forge.c && ./forge; echo rc=$?")).toMatch(/attach: Operation not permitted\nrc=1/);
  });

  it.runIf(canAttach)("a job the supervisor is made to call ended, that then plants git code, is ended by the host all the same (A42c-3)", async () => {
    await sh("git init -q lib && echo ready");
    const plant = "while [ ! -e go ]; do sleep 0.05; done; while :; do printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> lib/.git/config; sleep 0.05; done";
    let ended: () => void = () => undefined;
    const told = new Promise<void>((r) => (ended = r));
    await startBackground(`exec -a ${m}-job bash -c "${plant}"`, { paths, settings, cwd: ws, logPath: join(paths.outputs_path, "forged.log"), onEnd: () => ended() });
    // The supervisor made to lie, here from the host (a command could where it shares the supervisor's namespace).
    const forge = join(paths.outputs_path, "forge");
    execFileSync("gcc", ["-O2", "-o", forge, join(import.meta.dirname, "../fixtures/hostile/forge-end.c")]);
    expect(execFileSync(forge, [String(supervisorPid())], { encoding: "utf8" })).toBe("forged\n");
    await told; // the forged end: the job runs on
    expect(runningProcessesMatching(`${m}-job`)).toHaveLength(1);
    writeFileSync(join(ws, "go"), "");
    // The host looks itself: the job is ended with its sandbox, and what it planted is taken out.
    await until(() => runningProcessesMatching(`${m}-job`).length === 0, "the job to be ended by the host");
    await until(() => !fsmonitorIn(ws, "lib"), "the planted fsmonitor to be taken out");
    // Said to the user as soon as the check that ended it yields.
    await until(() => /deerflow (ended the shell sandbox|stopped every background job)/.test(said.join("\n")), "the user to be told");
    expect(await sh("echo next")).toContain("next");
  });

  it("a plant found just as a sandbox is ended from the host is laid on that sandbox, not on one running beside it", async () => {
    // CI saw the stopped job's last write (its processes outlive bwrap's end by a little) found by the next sweep, and
    // the next command's new sandbox ended for it: "The shell sandbox could not start: deerflow ended the sandbox".
    await sh("git init -q lib2 && echo ready");
    const plant = () => writeFileSync(join(ws, "lib2/.git/config"), "[core]\n\tfsmonitor = touch pwned\n", { flag: "a" });
    const waitFile = (f: string) => `while [ ! -e ${f} ]; do sleep 0.05; done`;
    const beside = sh(`${waitFile("go2")}; echo beside`);
    const after = sh(`${waitFile("go3")}; echo after`); // keeps the sweeps going once `beside` has returned
    const job = sweepWhileJob(); // the sweeps run from here
    const dying = new ShellSession(paths, settings, findBwrap()!);
    expect(await dying.startedOrLostPath()).toBe(true);
    // All at once: the sandbox is ended from the host, what it wrote last is there, and the guards look (a job ends).
    dying.terminate("the test ended it");
    plant();
    job.ended();
    expect(fsmonitorIn(ws, "lib2")).toBe(false); // repaired
    writeFileSync(join(ws, "go2"), "");
    const besideOut = await beside;
    expect(besideOut).toMatch(/^beside\n/);
    expect(besideOut).not.toContain("ended the sandbox");
    // With no sandbox ended since the sweep before, a plant found beside a command the host tracks as no job ends
    // that command's sandbox. Planted again after each repair: the first sweeps may still see the end above.
    let out: string | undefined;
    void after.then((o) => (out = o));
    await until(() => {
      if (!fsmonitorIn(ws, "lib2")) plant();
      return out !== undefined;
    }, "the sandbox beside the plant to be ended");
    expect(out).toMatch(/deerflow ended the sandbox: deerflow stopped every background job/);
  });
});

/** The host pid of this process's one sandbox supervisor (pid 2 inside). */
function supervisorPid(): number {
  // bwrap's own command line holds the loader too: the supervisor is the one that is pid 2 in its namespace.
  const isSupervisor = (p: string) => readOr(`/proc/${p}/cmdline`).includes("process.env.DEERFLOW_SUPERVISOR") && /^NSpid:.*\s2$/m.test(readOr(`/proc/${p}/status`));
  const mine = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && isSupervisor(p));
  const below = mine.filter((p) => {
    for (let q = Number(p), n = 0; q > 1 && n < 64; n++) {
      if (q === process.pid) return true;
      q = Number(/^PPid:\s*(\d+)/m.exec(readOr(`/proc/${q}/status`))?.[1] ?? 0);
    }
    return false;
  });
  expect(below).toHaveLength(1);
  return Number(below[0]);
}

describe.skipIf(!HAS_BWRAP)("the PATH of the sandbox's commands", () => {
  it("a host PATH folder the sandbox lacks is left out: a command cannot make it and have its bash run the next commands (A43b-1)", async () => {
    // On the host's PATH and on the host (as fnm's /run/user/<uid>/fnm_multishells/…/bin), but under /tmp, which the
    // sandbox has fresh and writable.
    const missing = join(tmpdir(), `deerflow-missing-path-${process.pid}`, "bin");
    mkdirSync(missing, { recursive: true });
    process.env.PATH = `${missing}:${savedPath}`;
    const { sh } = gitWorkspace("deerflow-leftovers-path-", "bwrap");
    const plant = `mkdir -p ${missing} && for p in bash unshare; do printf '#!/bin/sh\\necho PLANTED >&2\\nexec /usr/bin/$p "$@"\\n' > ${missing}/$p; chmod +x ${missing}/$p; done; echo "$PATH"`;
    expect(await sh(plant)).not.toContain(missing);
    const next = await sh("echo second");
    expect(next).toBe("second\n");
  });
});

describe("the token sweep of a command run on the host", () => {
  it("kills a process whose main thread exited, though its own environ reads empty (A42c-2)", async () => {
    const { ws, sh } = gitWorkspace("deerflow-leftovers-token-", "fallback");
    copyFileSync(fixture, join(ws, "le.c"));
    expect(await sh(`gcc -O2 -pthread -o ${m}-t le.c && echo built`)).toContain("built");
    const token = newRunToken();
    const child = spawn(join(ws, `${m}-t`), [], { env: { ...process.env, [RUN_TOKEN_VAR]: token }, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((r) => child.on("exit", r));
    expect(out).toBe("leader exits\n");
    expect(runningProcessesMatching(`${m}-t`)).toHaveLength(1);
    killByToken(token);
    await until(() => runningProcessesMatching(`${m}-t`).length === 0, "the leftover to be killed");
  });
});
