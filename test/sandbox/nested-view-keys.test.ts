// Config keys that hide a planted file or an edit from the user's `git status`, set in a repository inside the
// workspace: the same hiding through that repository's `.git/info/exclude` was put back, through
// `status.showUntrackedFiles`, `core.excludesFile` or `core.attributesFile` it stayed (adversarial pass 42, A42b-1).
// Real bwrap (and the same commands unconfined), real git on the host, in-process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions } from "../../src/sandbox/run-shell.js";
import { HAS_BWRAP, type Mode } from "../support/confinement.js";
import { gitWorkspace } from "../support/git-workspace.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;
afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

describe.each(modes)("keys that hide changes in a nested repository (%s)", (mode) => {
  it("status.showUntrackedFiles, core.excludesFile and core.attributesFile a command sets are taken out, and git status shows the plant", async () => {
    const { ws, sh, git } = gitWorkspace("deerflow-viewkeys-", mode);
    const nested = join(ws, "nested");
    git(ws, "init", "-q", "nested");
    git(nested, "commit", "-q", "--allow-empty", "-m", "n");
    git(ws, "add", "nested");
    git(ws, "commit", "-q", "-m", "gitlink");
    // A setting the user had before the run is theirs, and stays.
    git(nested, "config", "status.submoduleSummary", "true");
    await sh("echo start"); // the run's first command notes the start
    const out = await sh(
      'cd nested && git config status.showUntrackedFiles no && printf \'*\\n\' > .hide && git config core.excludesFile "$PWD/.hide" && git config core.attributesFile "$PWD/.hide" && echo evil > planted.sh && echo done',
    );
    expect(out).toContain("done");
    expect(out).toMatch(/deerflow removed .*status\.showuntrackedfiles.* from .*nested\/\.git\/config: a repository your git status enters would hide a file or a change from your git status/);
    const config = readFileSync(join(nested, ".git", "config"), "utf8").toLowerCase();
    for (const key of ["showuntrackedfiles", "excludesfile", "attributesfile"]) expect(config, key).not.toContain(key);
    expect(config).toContain("submodulesummary");
    expect(git(nested, "status", "--short")).toContain("planted.sh");
  });
});
