// The guards' repairs against a background job that changes the folders on the way (repair-within.ts): a folder
// swapped for a link to the home while a planted `.git` is moved aside never moves the home's `.git` (the twentieth
// pass's RW1b, with a real child process swapping as fast as it can), and each act refuses a folder that is now
// outside, keeps what an earlier move set aside, and never writes through a link.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { plainGit } from "../../src/sandbox/plain-git.js";
import { createFileWithin, editFileWithin, moveAsideWithin, removeFileWithin } from "../../src/sandbox/repair-within.js";
import { startLinkSwapper } from "../support/link-swapper.js";
import { until } from "../support/wait.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** A workspace and, beside it, a home with a `.git` of its own (the user's dotfiles repository). */
function world() {
  const root = mkdtempSync(join(tmpdir(), "deerflow-repair-"));
  dirs.push(root);
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(join(home, ".git"), { recursive: true });
  writeFileSync(join(home, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = me\n");
  mkdirSync(join(ws, "x", ".git"), { recursive: true });
  return { root, ws, home };
}

// A background job: swaps ws/x between the real folder (with a planted .git, planted again each time) and a link to
// the home, each step one system call, and clears what was moved aside so names never run out.
const SWAPPER = `
const fs = require("node:fs"), path = require("node:path");
const [ws, home] = process.argv.slice(1);
const x = path.join(ws, "x"), away = path.join(ws, "x.d");
let swaps = 0;
for (;;) {
  fs.renameSync(x, away);
  fs.symlinkSync(home, x);
  for (const n of fs.readdirSync(away)) if (n.startsWith(".git.deerflow-removed")) fs.rmSync(path.join(away, n), { recursive: true });
  fs.mkdirSync(path.join(away, ".git"), { recursive: true });
  fs.unlinkSync(x);
  fs.renameSync(away, x);
  if (++swaps === 100) process.stdout.write("swapping\\n");
}
`;

async function startSwapper(ws: string, home: string): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SWAPPER, ws, home], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  await until(() => out.includes("swapping") || child.exitCode !== null, "the swapper to start");
  if (child.exitCode !== null) throw new Error(`the swapper exited (${child.exitCode})`);
  return () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
}

describe("the guards' repairs while a job changes the folders on the way", () => {
  it("a folder swapped for a link to the home while a planted .git is moved aside never moves the home's .git (RW1b)", async () => {
    const { ws, home } = world();
    const stop = await startSwapper(ws, home);
    const seen = new Set<string>();
    try {
      // At least 2,000 moves, and on until both sides of the swap were met (a busy machine schedules the swapper late).
      const both = () => seen.has("moved") && [...seen].some((s) => /outside where deerflow repairs/.test(s));
      for (let i = 0; i < 2000 || (!both() && i < 500_000); i++) {
        try {
          moveAsideWithin(join(ws, "x", ".git"), [ws]);
          seen.add("moved");
        } catch (err) {
          seen.add((err as Error).message.replace(/ \S*\/home\b/, " <home>").replace(/'.*'/, "<path>"));
        }
      }
    } finally {
      await stop();
    }
    expect(readdirSync(home).sort()).toEqual([".git", ".gitconfig"]);
    expect(readFileSync(join(home, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    // Both sides of the swap were met: the race was run, not missed.
    expect(seen).toContain("moved");
    expect([...seen].some((s) => /outside where deerflow repairs/.test(s))).toBe(true);
  }, 120_000);

  it("refuses a folder that is a link to outside now, for every act", () => {
    const { root, ws, home } = world();
    rmSync(join(ws, "x"), { recursive: true });
    symlinkSync(home, join(ws, "x"));
    const outside = /its folder is now \S+home, outside where deerflow repairs/;
    expect(() => moveAsideWithin(join(ws, "x", ".git"), [ws])).toThrow(outside);
    expect(() => removeFileWithin(join(ws, "x", ".gitconfig"), [ws])).toThrow(outside);
    expect(() => createFileWithin(join(ws, "x", "commondir"), [ws], "../evil\n")).toThrow(outside);
    expect(() => editFileWithin(join(ws, "x", ".gitconfig"), [ws], (f) => plainGit(["config", "--file", f, "--unset-all", "user.name"]))).toThrow(outside);
    expect(readdirSync(home).sort()).toEqual([".git", ".gitconfig"]);
    expect(readFileSync(join(home, ".gitconfig"), "utf8")).toContain("name = me");
    expect(existsSync(join(root, "commondir"))).toBe(false);
  });

  it("keeps what an earlier move set aside: the next free name is taken, nothing is deleted", () => {
    const { ws } = world();
    const git = join(ws, "x", ".git");
    writeFileSync(join(git, "first"), "1");
    expect(moveAsideWithin(git, [ws])).toBe(`${git}.deerflow-removed`);
    mkdirSync(git);
    writeFileSync(join(git, "second"), "2");
    expect(moveAsideWithin(git, [ws])).toBe(`${git}.deerflow-removed-2`);
    expect(readdirSync(join(ws, "x")).sort()).toEqual([".git.deerflow-removed", ".git.deerflow-removed-2"]);
    expect(readdirSync(`${git}.deerflow-removed`)).toEqual(["first"]);
    expect(() => moveAsideWithin(git, [ws])).toThrow(/it is gone/);
  });

  it("a link at the name is removed, not followed, and a new file is never written through one", () => {
    const { ws, home } = world();
    const at = join(ws, "x", "config");
    symlinkSync(join(home, ".gitconfig"), at);
    expect(() => createFileWithin(at, [ws], "[core]\n")).toThrow(/EEXIST/);
    expect(readFileSync(join(home, ".gitconfig"), "utf8")).toBe("[user]\n\tname = me\n");
    removeFileWithin(at, [ws]);
    expect(existsSync(join(home, ".gitconfig"))).toBe(true);
    expect(lstatSync(at, { throwIfNoEntry: false })).toBeUndefined();
    createFileWithin(at, [ws], "[core]\n\tbare = false\n");
    // git edits the file through the folder that was checked.
    writeFileSync(at, "[core]\n\tfsmonitor = ./x\n");
    editFileWithin(at, [ws], (f) => plainGit(["config", "--file", f, "--unset-all", "core.fsmonitor"]));
    expect(readFileSync(at, "utf8")).not.toContain("fsmonitor");
    expect(readdirSync(join(ws, "x")).sort()).toEqual([".git", "config"]);
  });

  it("a config edit never goes through a link at the file's own name: git is given a private copy (the twenty-first pass's A21-1)", async () => {
    const { ws, home } = world();
    const at = join(ws, "x", "config");
    const gitconfig = join(home, ".gitconfig");
    writeFileSync(gitconfig, "[core]\n\teditor = myeditor\n[credential]\n\thelper = store\n");
    symlinkSync(gitconfig, at);
    const unset = (f: string) => plainGit(["config", "--file", f, "--unset-all", "core.editor"]);
    expect(() => editFileWithin(at, [ws], unset)).toThrow(/ELOOP/);
    rmSync(at);
    // A job swapping the name between a planted config and a link to ~/.gitconfig as fast as it can.
    const swapper = await startLinkSwapper(join(ws, "x"), "config", gitconfig, "[core]\n\teditor = evil\n");
    const seen = new Set<string>();
    try {
      for (let i = 0; i < 200 || (seen.size < 2 && i < 5000); i++) {
        try {
          editFileWithin(at, [ws], unset);
          seen.add("edited");
        } catch (err) {
          seen.add(/ELOOP|not a regular file/.test((err as Error).message) ? "refused" : (err as Error).message);
        }
      }
    } finally {
      await swapper.stop();
    }
    expect(readFileSync(gitconfig, "utf8")).toBe("[core]\n\teditor = myeditor\n[credential]\n\thelper = store\n");
    expect(seen).toContain("edited");
    expect(seen).toContain("refused");
  }, 120_000);
});
