// A rebase or cherry-pick in progress that the run leaves in the workspace's git dir (the forty-first pass's A41b-2):
// a script wrote `.git/rebase-merge/` with an `exec` line, and the user's `git rebase --continue` ran it on the host;
// `--abort` reset the branch to the commit the script named and lost an uncommitted edit. At the end of the run one
// the run started, or one of the user's it gave new exec lines, is moved aside; the user's own is left alone. Real
// bwrap (and the same commands unconfined), real git on the host, in-process.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, setShellWarningSink } from "../../src/sandbox/run-shell.js";
import { HAS_BWRAP, type Mode } from "../support/confinement.js";
import { gitWorkspace } from "../support/git-workspace.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;
const said: string[] = [];
setShellWarningSink((m) => said.push(m));

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
  said.length = 0;
});

/** A script that plants an interactive rebase whose todo runs `marker`'s command, with orig-head one commit back. */
const plant = (marker: string) =>
  [
    "d=.git/rebase-merge && mkdir -p $d",
    "git rev-parse HEAD~1 > $d/orig-head && git rev-parse HEAD > $d/onto",
    "echo refs/heads/main > $d/head-name && echo 1 > $d/msgnum && echo 1 > $d/end && : > $d/interactive",
    `printf 'exec echo PWNED >> ${marker}\\n' > $d/git-rebase-todo`,
    "echo planted",
  ].join("\n");

describe.each(modes)("an operation in progress the run leaves in git (%s)", (mode) => {
  it("a planted rebase is moved aside at the end: the user's --continue runs nothing, --abort loses nothing", async () => {
    const { root, ws, sh, git } = gitWorkspace("deerflow-opstate-", mode);
    writeFileSync(join(ws, "f.txt"), "v1\n");
    git(ws, "add", "f.txt");
    git(ws, "commit", "-qm", "c2");
    const marker = join(root, "pwned");
    writeFileSync(join(ws, "setup.sh"), plant(marker));
    expect(await sh("sh setup.sh")).toContain("planted");
    writeFileSync(join(ws, "f.txt"), "the user's uncommitted edit\n");
    await closeShellSessions();

    expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(false);
    expect(readdirSync(join(ws, ".git")).some((n) => n.startsWith("rebase-merge.deerflow-removed"))).toBe(true);
    expect(said.join("\n")).toMatch(/deerflow moved .*rebase-merge to .*: the run left an operation in progress there, and your git rebase --continue would run/);
    expect(() => git(ws, "rebase", "--continue")).toThrow(/No rebase in progress/);
    expect(() => git(ws, "rebase", "--abort")).toThrow(/No rebase in progress/);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("the user's uncommitted edit\n");
    expect(git(ws, "log", "--format=%s", "-1")).toBe("c2\n");
  });

  it("the user's own rebase stays; once the run adds an exec line to it, it is moved aside", async () => {
    const { ws, sh, git } = gitWorkspace("deerflow-opstate-", mode);
    writeFileSync(join(ws, "f.txt"), "base\n");
    git(ws, "add", "f.txt");
    git(ws, "commit", "-qm", "base");
    git(ws, "switch", "-qc", "topic");
    writeFileSync(join(ws, "f.txt"), "topic\n");
    git(ws, "commit", "-qam", "topic");
    git(ws, "switch", "-q", "main");
    writeFileSync(join(ws, "f.txt"), "main\n");
    git(ws, "commit", "-qam", "main");
    // The user's rebase stops at a conflict: theirs, in progress when the run starts.
    expect(() => git(ws, "rebase", "main", "topic")).toThrow();
    expect(await sh("git status | head -3")).toContain("rebase");
    await closeShellSessions();
    expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(true);
    expect(said.join("\n")).not.toContain("rebase-merge");

    // A later run appends an exec line to its todo.
    expect(await sh("echo 'exec touch ../pwned' >> .git/rebase-merge/git-rebase-todo && echo added")).toContain("added");
    await closeShellSessions();
    expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(false);
    expect(said.join("\n")).toMatch(/the run changed the operation in progress there.*Your branch topic is as it was; if HEAD is detached, git switch topic\./);
  });
});
