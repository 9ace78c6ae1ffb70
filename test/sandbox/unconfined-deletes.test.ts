// Without a sandbox, a delete whose targets the audit cannot place inside the workspace is blocked, so yolo (which
// approves what asks) cannot run it. Every spelling here deleted a whole (fake) home directory through the built CLI
// in the eleventh adversarial pass, or asked where the security docs promised a block. Deletes inside the workspace
// still ask, and with bubblewrap only the home spellings block (the sandbox bounds the rest).
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditCommand } from "../../src/sandbox/shell-audit.js";

let workspace = "";
let home = "";
const savedHome = process.env.HOME;
beforeAll(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "df-unconfined-del-")));
  home = join(root, "user");
  workspace = join(home, "project");
  mkdirSync(join(workspace, "build"), { recursive: true });
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, "notes.txt"), "mine");
  symlinkSync(home, join(workspace, "up"));
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = savedHome;
});
const unconfined = (c: string) => auditCommand(c, { confined: false, workspace });

const HOME_DELETES = [
  "rm -rf ${HOME:?}",
  "rm -rf ${HOME%/}",
  "rm -rf ${HOME:-x}",
  "rm -rf ~-",
  "rm -rf ~+/..",
  "rm -rf ~root",
  'rm -rf "$(dirname "$PWD")"',
  "xargs rm -rf <<< ~",
  "tar -cf /dev/null --remove-files ~",
  "rm -r -- ~/.*",
  "rsync -a --delete emptyd/ ~/",
  "find ${HOME:?} -delete",
  "cd ${HOME:?} && rm -rf *",
  "git -C ~ clean -fdx",
  "mv ~ /tmp/gone",
  "rmdir ~",
  "unlink ~/.ssh",
  'd=/root; rm -rf "$d"',
  "d=~; rm -rf $d",
  "for d in ~; do rm -rf $d; done",
  "rm -rf up/*",
  "find up -delete",
  "xargs rm < list",
];
const WORKSPACE_DELETES = ["rm -rf build", "rm -rf ./build/*", "find . -name '*.o' -delete", "rm -f a.txt", "git clean -fdx", "mv a.txt b.txt", "rm -rf node_modules dist"];

describe("deletes without a sandbox", () => {
  it.each(HOME_DELETES)("blocks %j (its targets are not shown to be in the workspace)", async (cmd) => {
    expect((await unconfined(cmd)).verdict).toBe("block");
  });
  it("names the target it could not place", async () => {
    expect((await unconfined("rm -rf up/*")).reason).toMatch(/no sandbox here.*leads to .*\/user/);
    expect((await unconfined("rm -rf ~-")).reason).toMatch(/tilde/);
  });
  it.each(WORKSPACE_DELETES)("still only asks for %j inside the workspace", async (cmd) => {
    expect((await unconfined(cmd)).verdict).toBe("ask");
  });
  it("blocks when the workspace is not known", async () => {
    expect((await auditCommand("rm -rf build", { confined: false })).verdict).toBe("block");
  });
});

describe("the home directory's spellings with a sandbox", () => {
  it.each(["rm -rf ${HOME:?}", "rm -rf ${HOME%/}", "rm -rf ~root", "rm -r -- ~/.*", "rm -rf ~/.[!.]*", "find ${HOME:?} -delete"])("blocks %j", async (cmd) => {
    expect((await auditCommand(cmd, { confined: true })).verdict).toBe("block");
  });
  it("leaves a literal absolute path to the sandbox and the ask rules", async () => {
    expect((await auditCommand("rm -rf build", { confined: true })).verdict).toBe("ask");
  });
});

// The twelfth pass's yolo deletions: each is now blocked, or an ask only a person may approve (--yes and yolo do not).
const PERSON_ONLY = [
  `python3 -c 'import shutil,os; shutil.rmtree(os.path.expanduser("~"))'`,
  `perl -e 'system("rm -rf ../.ssh")'`,
  "GIT_WORK_TREE=.. git clean -ffdx :/",
  "ln -s .. up2; rm -rf up2/*",
  "alias r=rm; r -rf ../.ssh",
  `awk 'BEGIN{system("rm -rf x")}'`,
  "zip -qrm k.zip ../.ssh ../.aws",
  "git worktree remove --force --force user",
  "rm -rf /mnt/user-data/outputs/../../../../user",
  "find ~ -type f -exec truncate -s0 {} +",
  "(cd ..; rm x)",
  "rm -rf /proc/self/cwd/../*",
  "rm -rf build",
  // The fourteenth pass: a generic ask earlier on the line hid the specific one (and only the first command's reason was kept).
  `sh -c 'touch x'; python3 -c 'import shutil,os; shutil.rmtree(os.path.expanduser("~"))'`,
  "find . -name x -exec touch {} +; git reset --hard",
  "find .. -type f -exec truncate -s0 {} +",
  "touch a; cat /proc/[0-9]*/environ | rev",
  "sh -c 'touch x'; ln -s .. up; rm -rf up/*",
  // Writes whose target is known only when they run, or through a link out of the workspace (`up` -> the home).
  'truncate -s0 "${PWD%/*}/notes.txt"',
  'cp /dev/null "$(dirname "$PWD")/notes.txt"',
  'echo x > "${PWD%/*}/notes.txt"',
  "cp /dev/null up/notes.txt",
  "dd if=/dev/null of=up/notes.txt",
  "tee up/.ssh/id_rsa",
  // Signals that reach every process of the user's without a PID namespace (pass 14's K1).
  "kill -9 -1",
  "pkill -u $USER",
  "loginctl terminate-user $USER",
  "touch a; killall node",
  // The fifteenth pass: launchers whose command line the grammar does not read, writers fed by xargs, killall5.
  `tmux new -d "python3 -c 'import shutil; shutil.rmtree("/home/u")'"`,
  `npm exec -c "rm -rf .."`,
  `sg users "rm -rf .."`,
  "xargs -a list truncate -s0",
  "cat list | xargs truncate -s0",
  "killall5 -9",
  `python3 -c 'import os; os.kill(-1, 9)'`,
  `perl -e 'kill 9, -1'`,
  `node -e 'process.kill(-1, 9)'`,
  // A file not there yet, made through the workspace's link to the home (`up` -> the home).
  "cp a.txt up/.gitconfig",
  "echo x > up/new-file",
];
describe("asks only a person may approve without a sandbox", () => {
  it.each(PERSON_ONLY)("%j is blocked or needs a person", async (cmd) => {
    const r = await unconfined(cmd);
    expect(r.verdict === "block" || (r.verdict === "ask" && r.needsPerson === true), JSON.stringify(r)).toBe(true);
  });
  it.each(["tar -cf /dev/null --remove-f ~", "tar -cf /dev/null --rem ~", "cd -- .. && rm -rf *"])("%j is blocked", async (cmd) => {
    expect((await unconfined(cmd)).verdict).toBe("block");
  });
  it.each(["npm test", "make", "python3 script.py", "echo hi > out.txt", "rm -f a.txt", "git commit -m x", "ls *.ts"])("%j asks, and --yes may approve it", async (cmd) => {
    const r = await unconfined(cmd);
    expect(r.verdict).toBe("ask");
    expect(r.needsPerson).toBeUndefined();
  });
});
