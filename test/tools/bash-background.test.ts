// The bash tool's process life cycle in the sandbox session: leftovers of a command go when it ends (even while
// another command is still running), explicit background jobs stay, log to outputs/, and are killed on request or
// when the session closes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import { closeShellSessions } from "../../src/sandbox/run-shell.js";
import { createBashJobsTool } from "../../src/tools/bash-jobs.js";
import { createBashTool } from "../../src/tools/bash.js";
import { processesMatching } from "../support/processes.js";
import { makeRoot, makeThread } from "./helpers.js";
import { until } from "../support/wait.js";

const root = makeRoot("deerflow-bg-");
const mounts = makeThread(root, "T");
const rt = (extra: Record<string, unknown> = {}) => ({ state: { thread_data: mounts, ...extra }, configurable: { thread_id: "T", deerflow_home: root }, toolCallId: "call_1" }) as never;
afterAll(() => closeShellSessions());

describe("bash process life cycle", () => {
  const bash = createBashTool();

  it("a command that leaves a process holding its output returns while another command still runs; the leftover is gone", async () => {
    const m = `deerflow-holder-${process.pid}-${Date.now()}`;
    let slowDone = false;
    const slow = bash.invoke({ command: `while [ ! -e stop-${process.pid} ]; do sleep 0.05; done; echo slow` }, rt()).then((r) => {
      slowDone = true;
      return r;
    });
    const quick = await bash.invoke({ command: `setsid bash -c "exec -a ${m} sleep 300" & echo quick` }, rt());
    expect(quick).toBe("quick");
    // Ordering by events: the quick command came back while the slow one was still waiting for its stop file.
    expect(slowDone).toBe(false);
    await until(() => processesMatching(m).length === 0, "the leftover to be killed");
    await bash.invoke({ command: `touch stop-${process.pid}` }, rt());
    expect(await slow).toBe("slow");
  });

  it("run_in_background starts a job that outlives the call, logs to outputs/, is listed, and is killed on request", async () => {
    const m = `deerflow-bgjob-${process.pid}-${Date.now()}`;
    const started = await bash.invoke({ command: `echo serving; exec -a ${m} sleep 300`, run_in_background: true }, rt());
    expect(started).toBeInstanceOf(Command);
    const update = (started as unknown as Command).update as { background_tasks: Array<{ id: string; log: string }> };
    const job = update.background_tasks[0]!;
    expect(job.log).toMatch(/^\/mnt\/user-data\/outputs\/bg-[0-9a-f]+\.log$/);
    await until(() => processesMatching(m).length === 1, "the job to start");
    // Another command ends, and the sweep after it leaves the job alone.
    expect(await bash.invoke({ command: "echo other" }, rt())).toBe("other");
    expect(processesMatching(m)).toHaveLength(1);
    const logFile = join(mounts.outputs_path, job.log.split("/").pop()!);
    await until(() => existsSync(logFile) && readFileSync(logFile, "utf8").includes("serving"), "the log");

    const jobs = createBashJobsTool();
    const state = { background_tasks: update.background_tasks };
    expect(await jobs.invoke({}, rt(state))).toMatch(new RegExp(`${job.id} +running`));
    expect(await jobs.invoke({ kill: job.id }, rt(state))).toBe(`Killed background job ${job.id}.`);
    await until(() => processesMatching(m).length === 0, "the job to die");
    expect(await jobs.invoke({}, rt(state))).toMatch(new RegExp(`${job.id} +killed`));
  });

  it("closing the session ends every background job", async () => {
    const m = `deerflow-bgclose-${process.pid}-${Date.now()}`;
    await bash.invoke({ command: `exec -a ${m} sleep 300`, run_in_background: true }, rt());
    await until(() => processesMatching(m).length === 1, "the job to start");
    await closeShellSessions();
    await until(() => processesMatching(m).length === 0, "the job to end with the session");
  });
});
