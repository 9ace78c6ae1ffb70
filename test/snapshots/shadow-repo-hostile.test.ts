// The shadow repository attacked as a hostile model would: a `.git` of its own in the workspace, .gitignore tricks,
// a directory swapped for a symlink that leads outside, names that look like options, globs or carry newlines, and a
// git killed mid-write (a stale index.lock).
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ShadowRepo } from "../../src/snapshots/shadow-repo.js";
import { WorkspaceStore } from "../../src/snapshots/workspace-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A thread's shadow repository with its own objects (threads from before the shared store), or in the store. */
function setup(mode: "own objects" | "shared store") {
  const root = mkdtempSync(join(tmpdir(), "deerflow-shadow-hostile-"));
  dirs.push(root);
  const ws = join(root, "ws");
  mkdirSync(ws);
  const data = join(root, "data");
  return { root, ws, repo: new ShadowRepo(join(data, "threads", "t1", "snapshots.git"), ws, mode === "shared store" ? WorkspaceStore.of(data, ws, "t1") : undefined) };
}

describe.each(["own objects", "shared store"] as const)("ShadowRepo under attack (%s)", (mode) => {
  it("a .git the model writes (with a hook, an fsmonitor and a config pointing elsewhere) is never used nor recorded, whatever .gitignore says", async () => {
    const { root, ws, repo } = setup(mode);
    writeFileSync(join(ws, "a.txt"), "one\n");
    const s1 = await repo.snapshot("before", []);
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(ws, ".git", "config"), `[core]\n\tworktree = ${root}\n\thooksPath = ${join(ws, ".git", "hooks")}\n\tfsmonitor = ${join(ws, ".git", "hooks", "pre-commit")}\n`);
    writeFileSync(join(ws, ".git", "hooks", "pre-commit"), `#!/bin/sh\ntouch ${join(root, "pwned")}\n`, { mode: 0o755 });
    writeFileSync(join(ws, ".gitignore"), "!.git\n!.git/\n!/.git/**\n");
    writeFileSync(join(ws, "a.txt"), "two\n");
    const s2 = await repo.snapshot("after", []);
    expect(await repo.changedFiles(s1.commit, s2.commit)).toEqual([".gitignore", "a.txt"]);
    await repo.restore(s1.commit, s2);
    await repo.snapshot("again", []);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(root, "pwned"))).toBe(false);
    // The model's .git is not the snapshots' business: left as it is.
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(true);
  });

  it("a directory swapped for a symlink to outside (and hidden by .gitignore) is never written through on restore", async () => {
    const { root, ws, repo } = setup(mode);
    const victim = join(root, "victim");
    mkdirSync(victim);
    mkdirSync(join(ws, "out"));
    writeFileSync(join(ws, "out", "x.txt"), "inside\n");
    const s1 = await repo.snapshot("before", []);
    rmSync(join(ws, "out"), { recursive: true });
    symlinkSync(victim, join(ws, "out"));
    writeFileSync(join(ws, ".gitignore"), "out\n");
    const now = await repo.snapshot("after", []);
    await repo.restore(s1.commit, now);
    expect(readdirSync(victim)).toEqual([]);
    expect(lstatSync(join(ws, "out")).isDirectory()).toBe(true);
    expect(readFileSync(join(ws, "out", "x.txt"), "utf8")).toBe("inside\n");
  });

  it("a .gitignore the run turned into a folder (or a symlink, which git does not follow) still decides: the user's ignored files the run never touched are kept", async () => {
    const { ws, repo } = setup(mode);
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, ".gitignore"), "*.env\nbuild/\n");
    writeFileSync(join(ws, "sub", ".gitignore"), "local.db\n");
    writeFileSync(join(ws, "a.txt"), "one\n");
    writeFileSync(join(ws, "prod.env"), "DB_PASSWORD=only-copy\n");
    mkdirSync(join(ws, "build"));
    writeFileSync(join(ws, "build", "out.js"), "built\n");
    writeFileSync(join(ws, "sub", "local.db"), "rows\n");
    const s1 = await repo.snapshot("before", []);
    // The run: both rule files become things that are not files, so nothing is ignored when it ends.
    rmSync(join(ws, ".gitignore"));
    mkdirSync(join(ws, ".gitignore"));
    writeFileSync(join(ws, ".gitignore", "keep"), "x\n");
    rmSync(join(ws, "sub", ".gitignore"));
    symlinkSync("../a.txt", join(ws, "sub", ".gitignore"));
    writeFileSync(join(ws, "created.txt"), "new\n");
    const now = await repo.snapshot("after", []);
    const r = await repo.restore(s1.commit, now);
    expect(r.restored).toEqual([".gitignore", ".gitignore/keep", "created.txt", "sub/.gitignore"]);
    expect(r.skipped).toEqual(["build/out.js", "prod.env", "sub/local.db"]);
    expect(readFileSync(join(ws, ".gitignore"), "utf8")).toBe("*.env\nbuild/\n");
    expect(readFileSync(join(ws, "sub", ".gitignore"), "utf8")).toBe("local.db\n");
    expect(readFileSync(join(ws, "prod.env"), "utf8")).toBe("DB_PASSWORD=only-copy\n");
    expect(readFileSync(join(ws, "build", "out.js"), "utf8")).toBe("built\n");
    expect(readFileSync(join(ws, "sub", "local.db"), "utf8")).toBe("rows\n");
    expect(existsSync(join(ws, "created.txt"))).toBe(false);
  });

  it("names that look like options or globs, or hold newlines and spaces, round-trip exactly", async () => {
    const { ws, repo } = setup(mode);
    const names = ["-rf", "--force", "*.js", "[ab].txt", "sp ace", "new\nline.txt", "ünï.txt", ":(glob)x"];
    const s1 = await repo.snapshot("empty", []);
    for (const n of names) writeFileSync(join(ws, n), `${n}\n`);
    writeFileSync(join(ws, "keep.js"), "keep\n");
    const s2 = await repo.snapshot("named", []);
    expect((await repo.changedFiles(s1.commit, s2.commit)).sort()).toEqual([...names, "keep.js"].sort());
    for (const n of names) writeFileSync(join(ws, n), "changed\n");
    const now = await repo.snapshot("changed", []);
    await repo.restore(s2.commit, now);
    for (const n of names) expect(readFileSync(join(ws, n), "utf8")).toBe(`${n}\n`);
    const back = await repo.snapshot("again", []);
    await repo.restore(s1.commit, back);
    expect(readdirSync(ws)).toEqual([]);
  });

  it("a git killed mid-write (stale index.lock) does not stop the next snapshot", async () => {
    const { ws, repo } = setup(mode);
    writeFileSync(join(ws, "a.txt"), "one\n");
    await repo.snapshot("first", []);
    writeFileSync(join(repo.target.gitDir, "index.lock"), "");
    writeFileSync(join(ws, "a.txt"), "two\n");
    const s = await repo.snapshot("second", []);
    expect(s.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});
