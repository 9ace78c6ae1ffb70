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
    // the twenty-ninth pass: git's long-option prefixes (A29a-2)
    "git push --dele origin feature",
    "git merge --abo",
    "git apply --rev p.diff",
    "git restore --staged --wor .",
    "git worktree remove --forc wt",
    "git branch --delete --forc feature",
    "git commit --amen --allow-empty -m amended",
    "git checkout -B feature",
    "git switch --force-c feature",
    "git fetch --forc . main:feature",
    "git gc --prun=now",
    // processes attached to by pid, or signalled through a pidfd (A29a-4)
    "python3 -c 'import os,signal; signal.pidfd_send_signal(os.pidfd_open(123), 9)'",
    "timeout 5 strace -qq -p 123 -e inject=all:signal=KILL -o /dev/null",
    "gdb -q -batch -p 123 -ex 'signal SIGKILL'",
    "prlimit --pid 123 --cpu=0:0",
    // installs by another spelling (A29a-5)
    "npm isntall -g --offline ./jspkg",
    "npm instal -g ./jspkg",
    "python3 -m pip -q install --user ./pypkg",
    "python3 -m pip -q uninstall -y pkg",
    "python3 setup.py -q install --user",
    "dpkg -i probe.deb",
    // CDPATH and cdable_vars send a later cd elsewhere (A29a-6)
    "CDPATH=/tmp; cd user && echo pwned >> oldpwd.txt",
    "export CDPATH=/tmp/otherproj; cd sub2 && echo x >> data.txt",
    "shopt -s cdable_vars; d=/tmp/x; cd d && echo x >> data.txt",
    // code glued to its option (A29a-9)
    `node --eval='require("fs").unlinkSync("/tmp/otherproj/v10.txt")'`,
    `python3 -c'import os; os.remove("/tmp/otherproj/v1.txt")'`,
    `perl -wle'unlink "/tmp/otherproj/v2.txt"'`,
    // an absolute path glued to an option, under any top-level folder (A29a-11)
    "sort -o/work/other/o1.txt a.txt",
    "cp -t/work/other a.txt",
    // SQL from a file, syncs that delete remotely, a deployment scaled to zero, servers and agents stopped (A29a-7/10)
    "psql < drop.sql",
    "rclone sync empty remote:bucket",
    "gsutil rsync -d -r empty gs://bucket",
    "s3cmd sync --delete-removed empty s3://bucket",
    "kubectl scale deploy web --replicas=0",
    "pg_ctl stop -D data -m immediate",
    "psql -c 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity'",
    "gpgconf --kill all",
    "redis-cli shutdown nosave",
    "mysqladmin shutdown",
    "nginx -s stop",
    "service nginx stop",
    "supervisorctl stop all",
    "pm2 stop all",
    "mongosh --eval 'db.shutdownServer()'",
    // the thirtieth pass (A30a-3/5/6/7/8/9/10)
    "timeout 10 gdb -q -batch -ex 'attach 7406' -ex 'signal SIGKILL'",
    "node -e 'process._kill(123, 9)'",
    `node -e 'process["kill"](123, 9)'`,
    "python3 -c 'from os import kill as k; k(123, 9)'",
    "git mv -f b.txt a.txt",
    "python3 -mpip install -q --user ./py1",
    "python3 -Im pip install -q --user ./py2",
    `python3 -c 'import os; open(os.path.join(os.path.dirname(os.getcwd()), "h2.txt"), "a").write("x")'`,
    `node -e 'const p = require("path"); require("fs").appendFileSync(p.join(p.dirname(process.cwd()), "h3.txt"), "x")'`,
    "declare -n r=CDPATH; r=/tmp/otherproj; cd c3 && echo x >> data.txt",
    "for CDPATH in /tmp/otherproj; do cd c4 && echo x >> data.txt; done",
    "cd t1 && terraform plan -destroy -out=p.plan -input=false && terraform apply -input=false p.plan",
    "python3 -m netrc | rev",
  ])("%j needs a person", async (cmd) => {
    expect(await unconfined(cmd), cmd).toMatchObject({ verdict: "ask", needsPerson: true });
  });

  // The code after `bash -c`'s own options is read: a delete outside the workspace is blocked (A29a-8).
  it.each(["bash -c -- 'cd && rm -rf Documents'", "rbash -c 'rm -rf /tmp/otherproj/tree'", "bash -c -e 'rm -f /tmp/otherproj/v2.txt'", "sh -ec -- 'rm -f /tmp/x'", "bash -c -O extglob 'rm -rf ~/x'"])(
    "%j is blocked",
    async (cmd) => {
      expect((await unconfined(cmd)).verdict, cmd).toBe("block");
    },
  );

  it.each(["cat notes.txt", "jq -n 1", "ls -la", "grep -rn x ."])("%j still runs unasked", async (cmd) => {
    expect(await unconfined(cmd)).toEqual({ verdict: "allow" });
  });
});
