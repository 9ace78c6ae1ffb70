// The git guards judge a git dir's entries by what git does with them, not by their names (the thirty-sixth pass):
// a link named like one deerflow moved aside, a reflog folder beside a planted HEAD or under a branch named
// `objects/ab/…`, a replace ref named `<hex>.deerflow-removed` or one folder down, a folder of 100 000 files before a
// link, a skip-worktree bit in a nested checkout, a FIFO where a nested checkout's index belongs. Real bwrap (and the
// same commands unconfined), real git on the host, in-process through runShell.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitDirWalkLimits } from "../../src/sandbox/git-dir-links.js";
import { closeShellSessions, runShell, setShellWarningSink } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP, type Mode, pathWithout, isLink } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;
const hostEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function setUp(mode: Mode) {
  const root = makeRoot("deerflow-gitnames-");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8", env: hostEnv, stdio: ["ignore", "pipe", "pipe"] });
  writeFileSync(join(ws, "README.md"), "hi\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", ".");
  git(ws, "commit", "-q", "-m", "init");
  if (mode === "fallback") process.env.PATH = pathWithout(join(root, "nobwrap-bin"), ["bwrap"]);
  const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
  const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
  // A host file outside the workspace, and a host folder with the user's files.
  const victim = join(root, "victim-bashrc");
  writeFileSync(victim, "# mine\n");
  const documents = join(root, "Documents");
  mkdirSync(documents);
  writeFileSync(join(documents, "thesis.tex"), "x\n");
  return { root, ws, sh, git, victim, documents };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

describe.each(modes)("git dir entries judged by what git does with them (%s)", (mode) => {
  it("a link in worktrees/ named like a moved-aside one is removed: the user's worktree prune cannot empty the folder it leads to (A36a-8)", async () => {
    const { ws, sh, git, documents } = setUp(mode);
    const out = await sh(`mkdir -p .git/worktrees && ln -s ${documents} .git/worktrees/build-cache.deerflow-removed; echo ok`);
    expect(out).toContain("deerflow removed the link");
    expect(isLink(join(ws, ".git", "worktrees", "build-cache.deerflow-removed"))).toBe(false);
    git(ws, "worktree", "prune");
    expect(readdirSync(documents)).toEqual(["thesis.tex"]);
  });

  it("reflog links under a folder beside a planted HEAD (branch hooks/deploy) or under a branch objects/ab/… are removed (A36a-9)", async () => {
    const { ws, sh, git, victim } = setUp(mode);
    const out = await sh(
      [
        "git branch hooks/deploy && git branch objects/ab/deploy && : > .git/logs/refs/heads/HEAD",
        `for b in hooks/deploy objects/ab/deploy; do rm -f .git/logs/refs/heads/$b && ln -s ${victim} .git/logs/refs/heads/$b; done`,
        "echo ok",
      ].join("\n"),
    );
    expect(out).toContain("ok");
    for (const b of ["hooks/deploy", "objects/ab/deploy"]) {
      expect(isLink(join(ws, ".git", "logs", "refs", "heads", b)), b).toBe(false);
      git(ws, "checkout", "-q", b);
      git(ws, "commit", "-q", "--allow-empty", "-m", "wip");
    }
    expect(readFileSync(victim, "utf8")).toBe("# mine\n");
  });

  it("a replace ref named <hex>.deerflow-removed or one folder down is removed: git log shows what git push sends (A36a-10)", async () => {
    const { ws, sh, git } = setUp(mode);
    const out = await sh(
      [
        "M=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'evil: add backdoor' HEAD^{tree})",
        "H=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'docs: typo' HEAD^{tree})",
        "git update-ref refs/heads/main $M && mkdir -p .git/refs/replace/x",
        "echo $H > .git/refs/replace/$M.deerflow-removed && echo $H > .git/refs/replace/x/$M",
        "echo ok",
      ].join("\n"),
    );
    expect(out).toContain("ok");
    expect(git(ws, "log", "--format=%s", "-1")).toBe("evil: add backdoor\n");
  });

  it("info/exclude and info/attributes a command writes are put back or moved aside: git status shows the planted file, git diff the edit (A36b-8)", async () => {
    const { ws, sh, git } = setUp(mode);
    const exclude = readFileSync(join(ws, ".git", "info", "exclude"), "utf8");
    const out = await sh(
      "echo 'node-options=--require ./hook.js' > .npmrc && printf '.npmrc\\n' >> .git/info/exclude && echo 'README.md -diff' > .git/info/attributes && echo changed >> README.md; echo ok",
    );
    expect(out).toContain("ok");
    expect(readFileSync(join(ws, ".git", "info", "exclude"), "utf8")).toBe(exclude);
    expect(existsSync(join(ws, ".git", "info", "attributes"))).toBe(false);
    expect(git(ws, "status", "--short")).toBe(" M README.md\n?? .npmrc\n");
    expect(git(ws, "diff")).toContain("+changed");
  });

  it("an objects/info/alternates a command writes is moved aside: the user's gc keeps the history in .git (A37a-1)", async () => {
    const { ws, sh, git } = setUp(mode);
    const out = await sh("mkdir -p node_modules/.cache/objs && cp -r .git/objects/. node_modules/.cache/objs/ && echo ../../node_modules/.cache/objs > .git/objects/info/alternates; echo ok");
    expect(out).toContain("ok");
    expect(out).toMatch(/objects\/info\/alternates/);
    expect(existsSync(join(ws, ".git", "objects", "info", "alternates"))).toBe(false);
    // The user's gc, then the folder gone (npm ci, git clean -fdx): the history is whole.
    git(ws, "gc", "-q");
    execFileSync("rm", ["-rf", join(ws, "node_modules")]);
    expect(git(ws, "fsck", "--no-progress")).toBe("");
    expect(git(ws, "log", "--format=%s").trim().split("\n").length).toBeGreaterThan(0);
  });

  it("a folder of more entries than the link walk reads hides no link beside them, and the user hears the walk stopped (A36a-5)", async () => {
    const { ws, sh, victim } = setUp(mode);
    const warned: string[] = [];
    setShellWarningSink((m) => warned.push(m));
    gitDirWalkLimits.entries = 40;
    try {
      const out = await sh(`cd .git/logs && for i in $(seq 1 60); do : > junk$i; done && cd ../.. && rm -f .git/logs/HEAD && ln -s ${victim} .git/logs/HEAD; echo ok`);
      expect(out).toContain("ok");
      expect(isLink(join(ws, ".git", "logs", "HEAD"))).toBe(false);
      expect(warned.join("\n")).toMatch(/stopped looking for links in \S+\.git after 40 entries/);
    } finally {
      gitDirWalkLimits.entries = 100_000;
      setShellWarningSink((m) => process.stderr.write(`warning: ${m}\n`));
    }
  });

  it("a skip-worktree bit a command sets in a nested checkout's index is cleared too (A36a-6)", async () => {
    const { ws, sh, git } = setUp(mode);
    const lib = join(ws, "lib");
    mkdirSync(lib);
    writeFileSync(join(lib, "package.json"), '{"scripts":{"test":"node t.js"}}\n');
    git(lib, "init", "-q", "-b", "main");
    git(lib, "add", ".");
    git(lib, "commit", "-q", "-m", "lib");
    const out = await sh(`cd lib && git update-index --skip-worktree package.json && printf '{"scripts":{"test":"touch PWN"}}\\n' > package.json; echo ok`);
    expect(out).toContain("cleared the assume-unchanged or skip-worktree bit a command set on package.json");
    expect(git(lib, "status", "--short")).toBe(" M package.json\n");
  });

  it("a skip-worktree bit a command sets in a submodule's index (its git dir under .git/modules) is cleared too (A36b-9)", async () => {
    const { root, ws, sh, git } = setUp(mode);
    const upstream = join(root, "upstream");
    mkdirSync(upstream);
    writeFileSync(join(upstream, "index.js"), "console.log(1)\n");
    git(upstream, "init", "-q", "-b", "main");
    git(upstream, "add", ".");
    git(upstream, "commit", "-q", "-m", "lib");
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "lib");
    git(ws, "commit", "-q", "-m", "sub");
    const out = await sh(`cd lib && git update-index --skip-worktree index.js && echo 'console.log("hidden")' > index.js; echo ok`);
    expect(out).toContain("cleared the assume-unchanged or skip-worktree bit a command set on index.js");
    expect(git(join(ws, "lib"), "status", "--short")).toBe(" M index.js\n");
  });

  it("a FIFO where a nested checkout's index belongs is said unreadable at once, not waited on (A36a-7)", async () => {
    const { ws, sh, git } = setUp(mode);
    git(ws, "init", "-q", "r1");
    git(join(ws, "r1"), "commit", "-q", "--allow-empty", "-m", "x");
    git(ws, "add", "r1");
    git(ws, "commit", "-q", "-m", "sub");
    // Before: git's open of the FIFO waited for its 10 s limit, twice (both object formats), per check.
    const out = await sh("rm r1/.git/index && mkfifo r1/.git/index; echo ok");
    expect(out).toContain("ok");
    expect(out).toMatch(/could not read the index of \S+r1/);
    expect(existsSync(join(ws, "r1", ".git", "index"))).toBe(true);
  }, 15_000);
});
