// The shadow repository against real git and real directories: what a snapshot records, what a restore puts back,
// and what neither may touch (the user's own .git, ignored files, oversize files, nested repositories, symlink targets).
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, ShadowRepo } from "../../src/snapshots/shadow-repo.js";
import { WorkspaceStore } from "../../src/snapshots/workspace-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "deerflow-shadow-"));
  dirs.push(d);
  return d;
}

const userGit = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...args], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });

/** Every file under `dir` (relative path → sha256 of its bytes, or the link target). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[relative(dir, p)] = `-> ${readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

type Mode = "own objects" | "shared store";

/** A thread's shadow repository: with its own objects (as threads from before the shared store), or in the store. */
function setup(mode: Mode) {
  const root = tmp();
  const ws = join(root, "repo");
  mkdirSync(ws);
  const data = join(root, "data");
  const repo = new ShadowRepo(join(data, "threads", "t1", "snapshots.git"), ws, mode === "shared store" ? WorkspaceStore.of(data, ws, "t1") : undefined);
  return { root, ws, repo };
}

describe.each(["own objects", "shared store"] as const)("ShadowRepo (%s)", (mode) => {
  it("restores edited, created and deleted files byte for byte, including CRLF text under eol attributes", async () => {
    const { ws, repo } = setup(mode);
    writeFileSync(join(ws, "a.txt"), "one\n");
    writeFileSync(join(ws, "crlf.txt"), "x\r\ny\n");
    writeFileSync(join(ws, ".gitattributes"), "* text eol=crlf\n");
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "keep.js"), "keep\n");
    const before = tree(ws);
    const s1 = await repo.snapshot("before run 1", ["refs/deerflow/runs/r1"]);

    writeFileSync(join(ws, "a.txt"), "two\n");
    rmSync(join(ws, "crlf.txt"));
    mkdirSync(join(ws, "deep", "er"), { recursive: true });
    writeFileSync(join(ws, "deep", "er", "new.js"), "new\n");
    const s2 = await repo.snapshot("before run 2", ["refs/deerflow/runs/r2"]);
    expect((await repo.changedFiles(s1.commit, s2.commit)).sort()).toEqual(["a.txt", "crlf.txt", "deep/er/new.js"]);

    const now = await repo.snapshot("rewind", ["refs/deerflow/rewound/x"]);
    const r = await repo.restore(s1.commit, now);
    expect(r.restored).toEqual(["a.txt", "crlf.txt", "deep/er/new.js"]);
    expect(tree(ws)).toEqual(before);
    expect(existsSync(join(ws, "deep"))).toBe(false);
    // What was undone is still there.
    expect(await repo.resolve("refs/deerflow/rewound/x")).toBe(s2.commit);
  });

  it("a listing (which stages the work tree) before a snapshot does not hide the change from it", async () => {
    const { ws, repo } = setup(mode);
    writeFileSync(join(ws, "a.txt"), "one\n");
    const s1 = await repo.snapshot("before run 1", []);
    writeFileSync(join(ws, "a.txt"), "two\n");
    expect(await repo.changedFiles(s1.commit)).toEqual(["a.txt"]);
    const now = await repo.snapshot("rewind", []);
    expect(now.commit).not.toBe(s1.commit);
    expect((await repo.restore(s1.commit, now)).restored).toEqual(["a.txt"]);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
  });

  it("never touches the user's .git: status, index, config and objects are identical after snapshot and restore", async () => {
    const { ws, repo } = setup(mode);
    userGit(ws, "init", "-q");
    writeFileSync(join(ws, "a.txt"), "one\n");
    writeFileSync(join(ws, ".gitignore"), "secret.env\n");
    writeFileSync(join(ws, "secret.env"), "TOKEN=1\n");
    userGit(ws, "add", "-A");
    userGit(ws, "commit", "-qm", "init");
    writeFileSync(join(ws, "a.txt"), "staged\n");
    userGit(ws, "add", "a.txt");
    writeFileSync(join(ws, "a.txt"), "staged and then edited\n");
    const gitTree = tree(join(ws, ".git"));
    const status = userGit(ws, "status", "--porcelain");

    const s1 = await repo.snapshot("before", ["refs/deerflow/runs/r1"]);
    writeFileSync(join(ws, "a.txt"), "model wrote this\n");
    writeFileSync(join(ws, "secret.env"), "TOKEN=2\n");
    const now = await repo.snapshot("rewind", []);
    await repo.restore(s1.commit, now);

    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("staged and then edited\n");
    // Ignored: never recorded, so never restored.
    expect(readFileSync(join(ws, "secret.env"), "utf8")).toBe("TOKEN=2\n");
    expect(userGit(ws, "status", "--porcelain")).toBe(status);
    expect(tree(join(ws, ".git"))).toEqual(gitTree);
  });

  it("is not redirected by GIT_* variables of the user's environment", async () => {
    const { root, ws, repo } = setup(mode);
    const decoy = join(root, "decoy.git");
    userGit(root, "init", "-q", "--bare", decoy);
    const saved = { ...process.env };
    Object.assign(process.env, { GIT_DIR: decoy, GIT_INDEX_FILE: join(root, "decoy-index"), GIT_WORK_TREE: root, GIT_OBJECT_DIRECTORY: join(decoy, "objects") });
    try {
      writeFileSync(join(ws, "a.txt"), "one\n");
      await repo.snapshot("before", []);
    } finally {
      process.env = saved;
    }
    expect(readdirSync(join(decoy, "objects")).filter((d) => d.length === 2)).toEqual([]);
    expect(existsSync(join(root, "decoy-index"))).toBe(false);
  });

  it("leaves oversize files, nested repositories and symlink targets alone", async () => {
    const { root, ws, repo } = setup(mode);
    const outside = join(root, "outside.txt");
    writeFileSync(outside, "outside\n");
    writeFileSync(join(ws, "a.txt"), "one\n");
    const s1 = await repo.snapshot("before", []);

    writeFileSync(join(ws, "big.bin"), Buffer.alloc(MAX_FILE_BYTES + 1));
    symlinkSync(outside, join(ws, "link"));
    mkdirSync(join(ws, "vendor"));
    userGit(join(ws, "vendor"), "init", "-q");
    writeFileSync(join(ws, "vendor", "lib.js"), "lib\n");
    const now = await repo.snapshot("rewind", []);
    expect(now.oversize).toEqual(["big.bin"]);
    const r = await repo.restore(s1.commit, now);

    expect(now.nested).toEqual(["vendor/"]);
    expect(r.restored).toEqual(["link"]);
    expect(existsSync(join(ws, "link"))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
    expect(statSync(join(ws, "big.bin")).size).toBe(MAX_FILE_BYTES + 1);
    expect(readFileSync(join(ws, "vendor", "lib.js"), "utf8")).toBe("lib\n");
  });

  it("a restore leaves the paths it is told are the user's edits (even a deleted one) unless forced, and prunes only the directories it emptied", async () => {
    const { ws, repo } = setup(mode);
    writeFileSync(join(ws, "a.txt"), "a\n");
    writeFileSync(join(ws, "gone-by-hand.txt"), "was here\n");
    mkdirSync(join(ws, "keep"));
    writeFileSync(join(ws, "keep", "stay.txt"), "stay\n");
    const before = await repo.snapshot("before", []);
    // The run: edits a.txt, creates gen/ (many files) and keep/new.txt.
    writeFileSync(join(ws, "a.txt"), "run\n");
    mkdirSync(join(ws, "gen", "deep"), { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(ws, "gen", "deep", `f${i}.txt`), `${i}\n`);
    writeFileSync(join(ws, "keep", "new.txt"), "new\n");
    repo.setLeft((await repo.snapshot("after the run", [])).commit);
    // By hand after the run: a.txt edited, a file deleted, one created.
    writeFileSync(join(ws, "a.txt"), "mine\n");
    rmSync(join(ws, "gone-by-hand.txt"));
    writeFileSync(join(ws, "mine.txt"), "mine\n");
    const now = await repo.snapshot("now", []);
    const edited = await repo.changedFiles(repo.leftCommit()!, now.commit);
    expect(edited).toEqual(["a.txt", "gone-by-hand.txt", "mine.txt"]);

    const r = await repo.restore(before.commit, now, { edited, force: false });
    expect(r.edited).toEqual(["a.txt", "gone-by-hand.txt", "mine.txt"]);
    expect(r.restored).toHaveLength(201);
    expect(tree(ws)).toEqual({ "a.txt": sha("mine\n"), "keep/stay.txt": sha("stay\n"), "mine.txt": sha("mine\n") });
    expect([existsSync(join(ws, "gen")), existsSync(join(ws, "keep"))]).toEqual([false, true]);

    // Forced: the edits go too (they are in the snapshot taken first).
    const again = await repo.snapshot("again", []);
    const forced = await repo.restore(before.commit, again, { edited, force: true });
    expect(forced.restored).toEqual(["a.txt", "gone-by-hand.txt", "mine.txt"]);
    expect(readFileSync(join(ws, "gone-by-hand.txt"), "utf8")).toBe("was here\n");
    expect(existsSync(join(ws, "mine.txt"))).toBe(false);
    repo.clearLeft();
    expect(repo.leftCommit()).toBeUndefined();
  });
});
