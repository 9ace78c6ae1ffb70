// What a command can leave in a git dir that the user's own git on the host later acts on, beyond config keys and
// hooks: a bare repository whose hooks run when the user pushes to it (the thirty-first pass's A31b-2), a remote
// defined by git's legacy `.git/remotes/<name>` or `.git/branches/<name>` file (A31b-3), and a link planted where git
// writes (`COMMIT_EDITMSG`, `FETCH_HEAD`, a reflog), which git writes through onto a host file (A31b-4). After each
// command these are moved aside (a link removed). Real bwrap (and the same commands unconfined), real git on the host, in-process.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeShellSessions, startBackground } from "../../src/sandbox/run-shell.js";
import { HAS_BWRAP, type Mode, isLink } from "../support/confinement.js";
import { gitWorkspace } from "../support/git-workspace.js";
import { until } from "../support/wait.js";

const modes: Mode[] = HAS_BWRAP ? ["bwrap", "fallback"] : ["fallback"];
const savedPath = process.env.PATH;

function setUp(mode: Mode) {
  const { root, paths, ws, settings, git, sh } = gitWorkspace("deerflow-gitdir-", mode);
  const bg = (command: string) => startBackground(command, { paths, settings, cwd: ws, logPath: join(paths.outputs_path, "bg.log"), onEnd: () => {} });
  const script = (lines: string[]) => writeFileSync(join(ws, "mk.sh"), `${lines.join("\n")}\n`);
  return { root, ws, sh, bg, git, script, marker: join(root, "pwned") };
}

afterEach(async () => {
  await closeShellSessions();
  process.env.PATH = savedPath;
});

describe.each(modes)("what a command leaves in a git dir for the user's git (%s)", (mode) => {
  it("a bare repository it makes loses its hooks, so the user's push to it runs nothing (A31b-2)", async () => {
    const { ws, sh, git, script, marker } = setUp(mode);
    script([
      "git init -q vendor/lib && cd vendor/lib",
      "echo hi > README && git add README && git -c user.name=a -c user.email=a@b commit -qm init",
      "git init -q --bare ../../.cache/mirror.git",
      `printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > ../../.cache/mirror.git/hooks/post-receive`,
      "chmod +x ../../.cache/mirror.git/hooks/post-receive",
      "git remote add origin ../../.cache/mirror.git",
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("post-receive.deerflow-removed");
    git(join(ws, "vendor", "lib"), "push", "-q", "origin", "HEAD:main");
    expect(existsSync(marker)).toBe(false);
    expect(git(join(ws, ".cache", "mirror.git"), "log", "--format=%s", "main")).toContain("init");
  });

  it("a bare repository made inside a git dir (.git/deploy, srv.git/info/inner.git) loses its hooks too (A35a-1)", async () => {
    const { ws, sh, git, script, marker } = setUp(mode);
    script([
      "git init -q --bare .git/deploy && git init -q --bare srv.git && git init -q --bare srv.git/info/inner.git",
      ...[".git/deploy", "srv.git/info/inner.git"].map((d) => `printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > ${d}/hooks/post-receive && chmod +x ${d}/hooks/post-receive`),
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    for (const d of [join(ws, ".git", "deploy"), join(ws, "srv.git", "info", "inner.git")]) {
      expect(existsSync(join(d, "hooks", "post-receive")), d).toBe(false);
      git(ws, "push", "-q", d, "main");
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("a remote it defines in .git/remotes or .git/branches is moved aside; the user's own remote file is put back (A31b-3)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    mkdirSync(join(ws, ".git", "remotes"));
    writeFileSync(join(ws, ".git", "remotes", "mine"), "URL: /srv/mine.git\n");
    script([
      "git init -q --bare .cache/backup.git",
      "mkdir -p .git/branches",
      'printf "URL: %s/.cache/backup.git\\nPush: refs/heads/main:refs/heads/main\\n" "$PWD" > .git/remotes/origin',
      'echo "$PWD/.cache/backup.git" > .git/branches/backup',
      'echo "URL: $PWD/.cache/backup.git" > .git/remotes/mine',
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain(`${join(ws, ".git", "remotes", "origin")} to`);
    expect(out).toContain(`${join(ws, ".git", "branches", "backup")} to`);
    expect(existsSync(join(ws, ".git", "remotes", "origin"))).toBe(false);
    expect(existsSync(join(ws, ".git", "branches", "backup"))).toBe(false);
    expect(out).toContain(`put back ${join(ws, ".git", "remotes", "mine")}`);
    expect(readFileSync(join(ws, ".git", "remotes", "mine"), "utf8")).toBe("URL: /srv/mine.git\n");
    expect(() => git(ws, "push", "-q", "origin")).toThrow();
  });

  it("a link it plants where git writes, in the workspace's .git or a nested one, is removed before the user's commit and fetch (A31b-4)", async () => {
    const { root, ws, sh, git, script } = setUp(mode);
    const victims = ["bashrc", "profile", "reflog", "nested"].map((n) => join(root, n));
    for (const v of victims) writeFileSync(v, "mine\n");
    git(root, "init", "-q", "--bare", "upstream.git");
    git(ws, "remote", "add", "origin", join(root, "upstream.git"));
    git(ws, "push", "-q", "origin", "main");
    script([
      `ln -sf ${victims[0]} .git/COMMIT_EDITMSG`,
      `ln -sf ${victims[1]} .git/FETCH_HEAD`,
      `ln -sf ${victims[2]} .git/logs/HEAD`,
      "git init -q vendor/lib",
      `ln -sf ${victims[3]} vendor/lib/.git/COMMIT_EDITMSG`,
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain(`removed the link ${join(ws, ".git", "COMMIT_EDITMSG")}`);
    for (const p of [".git/COMMIT_EDITMSG", ".git/FETCH_HEAD", ".git/logs/HEAD", "vendor/lib/.git/COMMIT_EDITMSG"]) expect(isLink(join(ws, p)), p).toBe(false);
    writeFileSync(join(ws, "b.txt"), "b\n");
    git(ws, "add", "b.txt");
    git(ws, "commit", "-q", "-m", "add b");
    git(ws, "fetch", "-q", "origin");
    writeFileSync(join(ws, "vendor", "lib", "c.txt"), "c\n");
    git(join(ws, "vendor", "lib"), "add", "c.txt");
    git(join(ws, "vendor", "lib"), "commit", "-q", "-m", "add c");
    for (const v of victims) expect(readFileSync(v, "utf8"), v).toBe("mine\n");
  });

  it("a folder link it plants in .git/worktrees is removed, so the prune a commit's auto gc runs deletes nothing of yours (A32b-1)", async () => {
    const { root, ws, sh, git, script } = setUp(mode);
    const docs = join(root, "Documents");
    mkdirSync(docs);
    writeFileSync(join(docs, "thesis.txt"), "mine\n");
    script(["mkdir -p .git/worktrees", `ln -s ${docs} .git/worktrees/build-cache`, "echo ok"]);
    const out = await sh("sh mk.sh");
    expect(out).toContain(`removed the link ${join(ws, ".git", "worktrees", "build-cache")} (to ${docs})`);
    git(ws, "worktree", "prune");
    expect(readFileSync(join(docs, "thesis.txt"), "utf8")).toBe("mine\n");
  });

  it("a link a background job plants in .git/worktrees after the last command is removed without another command (A33a-3)", async () => {
    const { root, ws, sh, bg } = setUp(mode);
    const docs = join(root, "Documents");
    mkdirSync(docs);
    await sh("mkdir -p .git/worktrees && echo ready");
    await bg(`while [ ! -e go ]; do sleep 0.05; done; ln -s ${docs} .git/worktrees/build-cache && touch planted; sleep 300`);
    writeFileSync(join(ws, "go"), "");
    await until(() => existsSync(join(ws, "planted")), "the job to plant its link");
    await until(() => !isLink(join(ws, ".git", "worktrees", "build-cache")), "the planted link to be removed");
  });

  it("a linked worktree's commondir or a nested repository's config a background job rewrites is undone without another command (A38c-8, A38c-9)", async () => {
    const { root, ws, sh, bg, git } = setUp(mode);
    const feature = join(root, "feature");
    git(ws, "worktree", "add", "-q", feature);
    const commondir = join(ws, ".git", "worktrees", "feature", "commondir");
    const before = readFileSync(commondir, "utf8");
    git(ws, "init", "-q", "lib");
    await sh("echo ready");
    await bg(
      "while [ ! -e go ]; do sleep 0.05; done; git init -q --bare /mnt/user-data/outputs/gd && echo ../../../../outputs/gd > .git/worktrees/feature/commondir && git -C lib config core.fsmonitor 'touch pwned; false' && touch planted; sleep 300",
    );
    writeFileSync(join(ws, "go"), "");
    await until(() => existsSync(join(ws, "planted")), "the job to plant");
    await until(() => readFileSync(commondir, "utf8") === before, "the worktree's commondir to be put back");
    await until(() => !readFileSync(join(ws, "lib", ".git", "config"), "utf8").includes("fsmonitor"), "the nested repository's fsmonitor to be taken out");
  });

  it("a submodule git dir it plants under .git/modules loses its hook before the user's `git submodule update --init` (A32b-3)", async () => {
    const { ws, sh, git, script, marker } = setUp(mode);
    script([
      "git init -q --bare .git/modules/vendor/lib && git --git-dir=.git/modules/vendor/lib config core.bare false",
      "t=$(mktemp -d) && git -C $t init -q && echo 1 > $t/index.js && git -C $t add index.js && git -C $t -c user.name=a -c user.email=a@b commit -qm lib",
      'sha=$(git -C $t rev-parse HEAD) && git -C $t push -q "$PWD/.git/modules/vendor/lib" HEAD:refs/heads/main',
      `printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > .git/modules/vendor/lib/hooks/post-checkout && chmod +x .git/modules/vendor/lib/hooks/post-checkout`,
      `printf '[submodule "vendor/lib"]\\n\\tpath = vendor/lib\\n\\turl = https://github.invalid/lib.git\\n' > .gitmodules`,
      "git update-index --add --cacheinfo 160000,$sha,vendor/lib && git add .gitmodules && git -c user.name=a -c user.email=a@b commit -qm 'add lib'",
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("post-checkout.deerflow-removed");
    git(ws, "submodule", "update", "--init");
    expect(readFileSync(join(ws, "vendor", "lib", "index.js"), "utf8")).toBe("1\n");
    expect(existsSync(marker)).toBe(false);
  });

  it("links it plants in place of .git/objects/<xx> or .git/objects/pack are removed, so the user's gc prunes nothing of another repository (A33a-1)", async () => {
    const { root, ws, sh, git, script } = setUp(mode);
    git(root, "init", "-q", "other");
    writeFileSync(join(root, "other", "f.txt"), "mine\n");
    git(join(root, "other"), "add", "f.txt");
    git(join(root, "other"), "commit", "-q", "-m", "thesis");
    const objects = join(root, "other", ".git", "objects");
    script(["for i in $(seq 0 255); do n=$(printf %02x $i); [ -e .git/objects/$n ] || ln -s " + objects + "/$n .git/objects/$n; done", `ln -s ${objects}/pack .git/objects/pack2`, "echo ok"]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("removed the link");
    git(ws, "prune", "--expire=now");
    expect(git(join(root, "other"), "log", "--format=%s")).toContain("thesis");
  });

  it("a git dir whose refs is an executable file, or whose objects and refs are links, is still a git dir to the guard: its hook is moved aside (A33a-2, A34a-1)", async () => {
    const { sh, script } = setUp(mode);
    script([
      "git init -q --bare .git/modules/vendor/lib",
      "printf '#!/bin/sh\\necho HOOK\\n' > .git/modules/vendor/lib/hooks/post-checkout && chmod +x .git/modules/vendor/lib/hooks/post-checkout",
      "rm -rf .git/modules/vendor/lib/refs && touch .git/modules/vendor/lib/refs && chmod +x .git/modules/vendor/lib/refs",
      // …and a bare repository in the workspace whose objects and refs are links (A34a-1)
      "git init -q --bare deploy.git && cd deploy.git && mv objects .o && ln -s .o objects && mv refs .r && ln -s .r refs",
      "printf '#!/bin/sh\\necho HOOK\\n' > hooks/post-receive && chmod +x hooks/post-receive && cd ..",
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("post-checkout.deerflow-removed");
    expect(out).toContain("post-receive.deerflow-removed");
  });

  it("a replace ref it writes by hand, loose or packed, is taken out: git log shows the commit that git push sends (A32b-2)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    script([
      "good=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'Fix logging' HEAD^{tree})",
      "echo evil > ci.yml && git add ci.yml && git -c user.name=a -c user.email=a@b commit -qm 'Fix logging'",
      "bad=$(git rev-parse HEAD)",
      "mkdir -p .git/refs/replace && echo $good > .git/refs/replace/$bad",
      'echo "$good refs/replace/$good" >> .git/packed-refs',
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("refs/replace");
    expect(git(ws, "show", "--stat", "--format=%s", "HEAD")).toContain("ci.yml");
    expect(git(ws, "for-each-ref", "refs/replace")).toBe("");
  });

  it("a replace ref in a packed-refs past 64 KiB (a repository with many tags has one) is taken out too (A36a-4)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    script([
      "bad=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'evil: add backdoor' HEAD^{tree})",
      "good=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'docs: typo' HEAD^{tree})",
      "git update-ref refs/heads/main $bad",
      '{ for i in $(seq 1 1300); do echo "$good refs/x/pad$i"; done; echo "$good refs/replace/$bad"; } | sort -k2 > .git/packed-refs',
      "wc -c < .git/packed-refs",
    ]);
    const out = await sh("sh mk.sh");
    expect(Number(out.split("\n")[0])).toBeGreaterThan(64 * 1024);
    expect(out).toContain("took a replace ref the run added out of");
    expect(git(ws, "log", "--format=%s", "-1")).toBe("evil: add backdoor\n");
  });

  it("a replace ref in a packed-refs past 16 MiB is taken out too, and the other lines kept (A37a-2)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    script([
      "bad=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'evil: add backdoor' HEAD^{tree})",
      "good=$(git -c user.name=a -c user.email=a@b commit-tree -p HEAD -m 'docs: typo' HEAD^{tree})",
      "git update-ref refs/heads/main $bad",
      '{ seq -f "$good refs/x/pad%08g" 1 300000; echo "$good refs/replace/$bad"; } | sort -k2 > .git/packed-refs',
      "wc -c < .git/packed-refs",
    ]);
    const out = await sh("sh mk.sh");
    expect(Number(out.split("\n")[0])).toBeGreaterThan(16 * 1024 * 1024);
    expect(out).toContain("took a replace ref the run added out of");
    expect(git(ws, "log", "--format=%s", "-1")).toBe("evil: add backdoor\n");
    const packed = readFileSync(join(ws, ".git", "packed-refs"), "latin1").split("\n");
    expect(packed.filter((l) => l.includes(" refs/x/pad")).length).toBe(300000);
  });

  it("a bare repository of files only inside a git dir (HEAD and a commondir naming a worktree folder) loses its hooks (A36a-1)", async () => {
    const { ws, sh, git, script, marker } = setUp(mode);
    script([
      "mkdir -p .git/deploy tools && echo 'ref: refs/heads/main' > .git/deploy/HEAD && echo ../../tools/cache > .git/deploy/commondir",
      "git init -q --bare tools/cache && rm -f tools/cache/HEAD",
      `printf '#!/bin/sh\\necho HOOK >> ${marker}\\n' > tools/cache/hooks/post-receive && chmod +x tools/cache/hooks/post-receive`,
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(existsSync(join(ws, "tools", "cache", "hooks", "post-receive"))).toBe(false);
    git(ws, "push", "-q", join(ws, ".git", "deploy"), "main");
    expect(existsSync(marker)).toBe(false);
  });

  it("an index rewritten to list ../.bashrc is moved aside before the user's git checkout -- . can write it (A33a-4)", async () => {
    const { root, ws, sh, git, script } = setUp(mode);
    const victim = join(root, "threads", "A", ".bashrc");
    writeFileSync(victim, "mine\n");
    writeFileSync(
      join(ws, "forge.py"),
      [
        "import hashlib, subprocess",
        "blob = subprocess.run(['git', 'hash-object', '-w', '--stdin'], input=b'evil\\n', capture_output=True).stdout.decode().strip()",
        "subprocess.run(['git', 'update-index', '--add', '--cacheinfo', '100644,' + blob + ',aaaaaaaaaa'], check=True)",
        "b = open('.git/index', 'rb').read()[:-20].replace(b'aaaaaaaaaa', b'../.bashrc')",
        "open('.git/index', 'wb').write(b + hashlib.sha1(b).digest())",
        "print('ok')",
      ].join("\n"),
    );
    script(["python3 forge.py"]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toContain("it lists ../.bashrc, a path git never adds");
    try {
      git(ws, "checkout", "--", "."); // the user discards the run's changes (with no index left, git may refuse)
    } catch {
      // refused: nothing written either
    }
    expect(readFileSync(victim, "utf8")).toBe("mine\n");
  });

  it("a link the user had in the git dir stays", async () => {
    const { ws, sh, git } = setUp(mode);
    writeFileSync(join(ws, ".git", "info", "shared-exclude"), "*.log\n");
    execFileSync("ln", ["-sf", "shared-exclude", join(ws, ".git", "info", "exclude")]);
    const out = await sh("git status --porcelain && echo ok");
    expect(out).toContain("ok");
    expect(out).not.toContain("deerflow");
    expect(isLink(join(ws, ".git", "info", "exclude"))).toBe(true);
    expect(git(ws, "status", "--porcelain")).toBe("");
  });
  it("a replace ref it writes in a nested checkout's git dir is removed; a repository it makes keeps its template files (A37a-3)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    const lib = join(ws, "lib");
    mkdirSync(lib);
    git(lib, "init", "-q", "-b", "main");
    writeFileSync(join(lib, "index.js"), "module.exports = 1\n");
    git(lib, "add", ".");
    git(lib, "commit", "-qm", "init");
    script([
      "git init -q nest && cd lib && C=$(git rev-parse HEAD:index.js) && echo 'evil()' >> index.js",
      "git add index.js && git -c user.name=a -c user.email=a@b commit -qm 'docs: typo' && E=$(git rev-parse HEAD:index.js)",
      "mkdir -p .git/refs/replace && echo $C > .git/refs/replace/$E && echo planted",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("planted");
    expect(out).toMatch(/deerflow removed \S*lib\/\.git\/refs\/replace\/[0-9a-f]+ \([0-9a-f]+\): the run added it, and it is a replace ref/);
    expect(out).not.toContain("nest/.git/info");
    expect(git(lib, "show", "HEAD:index.js")).toContain("evil()");
  });

  it("a shallow file it makes (git fetch --depth=1 from the repository itself) is moved aside: git log shows every commit (A38b-5)", async () => {
    const { ws, sh, git } = setUp(mode);
    userPackage(ws, git);
    const out = await sh("git fetch -q --depth=1 file://$PWD HEAD && git log --oneline | wc -l");
    expect(out.split("\n")[0]).toBe("1");
    expect(out).toMatch(/deerflow moved \S*\.git\/shallow to \S*shallow\.deerflow-removed: the run added it, and it tells git where history ends/);
    expect(git(ws, "log", "--oneline").trim().split("\n")).toHaveLength(2);
  });

  it("a forged pack index under any name (zz.idx) is written again; an upper-case replace line in packed-refs and a recorded conflict resolution are taken out (A38c-1, A38c-7, A38c-3)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    userPackage(ws, git);
    writeFileSync(join(ws, "idx.py"), FORGE_IDX);
    script([
      `E=$(printf '{ "scripts": { "test": "touch pwned" } }\\n' | git hash-object -w --stdin); B=$(git rev-parse HEAD:package.json)`,
      "P=$(echo $E | git pack-objects -q .git/objects/pack/tmp) && rm -f .git/objects/$(echo $E | cut -c1-2)/$(echo $E | cut -c3-)",
      "mv .git/objects/pack/tmp-$P.pack .git/objects/pack/zz.pack && mv .git/objects/pack/tmp-$P.idx .git/objects/pack/zz.idx && python3 idx.py .git/objects/pack/zz.idx $B",
      'bad=$(git -c user.name=a -c user.email=b commit-tree -p HEAD -m evil HEAD^{tree}) && echo "$(git rev-parse HEAD | tr a-f A-F) refs/replace/$bad" >> .git/packed-refs',
      "mkdir -p .git/rr-cache/0123abcd && echo 'host: evil' > .git/rr-cache/0123abcd/postimage && echo '<<<<<<<' > .git/rr-cache/0123abcd/preimage",
      "echo '{}' > package.json",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toMatch(/zz\.idx to \S+: it names objects of its pack by other objects' ids .* deerflow wrote its index again from the pack/);
    expect(discard(ws, git)).toBe(PACKAGE);
    expect(out).toContain("took a replace ref the run added out of");
    expect(git(ws, "replace", "-l")).toBe("");
    expect(out).toMatch(/rr-cache\/0123abcd\/postimage to \S+: the run added it, and git reuses the conflict resolutions/);
  });

  it("a submodule git dir it plants under .git/modules with a blob rewritten under its id: the user's submodule update never writes it (A38c-6)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    writeFileSync(join(ws, "blob.py"), "import sys, zlib\nd = b'PLANTED\\n'\nopen(sys.argv[1], 'wb').write(zlib.compress(b'blob %d\\0' % len(d) + d))\n");
    script([
      "git init -q --bare .git/modules/vendor/lib && git --git-dir=.git/modules/vendor/lib config core.bare false",
      "t=$(mktemp -d) && git -C $t init -q && echo 1 > $t/index.js && git -C $t add index.js && git -C $t -c user.name=a -c user.email=a@b commit -qm lib",
      'sha=$(git -C $t rev-parse HEAD) && git -C $t push -q "$PWD/.git/modules/vendor/lib" HEAD:refs/heads/main',
      "B=$(git -C $t rev-parse HEAD:index.js) && f=.git/modules/vendor/lib/objects/$(echo $B | cut -c1-2)/$(echo $B | cut -c3-) && python3 blob.py $f.new && rm -f $f && mv $f.new $f",
      `printf '[submodule "vendor/lib"]\\n\\tpath = vendor/lib\\n\\turl = https://github.invalid/lib.git\\n' > .gitmodules`,
      "git update-index --add --cacheinfo 160000,$sha,vendor/lib && git add .gitmodules && git -c user.name=a -c user.email=a@b commit -qm 'add lib'",
      "echo ok",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("ok");
    expect(out).toMatch(/modules\/vendor\/lib\/objects\/\S+ to \S+: its content is not the object its name says/);
    try {
      git(ws, "submodule", "update", "--init");
    } catch {
      // refused: the object is missing now
    }
    const lib = join(ws, "vendor", "lib", "index.js");
    expect(existsSync(lib) ? readFileSync(lib, "utf8") : "").not.toContain("PLANTED");
  });

  it("a nested checkout's objects moved behind a commondir it writes are checked whole: a rewritten blob there is moved aside (A38c-2)", async () => {
    const { ws, sh, git } = setUp(mode);
    const lib = join(ws, "lib");
    mkdirSync(lib);
    git(lib, "init", "-q", "-b", "main");
    writeFileSync(join(lib, "a.txt"), "good\n");
    git(lib, "add", ".");
    git(lib, "commit", "-qm", "init");
    writeFileSync(join(ws, "blob.py"), "import sys, zlib\nd = b'bad\\n'\nopen(sys.argv[1], 'wb').write(zlib.compress(b'blob %d\\0' % len(d) + d))\n");
    const out = await sh(
      "A=$(git -C lib rev-parse HEAD:a.txt) && mkdir -p .git/modules/libc && mv lib/.git/objects lib/.git/refs .git/modules/libc/ && echo ../../.git/modules/libc > lib/.git/commondir && f=.git/modules/libc/objects/$(echo $A | cut -c1-2)/$(echo $A | cut -c3-) && python3 blob.py $f.new && rm -f $f && mv $f.new $f && echo moved",
    );
    expect(out).toContain("moved");
    expect(out).toMatch(/modules\/libc\/objects\/\S+ to \S+: its content is not the object its name says/);
    let shown = "";
    try {
      shown = git(lib, "show", "HEAD:a.txt");
    } catch {
      // missing now: never the run's content
    }
    expect(shown).not.toContain("bad");
  });

  it("an index a command changed loses its cache-tree and untracked cache: a forged one hides neither a staged blob nor a planted file (A38c-5, A38c-4)", async () => {
    const { ws, sh, git } = setUp(mode);
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "a.js"), "good\n");
    git(ws, "add", ".");
    git(ws, "commit", "-qm", "src");
    writeFileSync(join(ws, "swap.py"), SWAP_ENTRY);
    const out = await sh(
      "G=$(git rev-parse HEAD:src/a.js) && E=$(echo evil | git hash-object -w --stdin) && git update-index --cacheinfo 100644,$E,src/a.js && git write-tree >/dev/null && python3 swap.py .git/index $E $G && echo planted > .npmrc && git -c core.untrackedCache=true status --short >/dev/null && git status --short",
    );
    expect(out).not.toContain("src/a.js");
    const index = readFileSync(join(ws, ".git", "index"));
    expect([index.includes("TREE"), index.includes("UNTR")]).toEqual([false, false]);
    expect(git(ws, "status", "--short")).toContain("?? .npmrc");
    writeFileSync(join(ws, "README.md"), "more\n");
    git(ws, "commit", "-qam", "docs");
    expect(git(ws, "show", "HEAD:src/a.js")).toBe("good\n");
  });

  it("a commit-graph it writes is moved aside: one forged to give HEAD another tree cannot hide a staged edit (A37c-5)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    userPackage(ws, git);
    writeFileSync(join(ws, "graph.py"), FORGE_GRAPH);
    script([
      `printf '{ "scripts": { "test": "touch pwned" } }\\n' > package.json`,
      "git add package.json && T=$(git write-tree) && U=$(git rev-parse HEAD)",
      "git commit-graph write --reachable && python3 graph.py $U $T",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toContain("patched");
    expect(out).toMatch(/deerflow moved \S*objects\/info\/commit-graph to \S*commit-graph\.deerflow-removed: the run added it/);
    expect(git(ws, "status", "--short")).toContain("M  package.json");
  });

  it("a commit-graph git gc writes is kept; one with changed-path filters (which git's verify does not check) is moved aside (A40c-2)", async () => {
    const { ws, sh, git } = setUp(mode);
    userPackage(ws, git);
    const gc = await sh("git gc -q && echo gc-done");
    expect(gc).toContain("gc-done");
    expect(gc).not.toContain("deerflow moved");
    expect(existsSync(join(ws, ".git", "objects", "info", "commit-graph"))).toBe(true);
    const bloom = await sh("git commit-graph write --reachable --changed-paths && echo written");
    expect(bloom).toMatch(/deerflow moved \S*objects\/info\/commit-graph to \S*commit-graph\.deerflow-removed: the run changed it/);
  });

  it("a loose object rewritten in place is moved aside: the user's git checkout does not write the run's content as the committed one (A37c-6)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    userPackage(ws, git);
    writeFileSync(join(ws, "blob.py"), "import sys, zlib\nd = b'{ \"scripts\": { \"test\": \"touch pwned\" } }\\n'\nopen(sys.argv[1], 'wb').write(zlib.compress(b'blob %d\\0' % len(d) + d))\n");
    script([
      "B=$(git rev-parse HEAD:package.json); f=.git/objects/$(echo $B | cut -c1-2)/$(echo $B | cut -c3-)",
      "python3 blob.py $f.new && rm -f $f && mv $f.new $f && chmod 444 $f",
      "echo '{}' > package.json",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toMatch(/deerflow moved \S*\.git\/objects\/\S+ to \S+\.deerflow-removed: its content is not the object its name says/);
    expect(discard(ws, git)).not.toContain("pwned");
  });

  it("a pack index naming the run's object by a committed blob's id is written again from its pack (A37c-6)", async () => {
    const { ws, sh, git, script } = setUp(mode);
    userPackage(ws, git);
    git(ws, "gc", "-q");
    writeFileSync(join(ws, "idx.py"), FORGE_IDX);
    script([
      `E=$(printf '{ "scripts": { "test": "touch pwned" } }\\n' | git hash-object -w --stdin); B=$(git rev-parse HEAD:package.json)`,
      "P=$(echo $E | git pack-objects -q .git/objects/pack/pack) && rm -f .git/objects/$(echo $E | cut -c1-2)/$(echo $E | cut -c3-)",
      "python3 idx.py .git/objects/pack/pack-$P.idx $B && echo '{}' > package.json",
    ]);
    const out = await sh("sh mk.sh");
    expect(out).toMatch(/it names objects of its pack by other objects' ids .* deerflow wrote its index again from the pack/);
    expect(discard(ws, git)).toBe(PACKAGE);
  });
});

const PACKAGE = '{ "scripts": { "test": "node test.js" } }\n';
/** The user's own committed package.json, before the run. */
function userPackage(ws: string, git: (cwd: string, ...args: string[]) => string): void {
  writeFileSync(join(ws, "package.json"), PACKAGE);
  git(ws, "add", "package.json");
  git(ws, "commit", "-qm", "package");
}
/** The user discards the run's edit to package.json; what the file holds then (git may fail: an object is gone). */
function discard(ws: string, git: (cwd: string, ...args: string[]) => string): string {
  try {
    git(ws, "checkout", "--", "package.json");
  } catch {
    // refused: nothing written
  }
  return existsSync(join(ws, "package.json")) ? readFileSync(join(ws, "package.json"), "utf8") : "";
}
/** Gives commit argv[1] the root tree argv[2] in .git/objects/info/commit-graph (its CDAT row), checksum made again. */
const FORGE_GRAPH = `import sys, hashlib, os
U, T = sys.argv[1], sys.argv[2]
p = '.git/objects/info/commit-graph'
d = bytearray(open(p, 'rb').read())
ch = {}
for i in range(d[6] + 1):
    o = 8 + 12 * i
    ch[bytes(d[o:o + 4])] = int.from_bytes(d[o + 4:o + 12], 'big')
oidl, cdat = ch[b'OIDL'], ch[b'CDAT']
for i in range((cdat - oidl) // 20):
    if d[oidl + 20 * i:oidl + 20 * i + 20].hex() == U:
        d[cdat + 36 * i:cdat + 36 * i + 20] = bytes.fromhex(T)
        print('patched')
d[-20:] = hashlib.sha1(bytes(d[:-20])).digest()
os.chmod(p, 0o644)
open(p, 'wb').write(bytes(d))
`;
/** Renames the one object of the pack index argv[1] to the id argv[2] (fan-out and checksum made again). */
const FORGE_IDX = `import sys, hashlib, os
p, oid = sys.argv[1], bytes.fromhex(sys.argv[2])
d = bytearray(open(p, 'rb').read())
for b in range(256):
    d[8 + 4 * b:12 + 4 * b] = (1 if b >= oid[0] else 0).to_bytes(4, 'big')
d[1032:1052] = oid
d[-20:] = hashlib.sha1(bytes(d[:-20])).digest()
os.chmod(p, 0o644)
open(p, 'wb').write(bytes(d))
`;
/** Rewrites the id of one index entry (argv[2] to argv[3]) in the entries only, checksum made again. */
const SWAP_ENTRY = `import sys, hashlib
p, a, b = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
d = open(p, 'rb').read()[:-20]
i = d.find(a)
assert 0 <= i < d.find(b'TREE')
d = d[:i] + b + d[i + len(b):]
open(p, 'wb').write(d + hashlib.sha1(d).digest())
`;
