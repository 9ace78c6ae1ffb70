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

  it("the user's own bit stays; a bit the run sets on a file it deletes is cleared too, so the file it writes back later shows (A36b-7)", async () => {
    const { ws, sh, git } = setUp(mode);
    git("update-index", "--assume-unchanged", "local.env");
    writeFileSync(join(ws, "local.env"), "A=2\n");
    const out = await sh("git update-index --skip-worktree package.json && rm package.json; echo done");
    expect(out).toContain("done");
    expect(out).toMatch(/cleared the assume-unchanged or skip-worktree bit a command set on package\.json/);
    await sh(`printf '{"scripts":{"test":"touch PWN"}}\\n' > package.json`);
    // The user's bit on local.env (h) is theirs; package.json's change shows.
    expect(git("ls-files", "-v")).toBe("H app.js\nH docs/guide.md\nh local.env\nH package.json\n");
    expect(git("status", "--short")).toBe(" M package.json\n");
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

  it("an index entry forged to carry the edited file's data and the committed blob is reset: git status shows the edit (A36b-6)", async () => {
    const { ws, sh, git } = setUp(mode);
    // git add the edit (the entry gets the file's data), then write the committed blob's id into that entry.
    writeFileSync(join(ws, "forge.py"), FORGE);
    const out = await sh(
      [
        `printf '{"scripts":{"test":"touch PWN"}}\\n' > package.json && touch -d '2 hours ago' package.json`,
        "git add package.json && python3 forge.py package.json && rm forge.py",
        "git status --short; echo done",
      ].join("\n"),
    );
    expect(out).toContain("done");
    expect(out).toMatch(/reset the index entries of package\.json: they recorded the data of a file with other content/);
    expect(git("status", "--short")).toBe(" M package.json\n");
    expect(git("diff", "--stat")).toContain("package.json");
  }, 60_000);
});

/** Writes HEAD's blob id of a path into its index entry, keeping the entry's file data, and fixes the checksum. */
const FORGE = `import hashlib,subprocess,sys
name=sys.argv[1]
old=subprocess.check_output(['git','rev-parse','HEAD:'+name]).strip().decode()
d=bytearray(open('.git/index','rb').read())
n=int.from_bytes(d[8:12],'big'); off=12
for i in range(n):
    nl=int.from_bytes(d[off+60:off+62],'big')&0xfff
    if d[off+62:off+62+nl].decode()==name: d[off+40:off+60]=bytes.fromhex(old)
    off+=((62+nl+8)//8)*8
d[-20:]=hashlib.sha1(bytes(d[:-20])).digest()
open('.git/index','wb').write(bytes(d))
`;
