// Folders a run makes enterable but unreadable (chmod 0311) or read-only (0555) no longer hide what it plants from the
// git guards (the thirty-fifth pass's A35a-2 to A35a-8): git reaches a file inside by name, the guards' listing failed
// and said nothing. The guards give the user's own folder its rights back, with a line, and act as usual. Root lists
// any folder, so deerflow runs here as an ordinary user (setpriv to nobody) through the built CLI: the process's user
// is what is tested. Real bwrap, real git on the host.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN } from "../support/cli.js";
import { isLink } from "../support/confinement.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const NOBODY = 65534;
/**
 * The command line that runs `argv` as an ordinary user: as nobody when the suite runs as root (CI does; root would
 * list any folder and prove nothing), as the suite's own user otherwise. Never skipped: an ordinary user is what
 * every finding here depends on.
 */
const AS_ROOT = process.getuid?.() === 0;
const asUser = (argv: string[]): [string, string[]] => (AS_ROOT ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", ...argv]] : [argv[0]!, argv.slice(1)]);

function chownTree(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p);
    else chownSync(p, NOBODY, NOBODY);
  }
}

const hook = (path: string, mark: string) => `printf '#!/bin/sh\\ntouch ${mark}\\n' > ${path} && chmod +x ${path}`;

describe("folders a run makes unreadable (deerflow as an ordinary user)", () => {
  it("hide nothing from the git guards: hooks, links, remotes and code keys inside are repaired, the rights given back and said", async () => {
    const sb = e2e.sandbox();
    const root = dirname(sb.userHome);
    const ws = sb.cwd;
    const mark = join(root, "pwned");
    const victim = join(root, "victim-bashrc");
    writeFileSync(victim, "# the user's own\n");
    // Another repository of the user's, whose pack folder the run points the workspace's objects/pack at.
    const other = join(root, "other");
    const git = (cwd: string, ...args: string[]) =>
      execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "-c", "commit.gpgsign=false", ...args], {
        cwd,
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
    mkdirSync(other);
    git(other, "init", "-q", "-b", "main");
    git(other, "commit", "-q", "--allow-empty", "-m", "theirs");
    git(other, "gc", "-q");
    git(ws, "init", "-q", "-b", "main");
    writeFileSync(join(ws, "app.js"), "console.log(1)\n");
    // A nested repository the index records (a gitlink): the user's git status enters it.
    mkdirSync(join(ws, "pkgs", "lib"), { recursive: true });
    git(join(ws, "pkgs", "lib"), "init", "-q", "-b", "main");
    git(join(ws, "pkgs", "lib"), "commit", "-q", "--allow-empty", "-m", "lib");
    git(ws, "add", ".");
    git(ws, "commit", "-q", "-m", "init");
    const packs = join(other, ".git", "objects", "pack");
    const packsBefore = readdirSync(packs).sort();
    const script = [
      // A35a-2: a bare repository in an unreadable folder
      `mkdir srv && git init -q --bare srv/deploy.git && ${hook("srv/deploy.git/hooks/post-receive", mark)} && chmod 0311 srv`,
      // A35a-3: a submodule's git dir planted under an unreadable .git/modules/<name>
      `git init -q --bare .git/modules/vendor/lib && ${hook(".git/modules/vendor/lib/hooks/post-checkout", mark)} && chmod 0311 .git/modules/vendor`,
      // A35a-4: a reflog link to a host file in an unreadable logs/
      `rm -f .git/logs/HEAD && ln -s ${victim} .git/logs/HEAD && chmod 0311 .git/logs`,
      // A35a-5: a nested repository's hook in an unreadable hooks folder
      `git init -q lib && ${hook("lib/.git/hooks/pre-commit", mark)} && chmod 0311 lib/.git/hooks`,
      // A35a-6: objects/pack a link to another repository's packs, in an unreadable objects/
      `rm -rf .git/objects/pack && ln -s ${packs} .git/objects/pack && chmod 0311 .git/objects`,
      // A35a-7: a code key in a gitlinked repository whose .git is read-only
      `git -C pkgs/lib config core.fsmonitor 'touch ${mark}; false' && chmod 0555 pkgs/lib/.git`,
      // A35a-8: a legacy remote in an unreadable remotes/
      "mkdir -p .git/remotes && printf 'URL: /srv/sink.git\\n' > .git/remotes/deploy && chmod 0311 .git/remotes",
      // A36a-2: a folder that lists but cannot be entered (0600) with a link in it: every look inside threw, and
      // deerflow crashed before the other guards ran
      "mkdir .git/x && ln -s /nonexistent .git/x/l && chmod 0600 .git/x",
      "echo planted",
    ].join("\n");
    if (AS_ROOT) chownTree(root);
    e2e.server.push(
      { toolCalls: [{ id: "w", name: "write_file", args: { path: "mk.sh", content: `${script}\n` } }] },
      { toolCalls: [{ id: "b", name: "bash", args: { command: "sh mk.sh; rm mk.sh" } }] },
      { content: "Deploy with `git push srv/deploy.git main`." },
    );
    const r = await execa(...asUser([process.execPath, BIN, "run", "--yes", "go"]), {
      cwd: ws,
      // A code cache nobody can write to (the suite's is root's) would only cost time: one of its own.
      env: { ...sb.env, DEERFLOW_CACHE_DIR: join(root, "cache") },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const said = `${r.stdout}\n${r.stderr}\n${JSON.stringify(e2e.server.requests.at(-1))}`;
    expect(said).toContain("planted");
    expect(said).toMatch(/gave you back the rights on \S+\/srv:/);

    // Each planted thing is gone from where git would find it.
    expect(existsSync(join(ws, "srv", "deploy.git", "hooks", "post-receive"))).toBe(false);
    expect(existsSync(join(ws, "srv", "deploy.git", "hooks", "post-receive.deerflow-removed"))).toBe(true);
    expect(existsSync(join(ws, ".git", "modules", "vendor", "lib", "hooks", "post-checkout"))).toBe(false);
    expect(isLink(join(ws, ".git", "logs", "HEAD"))).toBe(false);
    expect(existsSync(join(ws, "lib", ".git", "hooks", "pre-commit"))).toBe(false);
    expect(isLink(join(ws, ".git", "objects", "pack"))).toBe(false);
    expect(readFileSync(join(ws, "pkgs", "lib", ".git", "config"), "utf8")).not.toContain("fsmonitor");
    expect(existsSync(join(ws, ".git", "remotes", "deploy"))).toBe(false);
    expect(isLink(join(ws, ".git", "x", "l"))).toBe(false);
    // …and the folders are the owner's to read again.
    for (const d of ["srv", ".git/modules/vendor", ".git/logs", "lib/.git/hooks", ".git/objects", ".git/remotes", ".git/x"]) {
      expect(statSync(join(ws, d)).mode & 0o700, d).toBe(0o700);
    }

    // The user's own git afterwards, as that user: a commit, a push to the bare repository, a status through the gitlink.
    const userGit = (...args: string[]) =>
      execFileSync(...asUser(["git", "-c", "user.name=u", "-c", "user.email=u@x", ...args]), {
        cwd: ws,
        env: { PATH: process.env.PATH, HOME: sb.userHome, GIT_CONFIG_NOSYSTEM: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
    userGit("commit", "-q", "--allow-empty", "-m", "wip");
    userGit("push", "-q", join(ws, "srv", "deploy.git"), "main");
    userGit("status", "--short");
    expect(existsSync(mark)).toBe(false);
    expect(readFileSync(victim, "utf8")).toBe("# the user's own\n");
    expect(readdirSync(packs).sort()).toEqual(packsBefore);
  }, 180_000);
});
