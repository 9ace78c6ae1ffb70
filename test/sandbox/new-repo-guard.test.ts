// A repository a command makes inside the workspace (or the workspace itself, when it had none) is no repository the
// sandbox could bind read-only at the start: code keys the run put in its config and hooks it wrote are taken out after
// the command, so the user's own git status / git commit there later runs nothing of the run's (the fourteenth pass's
// G5, G6). A legitimate `git init` keeps working. Real bwrap (and the same commands unconfined), real git, in-process.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, runShell } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { checkoutWalkLimits } from "../../src/sandbox/workspace-checkouts.js";
import { HAS_BWRAP, type Mode, pathWithout } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;

function setUp(mode: Mode, { repo }: { repo: boolean }) {
  const root = makeRoot("deerflow-newrepo-");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  writeFileSync(join(ws, "README.md"), "hi\n");
  // The user's host git: no global config of the test machine, so only the repository's config can run anything.
  const hostEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8", env: hostEnv });
  if (repo) {
    git(ws, "init", "-q");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "init");
  }
  if (mode === "fallback") process.env.PATH = pathWithout(join(root, "nobwrap-bin"), ["bwrap"]);
  const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
  const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
  const marker = join(root, "pwned");
  return { root, ws, sh, git, marker };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
  checkoutWalkLimits.entries = 200_000;
});

describe.each(modes)("repositories a run makes (%s)", (mode) => {
  it("a workspace with no .git: the run's `git init` with core.fsmonitor and a pre-commit hook (written by a script) loses both; the repository keeps working (G6)", async () => {
    const { ws, sh, git, marker } = setUp(mode, { repo: false });
    writeFileSync(
      join(ws, "init.sh"),
      `git init -q && git config core.fsmonitor 'echo FSMONITOR >> ${marker}; false' && printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit\n`,
    );
    const out = await sh("sh init.sh && echo made");
    expect(out).toContain("made");
    expect(out).toContain("deerflow removed core.fsmonitor from");
    expect(out).toContain("pre-commit.deerflow-removed");
    // The user's own git on the host, in the workspace: status and a commit run nothing the run planted.
    git(ws, "status", "--porcelain");
    git(ws, "add", "README.md");
    git(ws, "commit", "-q", "-m", "mine");
    expect(existsSync(marker)).toBe(false);
    expect(git(ws, "log", "--format=%s")).toContain("mine");
    // A later command re-planting the key is undone too (the config stays writable in the sandbox).
    const again = await sh(`git config core.pager 'echo PAGER >> ${marker}' && echo set`);
    expect(again).toContain("deerflow removed core.pager");
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).not.toMatch(/pager|fsmonitor/);
  });

  it("in a repository: an unregistered nested .git folder and a .git FILE pointing at a git dir the run made lose their code keys (G5)", async () => {
    const { ws, sh, git, marker } = setUp(mode, { repo: true });
    writeFileSync(
      join(ws, "setup.sh"),
      [
        "mkdir -p docs site .cache",
        `(cd docs && git init -q && git config core.fsmonitor 'echo NESTED >> ${marker}; false')`,
        "git init -q --bare .cache/site-git",
        "git --git-dir=.cache/site-git config core.bare false",
        `git --git-dir=.cache/site-git config core.fsmonitor 'echo GITLINK >> ${marker}; false'`,
        "echo 'gitdir: ../.cache/site-git' > site/.git",
        "echo done",
      ].join("\n"),
    );
    const out = await sh("sh setup.sh");
    expect(out).toContain("done");
    expect(out).toContain(join(ws, "docs", ".git", "config"));
    expect(out).toContain(join(ws, ".cache", "site-git", "config"));
    git(join(ws, "docs"), "status", "--porcelain");
    git(join(ws, "site"), "status", "--porcelain");
    expect(existsSync(marker)).toBe(false);
  });

  it("a repository the run made whose .git/hooks is a link to a folder elsewhere: the link is moved aside", async () => {
    const { root, ws, sh, git, marker } = setUp(mode, { repo: true });
    const elsewhere = join(root, "threads", "A", "outputs", "h"); // the thread's outputs: writable from the sandbox too
    const out = await sh(
      `mkdir -p ${elsewhere} && printf '#!/bin/sh\necho HOOK >> ${marker}\n' > ${elsewhere}/pre-commit && chmod +x ${elsewhere}/pre-commit && git init -q lib && rm -rf lib/.git/hooks && ln -s ${elsewhere} lib/.git/hooks && echo linked`,
    );
    expect(out).toContain("linked");
    expect(out).toContain(`${join(ws, "lib", ".git", "hooks")}.deerflow-removed`);
    writeFileSync(join(ws, "lib", "x.txt"), "x\n");
    git(join(ws, "lib"), "add", "x.txt");
    git(join(ws, "lib"), "commit", "-q", "-m", "x");
    expect(existsSync(marker)).toBe(false);
  });

  it("a nested repository the user had keeps its own code keys; a key the run adds to it is taken out", async () => {
    const { ws, sh, git } = setUp(mode, { repo: true });
    mkdirSync(join(ws, "vendor", "lib"), { recursive: true });
    git(join(ws, "vendor", "lib"), "init", "-q");
    git(join(ws, "vendor", "lib"), "config", "core.pager", "less");
    const out = await sh("git -C vendor/lib config alias.x '!touch ../../pwned' && echo set");
    expect(out).toContain("deerflow removed alias.x");
    const config = readFileSync(join(ws, "vendor", "lib", ".git", "config"), "utf8");
    expect(config).toContain("pager = less");
    expect(config).not.toContain("alias");
  });

  it("past the walk's budget it says so once instead of going quiet", async () => {
    const { ws, sh } = setUp(mode, { repo: true });
    for (let i = 0; i < 20; i++) mkdirSync(join(ws, `d${i}`));
    checkoutWalkLimits.entries = 5;
    const first = await sh("echo one");
    const second = await sh("echo two");
    expect(`${first}${second}`.match(/stopped looking for repositories made inside/g)).toHaveLength(1);
  });
});
