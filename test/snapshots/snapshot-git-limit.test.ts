// The workspace is the agent's: a FIFO named `.gitignore` made the shadow repository's `git status` wait for ever to
// open it, so `deerflow run` never ended and ignored SIGINT and SIGTERM (the thirty-third pass's A33a-6). Each snapshot
// git has a time limit, and a second signal stops every one still running. Real git, a real FIFO.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { git, snapshotGitLimits, stopSnapshotGit } from "../../src/snapshots/git.js";
import { processesMatching } from "../support/processes.js";

const root = mkdtempSync(join(tmpdir(), "deerflow-snapgit-"));
const workTree = join(root, "ws");
const gitDir = join(root, "shadow.git");
mkdirSync(workTree);
execFileSync("git", ["init", "-q", "--bare", gitDir]);
execFileSync("mkfifo", [join(workTree, ".gitignore")]);
const target = { gitDir, workTree };
const status = () => git(target, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  // stopSnapshotGit latches for the process: this file runs with a module graph of its own (test-kinds.ts), and
  // leaves it for the next file to load afresh.
  vi.resetModules();
});

describe("a snapshot's git in a workspace holding a FIFO .gitignore", () => {
  it("is stopped at its time limit, with a line that says why, and leaves no git behind", async () => {
    snapshotGitLimits.ms = 1_500;
    await expect(status()).rejects.toThrow(/git status took longer than 1.5 s \(a FIFO or a stuck file system/);
    expect(processesMatching(gitDir)).toEqual([]);
  });

  it("is stopped at once when deerflow is told to end, and so is every later one", async () => {
    snapshotGitLimits.ms = 600_000;
    const stuck = status();
    const started = Date.now();
    setTimeout(stopSnapshotGit, 300);
    await expect(stuck).rejects.toThrow(/git status was stopped: deerflow is ending/);
    expect(Date.now() - started).toBeLessThan(60_000);
    await expect(status()).rejects.toThrow(/stopped/);
    expect(processesMatching(gitDir)).toEqual([]);
  });
});
