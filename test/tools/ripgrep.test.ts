// The ripgrep runner with a real rg: killed when the caller has enough, on cancel and at its time limit (a FIFO
// makes rg block for ever, so the stop is proven by the event, not by a clock); an rg that errors is reported.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRipgrep, runRipgrep } from "../../src/tools/ripgrep.js";
import { makeRoot } from "./helpers.js";

const rg = findRipgrep();
let root: string;

beforeAll(() => {
  root = makeRoot("deerflow-rg-");
  mkdirSync(join(root, "d"));
  for (let i = 0; i < 200; i++) writeFileSync(join(root, "d", `f${String(i).padStart(3, "0")}.txt`), "hit\n");
  execFileSync("mkfifo", [join(root, "fifo")]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!rg)("runRipgrep", () => {
  it("stops rg when the caller has enough", async () => {
    const run = runRipgrep(rg!, ["--files", "--sort", "path", "-0", "d"], { cwd: root, separator: 0 });
    const got: string[] = [];
    for await (const r of run.records) {
      got.push(r.toString());
      if (got.length === 3) break;
    }
    expect(got).toEqual(["d/f000.txt", "d/f001.txt", "d/f002.txt"]);
    const done = await run.done;
    expect(done.code === 0 || done.stoppedBy === "limit").toBe(true);
  });

  it("a cancelled search kills rg, and one past its time limit is stopped", async () => {
    // rg opens the FIFO named on its command line and waits for a writer that never comes.
    const ac = new AbortController();
    const cancelled = runRipgrep(rg!, ["hit", "fifo"], { cwd: root, separator: 0x0a, signal: ac.signal });
    ac.abort();
    for await (const _ of cancelled.records) void _;
    expect((await cancelled.done).stoppedBy).toBe("abort");
    const slow = runRipgrep(rg!, ["hit", "fifo"], { cwd: root, separator: 0x0a, timeLimitMs: 300 });
    for await (const _ of slow.records) void _;
    expect((await slow.done).stoppedBy).toBe("time");
  });

  it("reports rg's error (exit 2 and its message)", async () => {
    const run = runRipgrep(rg!, ["--regexp", "(?<=x)y", "d"], { cwd: root, separator: 0x0a, rules: "*.log\n" });
    for await (const _ of run.records) void _;
    const done = await run.done;
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/look-?around|regex/i);
  });
});
