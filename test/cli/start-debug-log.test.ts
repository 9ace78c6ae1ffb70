// startDebugLog refuses a log whose folder is a link in a folder sandboxed commands can write (the project it starts
// in): an earlier run's model swapped `logs` for a link to ~/.bashrc.d, and the next run's log, quoting its denied
// commands, landed there (the twenty-fourth pass's A24-2). In-process; the CLI's one-line contract is debug-flag.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDebugLog } from "../../src/cli/start-debug-log.js";
import { closeDebugLog } from "../../src/model/debug-log.js";

const cwd = process.cwd();
afterEach(() => {
  closeDebugLog();
  process.chdir(cwd);
});

describe("startDebugLog", () => {
  it("refuses a DEERFLOW_LOG reached through a link in the project, and writes nothing there", () => {
    const root = mkdtempSync(join(tmpdir(), "deerflow-start-log-"));
    const project = join(root, "p");
    const elsewhere = join(root, "home", ".bashrc.d");
    mkdirSync(project, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    symlinkSync(elsewhere, join(project, "logs"));
    process.chdir(project);
    const env = { HOME: join(root, "home"), DEERFLOW_HOME: join(root, "data"), DEERFLOW_LOG: "logs/df.log" };
    expect(() => startDebugLog({}, "run", "0.0.0", env)).toThrow(/Cannot write the debug log .*logs\/df\.log: it leads through .*logs \(a link to .*bashrc\.d\)/);
    expect(readdirSync(elsewhere)).toEqual([]);
    // A real folder there is fine.
    env.DEERFLOW_LOG = "real/df.log";
    expect(startDebugLog({}, "run", "0.0.0", env)).toBe(join(project, "real", "df.log"));
  });
});
