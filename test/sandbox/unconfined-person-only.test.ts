// Without a sandbox, `--yes --dangerously-run-unconfined` approves only the generic "would run on your host" ask; a
// command with a specific concern still needs a person. The twenty-eighth pass found commands with such a concern
// that got only the generic reason (A28-1 to A28-13): each now carries its concern.
import { describe, expect, it } from "vitest";
import { auditCommand } from "../../src/sandbox/shell-audit.js";

const unconfined = (c: string) => auditCommand(c, { confined: false });

describe("person-only concerns without a sandbox (the twenty-eighth pass)", () => {
  it.each([
    "gpg --batch --yes --delete-secret-and-public-key ABCDEF0123456789", // A28-1: a key in ~/.gnupg
    "gpg --delete-secret-keys ABCDEF",
    "python3 -c 'import netrc;print(netrc.netrc().hosts)'", // A28-2: credentials read by a module, no path named
    'python3 -c \'import keyring; print(keyring.get_password("s", "u"))\'',
    "git credential fill",
    "git switch -C main HEAD~1", // A28-3
    "git switch --force-create main HEAD~1",
    "npm link --offline", // A28-5: a global install by another name
    "npm ln",
    "git maintenance register", // A28-6: the global git config
    "conda install -y numpy", // A28-7
    "mamba install -y numpy",
    "pdm add requests",
    "cpanm Foo::Bar",
    "dotnet tool install -g dotnet-ef",
    "Rscript -e 'install.packages(\"x\")'",
    "docker stop db",
    'node -e \'require("fs").truncateSync("../notes1.txt")\'', // A28-8
    "python3 -c 'import os; os.truncate(\"../notes3.txt\",0)'",
    "git merge --abort", // A28-9
    "git rebase --abort",
    "git apply -R fix.patch",
    "awk '{print > \"../notes5.txt\"}' a.txt", // A28-10
    "sqlite3 x.db \"VACUUM INTO '../adv28-new.db'\"",
    "GIT_WORK_TREE=.. git stash -u", // A28-13
    "GIT_WORK_TREE=/ git add -A",
  ])("%j needs a person", async (cmd) => {
    expect(await unconfined(cmd), cmd).toMatchObject({ verdict: "ask", needsPerson: true });
  });

  it.each(["cat notes.txt", "jq -n 1", "ls -la", "grep -rn x ."])("%j still runs unasked", async (cmd) => {
    expect(await unconfined(cmd)).toEqual({ verdict: "allow" });
  });
});
