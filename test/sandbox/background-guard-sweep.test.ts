// A background job that re-plants git code in a loop gets one window, once: the first sweep that repairs anything
// stops every background job and refuses new ones for the rest of the run (the thirty-ninth pass's A39-4/A39-5: a
// looping job won the race against the per-second sweep some of the time). The sweep also runs while a long
// foreground command does (`sleep` beside the job had kept it away). Ordinary jobs are left alone. Real bwrap (and the
// same commands unconfined), real git on the host, in-process.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { backgroundRefusal, endSweeps, stopJobsFor, sweepWhileJob } from "../../src/sandbox/background-guard-sweep.js";
import { closeShellSessions, setShellWarningSink, startBackground } from "../../src/sandbox/run-shell.js";
import { HAS_BWRAP, type Mode } from "../support/confinement.js";
import { killAllMatching, processesMatching, runningProcessesMatching } from "../support/processes.js";
import { gitWorkspace } from "../support/git-workspace.js";
import { until } from "../support/wait.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;
const said: string[] = [];
setShellWarningSink((m) => said.push(m));

function setUp(mode: Mode) {
  const { root, paths, ws, settings, git, sh } = gitWorkspace("deerflow-sweep-", mode);
  /** Starts a job; `ended` resolves with its exit code once it ends (killed or not). */
  const bg = async (command: string) => {
    let end: (code: number | undefined) => void = () => undefined;
    const ended = new Promise<number | undefined>((r) => (end = r));
    await startBackground(command, { paths, settings, cwd: ws, logPath: join(paths.outputs_path, `bg-${Math.random()}.log`), onEnd: (code) => end(code) });
    return { ended };
  };
  return { root, ws, sh, bg, git };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

/**
 * Plants core.fsmonitor in `lib`, then marks it, in a loop: with shell builtins only, so a stop cannot fall between the
 * plant and its mark (a stop after a `git config` and before a `touch` left no mark, and the test waiting for it hung).
 */
const PLANT_LOOP = "while :; do printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> lib/.git/config; : > planted; sleep 0.05; done";

const fsmonitorIn = (ws: string, repo: string) => {
  try {
    return readFileSync(join(ws, repo, ".git", "config"), "utf8").includes("fsmonitor");
  } catch {
    return false;
  }
};

describe.each(modes)("background jobs against the guard sweep (%s)", (mode) => {
  it("a job re-planting core.fsmonitor in a loop is stopped at the first repair, and no other job starts in that run (A39-4, A39-5)", async () => {
    const { ws, sh, bg } = setUp(mode);
    await sh("git init -q lib && echo ready");
    const job = await bg(PLANT_LOOP);
    await until(() => existsSync(join(ws, "planted")), "the job to plant");
    await job.ended; // stopped by the sweep, not by the run's end
    await until(() => !fsmonitorIn(ws, "lib"), "the planted fsmonitor to be taken out");
    await expect(bg("sleep 300")).rejects.toThrow(/background jobs are off for the rest of this chat or run/);
    const out = await sh("echo next");
    expect(out).toContain("deerflow stopped every background job and will start no other in this chat or run");
    expect(fsmonitorIn(ws, "lib")).toBe(false);
    // A new chat or run starts jobs again.
    await closeShellSessions();
    const again = await bg("touch started-again; sleep 300");
    await until(() => existsSync(join(ws, "started-again")), "a job of the next run to start");
    await closeShellSessions();
    await again.ended;
  });

  it("what a stopped job started in a session of its own (setsid) stops with it, with no other command run", async () => {
    const { ws, sh, bg } = setUp(mode);
    const mark = `deerflow-sweep-orphan-${mode}-${process.pid}-${Date.now()}`;
    await sh("git init -q lib && echo ready");
    writeFileSync(join(ws, "loop.sh"), `${PLANT_LOOP}\n`);
    const job = await bg(`setsid bash -c 'exec -a ${mark} bash loop.sh' & sleep 300`);
    await until(() => existsSync(join(ws, "planted")), "the job to plant");
    await job.ended;
    try {
      await until(() => processesMatching(mark).length === 0, "the job's setsid loop to be gone");
    } finally {
      killAllMatching(mark);
    }
    await until(() => !fsmonitorIn(ws, "lib"), "the planted fsmonitor to be taken out");
  });

  it.runIf(mode === "bwrap")("a job that stopped the sandbox's supervisor (kill -STOP 2) is stopped all the same (A40c-3)", async () => {
    const { ws, sh, bg } = setUp(mode);
    const mark = `deerflow-sweep-stopped-supervisor-${process.pid}-${Date.now()}`;
    await sh("git init -q lib && echo ready");
    writeFileSync(join(ws, "loop.sh"), `${PLANT_LOOP}\n`);
    const job = await bg(`kill -STOP 2; exec -a ${mark} bash loop.sh`);
    await until(() => existsSync(join(ws, "planted")), "the job to plant");
    await job.ended;
    try {
      await until(() => processesMatching(mark).length === 0, "the planting loop to be gone");
    } finally {
      killAllMatching(mark);
    }
    await until(() => !fsmonitorIn(ws, "lib"), "the planted fsmonitor to be taken out");
    // The next command gets a sandbox of its own.
    expect(await sh("echo again")).toContain("again");
  });

  it.runIf(mode === "bwrap")("a job that stopped the supervisor is ended with its sandbox at the stop, and what it planted after it is repaired with no other command run (A41c-1)", async () => {
    const { ws, sh, bg } = setUp(mode);
    const mark = `deerflow-sweep-late-plants-${process.pid}-${Date.now()}`;
    await sh("git init -q lib && echo ready");
    // Plants once, waits for the repair (the stop), then makes a new repository with a planted fsmonitor every 0.2 s.
    const script = [
      "kill -STOP 2",
      "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> lib/.git/config",
      "while grep -q fsmonitor lib/.git/config; do sleep 0.05; done",
      "k=0; while :; do k=$((k+1)); git init -q late$k; printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> late$k/.git/config; : > planted-late; sleep 0.2; done",
    ].join("\n");
    writeFileSync(join(ws, "late.sh"), `${script}\n`);
    const job = await bg(`exec -a ${mark} bash late.sh`);
    // The stop ends the sandbox from the host at once: the job gets at most the moment the kill takes to plant more.
    await job.ended;
    try {
      expect(runningProcessesMatching(mark)).toEqual([]);
      const late = readdirSync(ws).filter((n) => n.startsWith("late") && n !== "late.sh");
      expect(late.filter((d) => fsmonitorIn(ws, d))).toEqual([]);
    } finally {
      killAllMatching(mark);
    }
  });

  it("the sweep runs while a long foreground command does: the plant is undone, and the job stopped with that command's sandbox (A42c-3)", async () => {
    const { ws, sh, bg } = setUp(mode);
    await sh("git init -q lib && echo ready");
    const job = await bg("while [ ! -e go ]; do sleep 0.05; done; git -C lib config core.fsmonitor 'touch pwned; false' && touch planted; sleep 300");
    // The foreground command lets the job plant, then runs until the test releases it: the job must end meanwhile.
    let foregroundEnded = false;
    const foreground = sh("touch go; while [ ! -e release ]; do sleep 0.05; done; echo released", 90).finally(() => {
      foregroundEnded = true;
    });
    await job.ended;
    expect(fsmonitorIn(ws, "lib")).toBe(false);
    // The user hears of the stop (A41c-8). The stop ends the job's whole sandbox from the host, the command beside it
    // too: nothing a supervisor says is waited for (a job can make it say it ended: A42c-3).
    await until(() => said.some((l) => l.startsWith("deerflow stopped every background job")), "the stop to be said");
    if (mode === "bwrap") {
      const out = await foreground;
      expect(out).not.toContain("released");
      expect(out).toContain("deerflow ended the sandbox: deerflow stopped every background job");
    } else {
      expect(foregroundEnded).toBe(false); // unconfined: there is no sandbox to end
      writeFileSync(join(ws, "release"), "");
      expect(await foreground).toContain("released");
    }
    expect(existsSync(join(ws, "pwned"))).toBe(false);
    expect(await sh("echo next")).toContain("next"); // a new sandbox
  });

  it("a job that plants and exits at once, beside a long foreground command, is looked at as it ends", async () => {
    const { ws, sh, bg } = setUp(mode);
    await sh("echo ready");
    const hook = join(ws, ".git", "modules", "vendor", "lib", "hooks", "post-checkout");
    const job = await bg(
      `while [ ! -e go ]; do sleep 0.05; done; git init -q --bare .git/modules/vendor/lib && printf '#!/bin/sh\\ntouch pwned\\n' > .git/modules/vendor/lib/hooks/post-checkout && chmod +x .git/modules/vendor/lib/hooks/post-checkout && touch planted`,
    );
    let foregroundEnded = false;
    const foreground = sh("touch go; while [ ! -e release ]; do sleep 0.05; done; echo released", 90).finally(() => {
      foregroundEnded = true;
    });
    await job.ended;
    await until(() => !existsSync(hook), "the planted hook to be moved aside");
    // Confined, the command beside it ends with its sandbox (the host cannot tell a job's real end from one its
    // process made the supervisor say); unconfined, it goes on.
    if (mode === "fallback") {
      expect(foregroundEnded).toBe(false);
      writeFileSync(join(ws, "release"), "");
      expect(await foreground).toContain("released");
    } else expect(await foreground).toContain("deerflow ended the sandbox");
    await expect(bg("sleep 300")).rejects.toThrow(/background jobs are off/);
  });

  it("an ordinary job (commits, a gc, a build writing files) goes on through the sweeps, and git's caches it wrote are kept (A40c-2)", async () => {
    const { ws, sh, bg, git } = setUp(mode);
    await sh("echo ready");
    // git gc writes a commit-graph and info/refs, multi-pack-index write its index: caches that verify, nothing planted.
    const job = await bg(
      "for i in 1 2 3; do echo $i > n.txt && git add n.txt && git -c user.name=a -c user.email=a@b commit -qm n$i && mkdir -p build && echo $i > build/out.js && sleep 1.2; done; git gc -q && git multi-pack-index write && sleep 1.2; touch done",
    );
    expect(await job.ended).toBe(0);
    expect(existsSync(join(ws, "done"))).toBe(true);
    expect(git(ws, "log", "--format=%s").split("\n")).toContain("n3");
    for (const cache of ["objects/info/commit-graph", "objects/pack/multi-pack-index", "info/refs"]) expect(existsSync(join(ws, ".git", cache)), cache).toBe(true);
    expect(readFileSync(join(ws, ".git", "objects", "info", "commit-graph")).length).toBeGreaterThan(0);
    const next = await bg("touch next; sleep 300");
    await until(() => existsSync(join(ws, "next")), "the next job to start");
    await closeShellSessions();
    await next.ended;
  });
});

describe.each(modes)("git's own files beside a job (%s)", (mode) => {
  it("a clone with submodules while a job runs: git's core.worktree in the module's git dir is kept, no repair, the job goes on (A41c-4)", async () => {
    const { ws, sh, bg, git } = setUp(mode);
    for (const r of ["up/libsrc", "up/main"]) {
      git(ws, "init", "-q", "-b", "main", r);
      writeFileSync(join(ws, r, "f.txt"), `${r}\n`);
      git(join(ws, r), "add", "f.txt");
      git(join(ws, r), "commit", "-qm", r);
    }
    git(join(ws, "up/main"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../libsrc", "lib");
    git(join(ws, "up/main"), "commit", "-qm", "lib");
    await sh("echo ready");
    const job = await bg("touch started; sleep 300");
    await until(() => existsSync(join(ws, "started")), "the job to start");
    const out = await sh("git -c protocol.file.allow=always clone -q --recurse-submodules up/main dep && echo cloned");
    expect(out).toBe("cloned\n");
    expect(readFileSync(join(ws, "dep", ".git", "modules", "lib", "config"), "utf8")).toMatch(/worktree = \.\.\/\.\.\/\.\.\/lib/);
    expect(git(join(ws, "dep", "lib"), "status", "--short")).toBe("");
    const next = await bg("touch next; sleep 300");
    await until(() => existsSync(join(ws, "next")), "a second job to start (none refused)");
    await closeShellSessions();
    await Promise.all([job.ended, next.ended]);
  });
});

describe("the stop's bookkeeping", () => {
  it("a job stopped before its start returned how to kill it is killed as soon as it does; a stopped job ending later changes nothing", () => {
    const early = sweepWhileJob();
    const known = sweepWhileJob();
    let knownKilled = 0;
    known.killWith(() => knownKilled++);
    expect(stopJobsFor(["deerflow removed core.fsmonitor from x."])).toMatch(/stopped every background job/);
    expect(knownKilled).toBe(1);
    let earlyKilled = 0;
    early.killWith(() => earlyKilled++);
    expect(earlyKilled).toBe(1);
    early.ended();
    known.ended();
    expect(backgroundRefusal()).toMatch(/\(deerflow removed core\.fsmonitor from x\)\. Run the command in the foreground\.$/);
    endSweeps();
    expect(backgroundRefusal()).toBeUndefined();
    // No job alive: a repair says nothing about jobs.
    expect(stopJobsFor(["a repair"])).toBeUndefined();
  });

  it("a rewind within the chat ends the sandbox but keeps the stop; the chat's end lifts it (A41c-10)", async () => {
    const job = sweepWhileJob();
    job.killWith(() => job.ended());
    expect(stopJobsFor(["deerflow removed core.fsmonitor from y."])).toMatch(/stopped every background job/);
    await closeShellSessions(true); // what /rewind … files does first (chat-session.ts)
    expect(backgroundRefusal()).toMatch(/background jobs are off for the rest of this chat or run/);
    await closeShellSessions();
    expect(backgroundRefusal()).toBeUndefined();
  });
});
