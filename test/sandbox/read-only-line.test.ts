// Plan mode's judgement of a whole bash line (sandbox/read-only-line.ts): what a model may run while planning, and
// the spellings a hostile model would try to slip a write or another program past it.
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineOnlyReads, whyNotOnlyReads } from "../../src/sandbox/read-only-line.js";
import { CONFIG_LISTING_BYTES } from "../../src/sandbox/plain-git.js";

/** A workspace that is no git repository: git's config question does not arise for the lines below. */
const confined = { confined: true, workspace: tmpdir() };

describe("lineOnlyReads", () => {
  it.each([
    "ls -la",
    "git status --short",
    "git log --oneline -5 | head -3",
    "cat package.json | grep version",
    "find . -name '*.ts' -type f",
    "rg -n TODO src",
    "cd src && ls",
    "wc -l < README.md",
    "ls missing 2>/dev/null",
    "echo 'rm -rf /'",
    "diff a.txt b.txt || true",
    "tree -L 2 -a",
    "tree -aL 2 src",
    "jq -r --arg k v '.[$k]' a.json",
    "ag -i hello src",
    "less -N f.txt",
    "git grep -n -1 hello",
    "grep -rn5 foo .",
    "git diff --stat HEAD~1",
    // After `--` an expanded word is an operand.
    'rg -n foo -- "$f"',
    // A glob given to a program with no option that writes or runs, after `--`, or with a literal first character.
    "cat src/*.ts",
    "grep -n foo *.py",
    "ls *.c",
    "du -sh *",
    "rg foo -- *",
    "rg foo src/* ./*",
    "git log -- *",
    "rg foo '*' \\*",
  ])("reads: %s", async (command) => {
    expect(await lineOnlyReads(command, confined)).toBe(true);
  });

  it.each([
    "rm app.txt",
    "echo hi > f",
    "echo hi >> f",
    "cat a | tee f",
    "cat $(rm x)",
    "ls; rm x",
    "ls && touch x",
    "find . -delete",
    "find . -exec rm {} \\;",
    "git commit -am x",
    "git -c core.pager='sh -c id' log",
    "git diff --output=f",
    "git grep -O vi x",
    // The fifteenth pass: abbreviations and clusters git and less accept.
    "git grep --open=sh x",
    "git grep -iOsh x",
    "git diff --out=f",
    "git log --ext",
    "less --lesskey-sr=k a",
    "less -k k a",
    "ls | xargs rm",
    // The seventeenth pass's PM11: a word bash expands may be an option off the allow list.
    "rg foo ${x:---pre=rm}",
    'rg foo "${x:---pre=rm}"',
    "rg foo $(echo --pre=rm)",
    "rg foo `printf %s --pre=rm`",
    "tree ${x:--o} out",
    "git log ${x:---output=f}",
    "find . ${x:--delete}",
    "cat ${x:--v} f",
    // The seventeenth pass's PM10: a glob's file names (the repository's: `--pre=sh`) may be such an option.
    "rg -n TODO *",
    "ag foo *",
    "tree *",
    "find * -name '*.md'",
    "file *",
    "less *",
    "git log *",
    "rg foo [-]*",
    "rg foo '-'*",
    "rg foo {*,x}",
    "rg foo ?x",
    "test *",
    "ls; [ * ]",
    "printf *",
    // find reads `-delete` as its expression after `--` too.
    "find -- ${x:--delete}",
    "env X=1 ls",
    "X=1 ls",
    "sed -i s/a/b/ f",
    "python3 -c 'print(1)'",
    "npm test",
    "bash -c 'ls'",
    "eval ls",
    "$CMD",
    "sort -o f a",
    "printf -v x hi",
    "mkdir d",
    "cp a b",
    "less +!rm a",
    "rg --pre ./x y",
    "echo ls | sh",
    "awk '{print > \"f\"}' a",
    "cat a.txt 3<a.txt >/dev/fd/3",
    "./ls",
    "ls (",
    // The sixteenth pass: options are an allow list per program, so a spelling the gate never saw does not read.
    "tree -H . -L 1 -R",
    "tree -RH. -L1",
    "tree -Lo 2 out.html", // tree 1.x reads -L's value from the next word and goes on with the cluster: -o out.html
    "ag --pager 'sh -c x' hello",
    "ag --pager=x hello",
    "ag --pag=x hello",
    "less --Lesskey-src=/dev/stdin f.txt <<'E'\n#env\nLESSOPEN=|sh -c 'touch X'; cat %s\nE",
    "less --LESSKEY-SRC=k f.txt",
    "less --Log-file=o f.txt",
    "less -x4k/dev/stdin f.txt",
    "less -Nk k f.txt",
    "git grep -1O'touch X;' hello",
    "git grep -i1O'touch X;' hello",
    "git log --outp=f",
    "git -c x=y log",
    "grep --reg=x .",
  ])("does not only read: %s", async (command) => {
    expect(await lineOnlyReads(command, confined)).toBe(false);
  });
});

describe("lineOnlyReads and the repository's git config", () => {
  it("git reads where the repository configures no code; not where its .git/config names a program (core.fsmonitor), nor without a workspace", async () => {
    const ws = mkdtempSync(join(tmpdir(), "deerflow-plan-git-"));
    execFileSync("git", ["init", "-q"], { cwd: ws });
    expect(await lineOnlyReads("git status", { confined: true, workspace: ws })).toBe(true);
    expect(await lineOnlyReads("git status", { confined: true })).toBe(false);
    appendFileSync(join(ws, ".git", "config"), "[core]\n\tfsmonitor = touch pwned\n");
    expect(await lineOnlyReads("git status", { confined: true, workspace: ws })).toBe(false);
    expect(await lineOnlyReads("ls", { confined: true, workspace: ws })).toBe(true);
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it("git runs only from the workspace's top, told of no other repository (a shipped evil.git/ folder has its own config)", async () => {
    const ws = mkdtempSync(join(tmpdir(), "deerflow-plan-git-"));
    execFileSync("git", ["init", "-q"], { cwd: ws });
    execFileSync("git", ["init", "-q", "--bare", join(ws, "evil.git")]);
    appendFileSync(join(ws, "evil.git", "config"), "[core]\n\tfsmonitor = touch pwned\n");
    for (const line of ["git -C evil.git status", "cd evil.git && git status", "git --git-dir=evil.git status", "cd evil.git; cd ..; cd evil.git; git log"])
      expect(await lineOnlyReads(line, { confined: true, workspace: ws }), line).toBe(false);
    expect(await lineOnlyReads("cd evil.git && ls", { confined: true, workspace: ws })).toBe(true);
    expect(await lineOnlyReads("git status", { confined: true, workspace: ws })).toBe(true);
  });

  const repo = () => {
    const ws = mkdtempSync(join(tmpdir(), "deerflow-plan-git-"));
    const git = (...a: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...a], { cwd: ws, encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(ws, "a.txt"), "a\n");
    git("add", "a.txt");
    git("commit", "-q", "-m", "init");
    return { ws, git };
  };
  const status = (ws: string) => whyNotOnlyReads("git status", { confined: true, workspace: ws });

  it("git is refused where the repository has a hook that is not a sample, also behind a .git file (the sixteenth pass's PM8)", async () => {
    const { ws } = repo();
    expect(await status(ws)).toBeUndefined(); // git init's samples never run
    writeFileSync(join(ws, ".git", "hooks", "post-index-change"), "#!/bin/sh\ntouch pwned\n");
    chmodSync(join(ws, ".git", "hooks", "post-index-change"), 0o755);
    expect(await status(ws)).toMatch(/git there would run code the repository names: .*post-index-change is a hook/);
    renameSync(join(ws, ".git"), join(ws, "meta"));
    writeFileSync(join(ws, ".git"), "gitdir: meta\n");
    expect(await status(ws)).toMatch(/post-index-change is a hook/);
  });

  it("git is refused where a checkout the index records (a gitlink git status enters) has a code key or a hook (the sixteenth pass's PM4)", async () => {
    const { ws, git } = repo();
    mkdirSync(join(ws, "sub"));
    execFileSync("git", ["init", "-q"], { cwd: join(ws, "sub") });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "s"], { cwd: join(ws, "sub") });
    git("add", "sub");
    expect(await status(ws)).toBeUndefined();
    appendFileSync(join(ws, "sub", ".git", "config"), "[core]\n\tfsmonitor = touch pwned\n");
    expect(await status(ws)).toMatch(/the repository checked out at \S*sub runs code: .*sets core\.fsmonitor/);
    execFileSync("git", ["config", "--unset", "core.fsmonitor"], { cwd: join(ws, "sub") });
    writeFileSync(join(ws, "sub", ".git", "hooks", "post-index-change"), "#!/bin/sh\ntouch pwned\n");
    expect(await status(ws)).toMatch(/the repository checked out at \S*sub runs code: .*post-index-change is a hook/);
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it("git is refused where the repository's config cannot be listed whole: never read as 'no code keys' (the sixteenth pass's PM7)", async () => {
    const { ws } = repo();
    // Each `b` is 2 bytes on disk and 2 006 in the listing: past the listing's buffer by a quarter.
    const lines = Math.ceil((CONFIG_LISTING_BYTES * 1.25) / 2_000);
    appendFileSync(join(ws, ".git", "config"), `[a "${"x".repeat(2000)}"]\n${"b\n".repeat(lines)}[core]\n\tfsmonitor = touch pwned\n`);
    expect(await status(ws)).toMatch(/git there would run code the repository names: its config could not be listed/);
    expect(await lineOnlyReads("git status", { confined: true, workspace: ws })).toBe(false);
  });
});
