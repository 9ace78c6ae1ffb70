// The snapshot store the threads of one workspace share, against real git and real directories: a new thread starts
// from what another already hashed (and still records the files as they are), threads never see nor move each
// other's snapshots, two of them snapshot at once, a git killed while it writes into the store leaves it usable, and
// the store goes with the last thread that used it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, ShadowRepo } from "../../src/snapshots/shadow-repo.js";
import { WorkspaceStore } from "../../src/snapshots/workspace-store.js";
import { processesMatching } from "../support/processes.js";
import { until } from "../support/wait.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(files: number) {
  const root = mkdtempSync(join(tmpdir(), "deerflow-store-"));
  dirs.push(root);
  const ws = join(root, "ws");
  for (let d = 0; d < 10; d++) mkdirSync(join(ws, "src", `d${d}`), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(ws, "src", `d${i % 10}`, `f${i}.txt`), `file ${i}\n`);
  const data = join(root, "data");
  const thread = (id: string) => new ShadowRepo(join(data, "threads", id, "snapshots.git"), ws, WorkspaceStore.of(data, ws, id));
  return { root, ws, data, store: WorkspaceStore.dirFor(data, ws), thread };
}

/** git as a person inspecting a thread's shadow repository by hand (no environment of ours). */
const inspect = (gitDir: string, ...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", env: { PATH: process.env.PATH!, GIT_CONFIG_NOSYSTEM: "1" } });
const files = (repo: ShadowRepo, commit: string) => inspect(repo.target.gitDir, "ls-tree", "-r", "--name-only", commit).trim().split("\n").sort();

/** Every loose object file of the store, with its modification time (a git at work renames its temporary files
 * away while we look: those are skipped). */
function objectTimes(store: string): Map<string, number> {
  const out = new Map<string, number>();
  const objects = join(store, "objects");
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  for (const d of list(objects).filter((n) => n.length === 2))
    for (const f of list(join(objects, d))) {
      const stat = statSync(join(objects, d, f), { throwIfNoEntry: false });
      if (stat) out.set(d + f, stat.mtimeMs);
    }
  return out;
}

describe("the snapshot store of one workspace", () => {
  it("a new thread starts from what another hashed: only what changed since is hashed, and its snapshot is the files as they are", async () => {
    const { root, ws, store, thread } = setup(400);
    writeFileSync(join(ws, ".gitignore"), "*.log\n");
    writeFileSync(join(ws, "debug.log"), "ignored\n");
    writeFileSync(join(ws, "big.bin"), Buffer.alloc(MAX_FILE_BYTES + 1));
    mkdirSync(join(ws, "vendor"));
    execFileSync("git", ["init", "-q"], { cwd: join(ws, "vendor") });
    writeFileSync(join(ws, "vendor", "lib.js"), "lib\n");
    // The workspace's own .git is data: its hooks and fsmonitor must never run.
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(ws, ".git", "hooks", "pre-commit"), `#!/bin/sh\ntouch ${join(root, "pwned")}\n`, { mode: 0o755 });
    writeFileSync(join(ws, ".git", "config"), `[core]\n\tfsmonitor = ${join(ws, ".git", "hooks", "pre-commit")}\n\thooksPath = ${join(ws, ".git", "hooks")}\n`);

    const a = thread("a");
    const sa = await a.snapshot("a: first", []);
    expect([sa.oversize, sa.nested]).toEqual([["big.bin"], ["vendor/"]]);
    const recorded = files(a, sa.commit);
    expect(recorded).toHaveLength(401);
    expect(recorded.filter((p) => !p.startsWith("src/"))).toEqual([".gitignore"]);
    // The objects are the store's, not the thread's.
    expect(readdirSync(join(a.target.gitDir, "objects")).sort()).toEqual(["info", "pack"]);

    // Every object the store holds now looks old; git freshens the time of an object it writes again.
    const old = new Date("2001-01-01T00:00:00Z");
    for (const id of objectTimes(store).keys()) utimesSync(join(store, "objects", id.slice(0, 2), id.slice(2)), old, old);
    writeFileSync(join(ws, "src", "d0", "f0.txt"), "changed\n");
    rmSync(join(ws, "src", "d1", "f1.txt"));
    writeFileSync(join(ws, "new.txt"), "new\n");

    const b = thread("b");
    const sb = await b.snapshot("b: first", []);
    const touched = [...objectTimes(store).values()].filter((t) => t > old.getTime());
    // Two blobs, the trees above them, b's own commits: not the 400 files again.
    expect(touched.length).toBeGreaterThan(0);
    expect(touched.length).toBeLessThan(12);
    expect(files(b, sb.commit)).toEqual([...recorded.filter((p) => p !== "src/d1/f1.txt"), "new.txt"].sort());
    expect(inspect(b.target.gitDir, "show", `${sb.commit}:src/d0/f0.txt`)).toBe("changed\n");
    expect([sb.oversize, sb.nested]).toEqual([["big.bin"], ["vendor/"]]);
    expect(existsSync(join(root, "pwned"))).toBe(false);

    // b's snapshots rewind b's way, like any thread's.
    writeFileSync(join(ws, "src", "d2", "f2.txt"), "by b's run\n");
    const now = await b.snapshot("b: now", []);
    expect((await b.restore(sb.commit, now)).restored).toEqual(["src/d2/f2.txt"]);
    expect(readFileSync(join(ws, "src", "d2", "f2.txt"), "utf8")).toBe("file 2\n");
  });

  it("threads never see nor move each other's snapshots", async () => {
    const { ws, thread } = setup(20);
    const a = thread("a");
    const b = thread("b");
    const a1 = await a.snapshot("before a's run: secret plan", ["refs/deerflow/runs/run-a1"]);
    writeFileSync(join(ws, "a.txt"), "a's run\n");
    a.setLeft((await a.snapshot("after a's run", [])).commit);
    const b1 = await b.snapshot("before b's run", ["refs/deerflow/runs/run-b1"]);
    writeFileSync(join(ws, "b.txt"), "b's run\n");
    b.setLeft((await b.snapshot("after b's run", [])).commit);

    const refs = (repo: ShadowRepo) => inspect(repo.target.gitDir, "for-each-ref", "--format=%(refname)").trim().split("\n").sort();
    expect(refs(a)).toEqual(["refs/deerflow/head", "refs/deerflow/left", "refs/deerflow/runs/run-a1"]);
    expect(refs(b)).toEqual(["refs/deerflow/head", "refs/deerflow/left", "refs/deerflow/runs/run-b1"]);
    // b's history is b's own, though it started from a's files.
    expect(inspect(b.target.gitDir, "log", "--format=%s", "refs/deerflow/head")).not.toContain("secret plan");
    expect(files(b, b1.commit)).toContain("a.txt");

    // a rewinds: the files go back, b's refs stay where they were.
    const bRefs = [b.leftCommit(), await b.resolve("refs/deerflow/head"), await b.resolve("refs/deerflow/runs/run-b1")];
    const now = await a.snapshot("rewind", []);
    await a.restore(a1.commit, now, { edited: await a.changedFiles(a.leftCommit()!, now.commit), force: false });
    expect([existsSync(join(ws, "a.txt")), existsSync(join(ws, "b.txt"))]).toEqual([false, true]);
    expect([b.leftCommit(), await b.resolve("refs/deerflow/head"), await b.resolve("refs/deerflow/runs/run-b1")]).toEqual(bRefs);
  });

  it("two threads snapshot at once, and each one's snapshots hold the files", async () => {
    const { ws, thread } = setup(300);
    const a = thread("a");
    const b = thread("b");
    const first = await Promise.all([a.snapshot("a0", []), b.snapshot("b0", [])]);
    for (let round = 1; round <= 4; round++) {
      for (let i = 0; i < 300; i += 7) writeFileSync(join(ws, "src", `d${i % 10}`, `f${i}.txt`), `round ${round}\n`);
      writeFileSync(join(ws, `round${round}.txt`), `${round}\n`);
      const [sa, sb] = await Promise.all([a.snapshot(`a${round}`, []), b.snapshot(`b${round}`, [])]);
      const tree = (repo: ShadowRepo, c: string) => inspect(repo.target.gitDir, "rev-parse", `${c}^{tree}`).trim();
      expect(tree(a, sa.commit)).toBe(tree(b, sb.commit));
      expect(inspect(b.target.gitDir, "show", `${sb.commit}:round${round}.txt`)).toBe(`${round}\n`);
    }
    const now = await b.snapshot("rewind", []);
    await b.restore(first[1].commit, now);
    expect(readFileSync(join(ws, "src", "d0", "f0.txt"), "utf8")).toBe("file 0\n");
    expect(existsSync(join(ws, "round4.txt"))).toBe(false);
    expect(inspect(a.target.gitDir, "fsck", "--no-dangling", first[0].commit)).toBe("");
  });

  it("a git killed (SIGKILL) while it writes the first snapshot into the store leaves it usable", async () => {
    const { root, ws, thread } = setup(3000);
    const a = thread("a");
    const killed = a.snapshot("killed", []);
    // Should the test fail before it awaits this, the rejection is still its own, not an unhandled one.
    killed.catch(() => {});
    // The `git add` writing the objects, found by its command line (one that has just ended is not it).
    const cmdline = (pid: string) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      } catch {
        return [];
      }
    };
    const adding = () => processesMatching(a.target.gitDir).filter((pid) => cmdline(pid).includes("add"));
    await until(() => adding().length > 0 && objectTimes(WorkspaceStore.dirFor(join(root, "data"), ws)).size > 0, "git add to write objects", undefined, 5);
    for (const pid of adding()) process.kill(Number(pid), "SIGKILL");
    await expect(killed).rejects.toThrow(/git add failed/);

    const again = await a.snapshot("again", ["refs/deerflow/runs/r1"]);
    expect(files(a, again.commit)).toHaveLength(3000);
    writeFileSync(join(ws, "src", "d0", "f0.txt"), "run\n");
    const now = await a.snapshot("now", []);
    await a.restore(again.commit, now);
    expect(readFileSync(join(ws, "src", "d0", "f0.txt"), "utf8")).toBe("file 0\n");
    // And a new thread starts from it.
    const b = thread("b");
    expect(files(b, (await b.snapshot("b", [])).commit)).toHaveLength(3000);
    expect(existsSync(join(root, "data", "snapshots"))).toBe(true);
  });

  it("goes with the last thread that used it; a thread whose store went takes a whole snapshot again", async () => {
    const { ws, data, store, thread } = setup(10);
    const a = thread("a");
    const b = thread("b");
    await a.snapshot("a", []);
    const b1 = await b.snapshot("b", []);

    WorkspaceStore.leaveAll(data, "a");
    expect(existsSync(store)).toBe(true);
    writeFileSync(join(ws, "x.txt"), "x\n");
    const now = await b.snapshot("now", []);
    await b.restore(b1.commit, now);
    expect(existsSync(join(ws, "x.txt"))).toBe(false);

    WorkspaceStore.leaveAll(data, "b");
    expect(readdirSync(join(data, "snapshots"))).toEqual([]);
    // b's repository outlived its store (it joined as the last other thread left): its next snapshot is whole.
    const again = await b.snapshot("again", []);
    expect(files(b, again.commit)).toHaveLength(10);
    expect(existsSync(join(store, "threads", "b"))).toBe(true);
  });
});
