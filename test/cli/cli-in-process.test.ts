// The in-process CLI harness (test/support/cli-in-process.ts) that most CLI tests use: it must see only the sandbox
// (the test process's env does not leak in), read stdin as a child would, and leave the process as it found it.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";

const open: Sandbox[] = [];
const sandbox = (modelUrl?: string) => {
  const sb = makeSandbox(modelUrl);
  open.push(sb);
  return sb;
};
afterEach(() => {
  for (const sb of open.splice(0)) sb.cleanup();
});

describe("runCli", () => {
  it("prints, exits and restores as a process would: stdout captured, exit code returned, env, cwd and exitCode put back", async () => {
    const sb = sandbox();
    // Every listener on the process, by event: one left per call (SIGUSR1 was) adds up over a worker's hundreds of
    // calls until Node warns on some later test's stderr.
    const listeners = () => Object.fromEntries(process.eventNames().map((e) => [String(e), process.listenerCount(e)]));
    const before = { cwd: process.cwd(), home: process.env.HOME, exitCode: process.exitCode, errorListeners: process.stdout.listenerCount("error"), listeners: listeners() };
    const r = await runCli(sb, ["--version"]);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(r).toEqual({ exitCode: 0, stdout: `${pkg.version}\n`, stderr: "" });
    const bad = await runCli(sb, ["run", "--no-such-flag"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--no-such-flag'/);
    expect({ cwd: process.cwd(), home: process.env.HOME, exitCode: process.exitCode, errorListeners: process.stdout.listenerCount("error"), listeners: listeners() }).toEqual(before);
  });

  it("the test process's env does not reach the CLI; the call's env and stdin do", async () => {
    const leaked = process.env.DEERFLOW_MODEL;
    process.env.DEERFLOW_MODEL = "leaked-from-the-test-process";
    try {
      const sb = sandbox();
      const none = await runCli(sb, ["run", "hi"]);
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toMatch(/No model configured/);
    } finally {
      if (leaked === undefined) delete process.env.DEERFLOW_MODEL;
      else process.env.DEERFLOW_MODEL = leaked;
    }
    // A model set for the call; stdin holds only blanks: read to its end (not the test runner's stdin), then refused.
    const sb = sandbox("http://127.0.0.1:9/v1");
    const blank = await runCli(sb, ["run"], { input: "  \n" });
    expect(blank.exitCode).toBe(2);
    expect(blank.stderr).toMatch(/No prompt given/);
  });

  it("refuses a second call while one runs (overlapping runs need separate processes)", async () => {
    const sb = sandbox();
    const first = runCli(sb, ["--version"]);
    await expect(runCli(sb, ["--version"])).rejects.toThrow(/another in-process CLI call is running/);
    expect((await first).exitCode).toBe(0);
  });
});
