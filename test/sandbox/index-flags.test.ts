// Index bits that make the user's git look away (assume-unchanged, skip-worktree), set by a command on a file it
// edits: cleared after the command, said, so `git status` and `git diff` show the edit (the thirty-third pass's A33a-5:
// a hidden package.json test script ran at the user's `npm test`). The user's own bits and a sparse checkout's stay.
// Real bwrap (and the same commands unconfined), real git, in-process through runShell.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
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

  it("the same forgery done in two commands (an honest git add, then only the blob swapped) is reset too (A37c-2)", async () => {
    const { ws, sh, git } = setUp(mode);
    writeFileSync(join(ws, "forge.py"), FORGE);
    const first = await sh(`printf '{"scripts":{"test":"touch PWN"}}\\n' > package.json && touch -d '2 hours ago' package.json && git add package.json; echo one`);
    expect(first).toContain("one");
    const out = await sh("python3 forge.py package.json && rm forge.py; echo two");
    expect(out).toContain("two");
    expect(out).toMatch(/reset the index entries of package\.json/);
    expect(git("status", "--short")).toBe(" M package.json\n");
  }, 60_000);

  it("a symlink's entry forged to name the committed target while the link points elsewhere is reset (A37c-1)", async () => {
    const { ws, sh, git } = setUp(mode);
    mkdirSync(join(ws, "bin"));
    symlinkSync("../app.js", join(ws, "bin", "tool"));
    git("add", "bin/tool");
    git("commit", "-q", "-m", "link");
    writeFileSync(join(ws, "forge.py"), FORGE);
    const out = await sh("echo 'touch PWN' > evil.sh && ln -sfn ../evil.sh bin/tool && touch -h -d '2 hours ago' bin/tool && git add bin/tool && python3 forge.py bin/tool && rm forge.py; echo done");
    expect(out).toContain("done");
    expect(out).toMatch(/reset the index entries of bin\/tool/);
    expect(git("status", "--short")).toContain(" M bin/tool\n");
  }, 60_000);

  it("an entry git never adds (../.bashrc) in a linked worktree's index, outside the workspace or inside it, or in a nested repository's, moves that index aside (A37c-3, A37c-4)", async () => {
    const { ws, sh, git } = setUp(mode);
    const up = join(ws, "..");
    git("worktree", "add", "-q", join(up, "feature")); // the user's, before the run
    for (const f of [".bashrc", ".profile", ".zshrc"]) writeFileSync(join(up, f), "mine\n");
    writeFileSync(join(ws, "forge-path.py"), FORGE_PATH);
    const out = await sh(
      [
        "python3 forge-path.py .git/worktrees/feature/index ../.bashrc",
        "git worktree add -q wt && python3 forge-path.py .git/worktrees/wt/index ../../.zshrc",
        "git init -q nest && cd nest && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m n && python3 ../forge-path.py .git/index ../../.profile",
      ].join("\n"),
    );
    expect(out.match(/forged/g)).toHaveLength(3);
    for (const name of ["../.bashrc", "../../.zshrc", "../../.profile"]) expect(out).toContain(`it lists ${name}, a path git never adds`);
    // The user discards the run's changes in each (with no index left, git may refuse): nothing is written outside.
    for (const dir of [join(up, "feature"), join(ws, "wt"), join(ws, "nest")]) {
      try {
        execFileSync("git", ["checkout", "--", "."], { cwd: dir, stdio: "ignore" });
      } catch {
        // refused: nothing written either
      }
    }
    for (const f of [".bashrc", ".profile", ".zshrc"]) expect(readFileSync(join(up, f), "utf8")).toBe("mine\n");
  }, 60_000);
});

/** Adds an entry for a blob under a placeholder name to the index at argv[1] (the cwd's repository), then renames it to argv[2]. */
const FORGE_PATH = `import hashlib,os,subprocess,sys
index,name=sys.argv[1],sys.argv[2]
env=dict(os.environ,GIT_INDEX_FILE=os.path.abspath(index))
blob=subprocess.run(['git','hash-object','-w','--stdin'],input=b'evil\\n',capture_output=True,check=True).stdout.decode().strip()
subprocess.run(['git','update-index','--add','--cacheinfo','100644,'+blob+','+'q'*len(name)],env=env,check=True)
b=open(index,'rb').read()[:-20].replace(('q'*len(name)).encode(),name.encode())
open(index,'wb').write(b+hashlib.sha1(b).digest())
print('forged')
`;

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
