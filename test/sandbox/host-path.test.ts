// A repository's own programs never stand in for the system's (the twelfth adversarial pass): with `.` or
// `./node_modules/.bin` on the user's PATH, a shipped `ls` ran unasked and a shipped `bwrap` made deerflow believe it
// was confined. (The supervisor's sweep, run on the host by such a fake, SIGKILLed every process it could; its guard —
// pid 2 of its own namespace, supervisor-source.ts — has no test here: a regression would kill the test machine.)
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostPath } from "../../src/sandbox/env-scrub.js";
import { findBwrap } from "../../src/sandbox/run-shell.js";

describe("the PATH commands and the sandbox are found on", () => {
  it("drops relative and empty entries and folders inside the project", () => {
    expect(hostPath("./node_modules/.bin:/usr/local/bin:.::/usr/bin:/p/x/bin:/p/xy", "/p/x")).toBe("/usr/local/bin:/usr/bin:/p/xy");
    expect(hostPath("/usr/bin:/bin:", "/")).toBe("/usr/bin:/bin");
  });

  it("never takes a bwrap from a relative PATH entry", () => {
    const dir = mkdtempSync(join(tmpdir(), "df-fake-bwrap-"));
    const marker = join(dir, "ran");
    writeFileSync(join(dir, "bwrap"), `#!/bin/sh\necho ran > ${marker}\nexit 0\n`);
    chmodSync(join(dir, "bwrap"), 0o755);
    const relative = join("..", "..", "..", "..", "..", "..", "..", "..", dir); // from any cwd, a relative spelling
    expect(findBwrap(`${relative}:/nonexistent`)).toBeNull();
  });
});
