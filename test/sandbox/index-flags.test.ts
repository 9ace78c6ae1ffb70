// Index bits that make the user's git look away (assume-unchanged, skip-worktree), set by a command on a file it
// edits: cleared after the command, said, so `git status` and `git diff` show the edit (the thirty-third pass's A33a-5:
// a hidden package.json test script ran at the user's `npm test`). The user's own bits and a sparse checkout's stay.
// Real bwrap (and the same commands unconfined), real git, in-process through runShell.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, runShell, setShellWarningSink } from "../../src/sandbox/run-shell.js";
import { defaultShellSettings } from "../../src/sandbox/shell-settings.js";
import { HAS_BWRAP, type Mode, pathWithout } from "../support/confinement.js";
import { makeRoot, makeThread } from "../tools/helpers.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;

function setUp(mode: Mode) {
  const root = makeRoot("deerflow-index-flags-");
  const paths = makeThread(root, "A");
  const ws = paths.workspace_path;
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: ws, encoding: "utf8" });
  git("init", "-q");
  writeFileSync(join(ws, "package.json"), '{"scripts":{"test":"node test.js"}}\n');
  writeFileSync(join(ws, "app.js"), "console.log(1)\n");
  writeFileSync(join(ws, "local.env"), "A=1\n");
  mkdirSync(join(ws, "docs"));
  writeFileSync(join(ws, "docs", "guide.md"), "# guide\n");
  git("add", ".");
  git("commit", "-q", "-m", "init");
  if (mode === "fallback") process.env.PATH = pathWithout(join(root, "nobwrap-bin"), ["bwrap"]);
  const settings = defaultShellSettings({ userHome: join(root, "home"), dataDir: join(root, "data") });
  const sh = async (command: string) => (await runShell(command, { paths, settings, cwd: ws, timeoutSeconds: 60 })).output;
  return { ws, sh, git };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

describe.each(modes)("index bits that hide an edit (%s)", (mode) => {
  it("a skip-worktree or assume-unchanged bit a command sets on a file it edits is cleared, and said: git status shows the edit", async () => {
    const { ws, sh, git } = setUp(mode);
    const out = await sh(
      `git update-index --skip-worktree package.json && printf '{"scripts":{"test":"touch $HOME/PWN; node test.js"}}\\n' > package.json; git update-index --assume-unchanged app.js && echo 'console.log(2)' > app.js; echo done`,
    );
    expect(out).toContain("done");
    expect(out).toMatch(/cleared the assume-unchanged or skip-worktree bit a command set on (app\.js, package\.json|package\.json, app\.js) in the index/);
    expect(git("status", "--short")).toBe(" M app.js\n M package.json\n");
    expect(git("diff", "--stat")).toContain("package.json");
    expect(git("ls-files", "-v")).toBe("H app.js\nH docs/guide.md\nH local.env\nH package.json\n");
    expect(readFileSync(join(ws, "package.json"), "utf8")).toContain("PWN");
  }, 60_000);

  it("the user's own bit stays, and a file a sparse checkout leaves out keeps its bit (it is not in the worktree)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("update-index", "--assume-unchanged", "local.env");
    writeFileSync(join(ws, "local.env"), "A=2\n");
    // What a sparse checkout does to a file outside its cone (its config, read-only in the sandbox, aside): the bit,
    // and the file gone from the worktree.
    const out = await sh("git update-index --skip-worktree docs/guide.md && rm -r docs; echo done");
    expect(out).toContain("done");
    expect(out).not.toMatch(/cleared/);
    // docs/ left the worktree with its bit (S); the user's bit on local.env (h) is theirs.
    expect(git("ls-files", "-v")).toBe("H app.js\nS docs/guide.md\nh local.env\nH package.json\n");
    expect(git("status", "--short")).toBe("");
  }, 60_000);

  it("an index.lock a command leaves keeps the bit only until the run ends: said at once, then the lock is moved aside and the bit cleared (A36a-3)", async () => {
    const { sh, git } = setUp(mode);
    const out = await sh(`git update-index --skip-worktree package.json && printf '{"scripts":{"test":"touch PWN"}}\\n' > package.json && : > .git/index.lock; echo done`);
    expect(out).toContain("done");
    expect(out).toMatch(/could not clear the assume-unchanged or skip-worktree bit a command set on package\.json \(the index is locked/);
    const warned: string[] = [];
    setShellWarningSink((m) => warned.push(m));
    try {
      await closeShellSessions();
    } finally {
      setShellWarningSink((m) => process.stderr.write(`warning: ${m}\n`));
    }
    expect(warned.join("\n")).toMatch(/moved \S+index\.lock to \S+index\.lock\.deerflow-removed: a command left it/);
    expect(warned.join("\n")).toContain("cleared the assume-unchanged or skip-worktree bit a command set on package.json");
    expect(git("status", "--short")).toBe(" M package.json\n");
  }, 60_000);
});
