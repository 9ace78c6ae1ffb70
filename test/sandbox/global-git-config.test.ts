// The user's own global git config, when it lives in (or names by `~/`) a folder the sandbox can write — the workspace
// is their dotfiles repository, or `sandbox.readWrite` holds `~/.config` — stays out of reach of commands: the host's
// next `git` anywhere runs nothing planted (the fourteenth pass's G4). Real bwrap, real git, in-process via runShell.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxPathError } from "../../src/sandbox/paths.js";
import { closeShellSessions, runShell } from "../../src/sandbox/run-shell.js";
import { safeWriteFile } from "../../src/sandbox/safe-fs.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL };

/** A home whose `workspace` folder plays the user's dotfiles repository; another repository beside it. */
function setUp(gitconfig: string, readWrite: string[] = []) {
  const root = makeRoot("deerflow-globalgit-");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  const home = join(ws, "..");
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, "xdg");
  delete process.env.GIT_CONFIG_GLOBAL;
  writeFileSync(join(home, ".gitconfig"), gitconfig);
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8" });
  git(ws, "init", "-q");
  const other = join(root, "other");
  mkdirSync(other);
  git(other, "init", "-q");
  writeFileSync(join(other, "a.txt"), "a\n");
  git(other, "add", ".");
  const settings = defaultShellSettings({ userHome: join(root, "sandbox-home"), dataDir: join(root, "data"), readWrite });
  const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
  return { root, ws, home, paths, other, git, sh, marker: join(root, "pwned") };
}

afterEach(async () => {
  await closeShellSessions();
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const plant = (marker: string) => `printf '[core]\\n\\tfsmonitor = "echo PWNED >> ${marker}; false"\\n'`;

describe.skipIf(!HAS_BWRAP)("the user's global git config in a folder the sandbox can write (bwrap)", () => {
  it("`~/`-spelled includes into the workspace are read-only inside; the host's git in another repository runs nothing", async () => {
    const { ws, home, other, git, sh, marker } = setUp("[include]\n\tpath = ~/workspace/git/extra.inc\n");
    mkdirSync(join(ws, "git"));
    writeFileSync(join(ws, "git", "extra.inc"), "[color]\n\tui = auto\n");
    writeFileSync(join(ws, "gitconfig"), "[user]\n\tname = me\n");
    // A second include, of a file at the repository's top.
    writeFileSync(join(home, ".gitconfig"), "[include]\n\tpath = ~/workspace/git/extra.inc\n[include]\n\tpath = ~/workspace/gitconfig\n");
    const out = await sh(`${plant(marker)} >> git/extra.inc; ${plant(marker)} >> gitconfig; echo tried`);
    expect(out).toContain("tried");
    expect(readFileSync(join(ws, "git", "extra.inc"), "utf8")).not.toContain("fsmonitor");
    expect(readFileSync(join(ws, "gitconfig"), "utf8")).not.toContain("fsmonitor");
    git(other, "status", "--porcelain");
    expect(existsSync(marker)).toBe(false);
  });

  it("~/.gitconfig itself a link into the workspace is read-only inside", async () => {
    const { ws, home, other, git, sh, marker } = setUp("");
    writeFileSync(join(ws, "gitconfig"), "[user]\n\tname = me\n");
    execFileSync("rm", [join(home, ".gitconfig")]);
    symlinkSync(join(ws, "gitconfig"), join(home, ".gitconfig"));
    await sh(`${plant(marker)} >> gitconfig; true`);
    expect(readFileSync(join(ws, "gitconfig"), "utf8")).not.toContain("fsmonitor");
    git(other, "status", "--porcelain");
    expect(existsSync(marker)).toBe(false);
  });

  it("a `~/` core.hooksPath into the workspace: a hook written there never lands; the file tools refuse it too", async () => {
    const { ws, paths, other, git, sh, marker } = setUp("[core]\n\thooksPath = ~/workspace/hooks\n");
    const out = await sh(`mkdir -p hooks; printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > hooks/pre-commit; chmod +x hooks/pre-commit; echo tried`);
    expect(out).toContain("tried");
    expect(existsSync(join(ws, "hooks", "pre-commit"))).toBe(false);
    await expect(safeWriteFile(join(ws, "hooks", "pre-commit"), paths, "#!/bin/sh\n")).rejects.toThrow(SandboxPathError);
    git(other, "commit", "-q", "-m", "x");
    expect(existsSync(marker)).toBe(false);
  });

  it("in a sandbox.readWrite folder: the global config there is read-only, and a program the config names that a command creates is moved aside", async () => {
    const root0 = makeRoot("deerflow-globalgit-rw-");
    const xdg = join(root0, "xdg");
    mkdirSync(join(xdg, "git"), { recursive: true });
    const { home, other, git, sh, marker } = setUp("", [xdg]);
    // XDG_CONFIG_HOME (a readWrite folder here, like `~/.config`) holds the global config git reads besides ~/.gitconfig.
    process.env.XDG_CONFIG_HOME = xdg;
    writeFileSync(join(xdg, "git", "config"), `[core]\n\tpager = ${join(xdg, "bin", "pager")}\n`);
    writeFileSync(join(home, ".gitconfig"), "");
    const out = await sh(
      `${plant(marker)} >> ${xdg}/git/config; mkdir -p ${xdg}/bin && printf '#!/bin/sh\\necho PAGER >> ${marker}\\n' > ${xdg}/bin/pager && chmod +x ${xdg}/bin/pager; echo ok > ${xdg}/fine.txt; cat ${xdg}/fine.txt`,
    );
    expect(out).toContain("ok");
    expect(readFileSync(join(xdg, "git", "config"), "utf8")).not.toContain("fsmonitor");
    expect(out).toContain(`deerflow moved ${join(xdg, "bin", "pager")} to`);
    expect(existsSync(join(xdg, "bin", "pager"))).toBe(false);
    git(other, "status", "--porcelain");
    expect(existsSync(marker)).toBe(false);
  });
});
