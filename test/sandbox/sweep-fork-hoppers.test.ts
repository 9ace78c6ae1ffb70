// The sandbox supervisor's clean-up against leftovers that keep re-forking (adversarial pass 41, A41c-6 and A41c-7):
// sixty processes, each in its own process group, hop from pid to pid as soon as the command's leader exits. The
// clean-up must end every one of them before the command's end is reported, as it does for plain `&` and setsid.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeShellSessions, startBackground } from "../../src/sandbox/run-shell.js";
import { createBashTool } from "../../src/tools/bash.js";
import { killAllMatching, runningProcessesMatching } from "../support/processes.js";
import { makeRoot, makeThread } from "../tools/helpers.js";
import { until } from "../support/wait.js";

const root = makeRoot("deerflow-sweep-");
const mounts = makeThread(root, "T");
const rt = () => ({ state: { thread_data: mounts }, configurable: { thread_id: "T", deerflow_home: root }, toolCallId: "call_1" }) as never;
// Not a part of the sandbox's own paths (its bwrap's command line holds the root's name).
const m = `deerflow-hopper-${process.pid}`;
afterAll(async () => {
  killAllMatching(m);
  await closeShellSessions();
});

describe("the supervisor's clean-up against fork-hopping leftovers", () => {
  const bash = createBashTool();
  beforeAll(async () => {
    copyFileSync(join(import.meta.dirname, "../fixtures/hostile/fork-hopper.c"), join(mounts.workspace_path, "hop.c"));
    expect(await bash.invoke({ command: `gcc -O2 -o ${m} hop.c && echo built` }, rt())).toBe("built");
  });

  it("a foreground command's hoppers (own process groups, output elsewhere) are all gone when it returns", async () => {
    // Three times: the race is the clean-up's to win every time, not most of the time.
    for (let round = 0; round < 3; round++) {
      expect(await bash.invoke({ command: `./${m} 60` }, rt())).toBe("leader exits");
      // By events: the end is reported after the clean-up, so whatever can still run now outran it (a hopper it
      // killed may take a moment to go on a busy machine).
      expect(runningProcessesMatching(m), `round ${round}`).toEqual([]);
    }
  });

  it("a killed background job's hoppers are all gone when its end is reported", async () => {
    const log = join(mounts.outputs_path, "hop.log");
    let end: () => void = () => undefined;
    const ended = new Promise<void>((r) => (end = r));
    const job = await startBackground(`./${m} 60; exec sleep 300`, { paths: mounts, cwd: mounts.workspace_path, logPath: log, onEnd: () => end() });
    // The leader has exited: its children hop (kept while the job lives, as the job's own session).
    await until(() => existsSync(log) && readFileSync(log, "utf8").includes("leader exits"), "the hoppers to start");
    job.kill();
    await ended;
    expect(runningProcessesMatching(m)).toEqual([]);
  });
});
