// The sandbox has an IPC namespace of its own: a command cannot list, read or overwrite the host's System V shared
// memory (the fortieth pass's A40b-4 listed and overwrote a segment, and saw PostgreSQL's). Real bwrap, in-process.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

afterEach(async () => {
  await closeShellSessions();
});

describe.runIf(HAS_BWRAP)("the sandbox's IPC namespace", () => {
  it("a host shared-memory segment is not listed inside, and cannot be attached", async () => {
    const id = execFileSync("ipcmk", ["-M", "4096"], { encoding: "utf8" }).match(/(\d+)\s*$/)?.[1];
    expect(id).toBeDefined();
    try {
      const root = makeRoot("deerflow-ipc-");
      const paths = makeThread(root, "A");
      const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
      const out = (await runShell("ipcs -m; echo end", { paths, settings, cwd: paths.workspace_path, timeoutSeconds: 60 })).output;
      expect(out).toContain("end");
      expect(out.split(/\s+/)).not.toContain(id);
      // The same listing on the host shows it: the test would prove nothing otherwise.
      expect(execFileSync("ipcs", ["-m"], { encoding: "utf8" }).split(/\s+/)).toContain(id);
    } finally {
      execFileSync("ipcrm", ["-m", id!]);
    }
  });
});
