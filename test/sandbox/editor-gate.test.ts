// The editor's file operations over ACP and sandboxed processes never overlap (run-shell.ts whileSandboxIdle): the
// editor opens a path itself after deerflow checked it, and a sandboxed job swapping a folder for a link in between
// wrote a home file through the editor (the fifteenth pass's A4). Real bwrap, in-process; ordering by events.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, runShell, startBackground, whileSandboxIdle } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { processesMatching } from "../support/processes.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

afterEach(() => closeShellSessions());

describe.skipIf(!HAS_BWRAP)("the editor's file operations and the sandbox", () => {
  it("no editor operation while a background job runs; a command waits for the editor operation in flight", async () => {
    const root = makeRoot("deerflow-editor-gate-");
    const paths = makeThread(root, "A");
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const req = { paths, settings, cwd: paths.workspace_path };

    const job = await startBackground("sleep 60", { ...req, logPath: join(paths.outputs_path!, "bg.log"), onEnd: () => undefined });
    expect(await whileSandboxIdle("read", async () => "editor")).toBeUndefined();
    job.kill();
    // The job's end reaches the session; then the editor may act again.
    for (let i = 0; i < 200 && (await whileSandboxIdle("read", async () => "editor")) === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await whileSandboxIdle("read", async () => "editor")).toEqual({ value: "editor" });

    const order: string[] = [];
    let finish!: () => void;
    const editor = whileSandboxIdle("write", () => new Promise<void>((r) => (finish = r)).then(() => void order.push("editor done")));
    const command = runShell("echo ran", { ...req, timeoutSeconds: 30 }).then((r) => void order.push(`command: ${r.output.trim()}`));
    // The command is held while the editor's operation is in flight; it runs once the operation ends.
    await new Promise((r) => setTimeout(r, 300));
    expect(order).toEqual([]);
    finish();
    await Promise.all([editor, command]);
    expect(order).toEqual(["editor done", "command: ran"]);
  }, 60_000);

  it("a process a job left behind ends with the job, before its end is told: the editor may act at once", async () => {
    const root = makeRoot("deerflow-editor-gate-");
    const paths = makeThread(root, "A");
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const req = { paths, settings, cwd: paths.workspace_path };
    const mark = `deerflow-editor-gate-${process.pid}-${Date.now()}`;
    // The job exits at once; its setsid'd child would live on in the sandbox, unknown to the supervisor's list of jobs.
    const ended = new Promise<void>((resolve) => {
      void startBackground(`setsid bash -c 'exec -a ${mark} sleep 60' >/dev/null 2>&1 </dev/null & echo started`, {
        ...req,
        logPath: join(paths.outputs_path!, "bg.log"),
        onEnd: () => resolve(),
      });
    });
    await ended;
    expect(processesMatching(mark)).toEqual([]);
    expect(await whileSandboxIdle("write", async () => "editor")).toEqual({ value: "editor" });
  }, 60_000);
});
