// grep, glob and the file writes through the built CLI against a hostile model and repository (the adversarial
// pass on issue 21): patterns that backtrack catastrophically in JavaScript must stop with a note instead of
// blocking the process forever (with ripgrep on PATH a look-around pattern falls back to the JavaScript walker; without
// it every pattern does), and a rewrite keeps the file's owner, group and mode.
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MATCH_BUDGET_ENV } from "../../src/tools/bounded-regex.js";
import { useE2E } from "../support/e2e.js";
import { pathWithout, toolResults } from "../support/confinement.js";

const e2e = useE2E();

describe.each(["rg", "walker"] as const)("hostile patterns (%s)", (env) => {
  it("a backtracking grep or glob pattern stops with a note and keeps what matched before; the run goes on", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.userHome, "repo");
    const long = `${"a".repeat(60)}b`;
    mkdirSync(join(repo, long), { recursive: true });
    writeFileSync(join(repo, "0-first.txt"), "needle one\n");
    // (a+)+$ against 40 a's and a b: about 2^40 steps of backtracking per position.
    writeFileSync(join(repo, "z-trap.txt"), `${"a".repeat(40)}b\n`);
    writeFileSync(join(repo, long, "x.txt"), "x\n");
    const PATH = env === "rg" ? sb.env.PATH! : pathWithout(join(sb.userHome, "..", "bin-norg"), ["rg"]);
    e2e.server.push(
      {
        toolCalls: [
          // Look-around: ripgrep refuses it, so the JavaScript walker answers in both environments.
          { id: "grep", name: "grep", args: { pattern: "needle|(?=(a+)+$)b" } },
          // Ten stars in one folder name: the glob's regex backtracks on the 61-character folder name.
          { id: "glob", name: "glob", args: { pattern: `${"*a".repeat(10)}c/x.txt` } },
        ],
      },
      { toolCalls: [{ id: "after", name: "grep", args: { pattern: "needle" } }] },
      { content: "done" },
    );
    // A 1 s budget per batch instead of 5 s (the same stop, sooner); bounded-regex.test.ts holds the default.
    const r = await sb.run(["run", "--yes", "-w", repo, "search"], { env: { PATH, [MATCH_BUDGET_ENV]: "1000" }, timeoutMs: 240_000 });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.grep).toMatch(/^\/mnt\/user-data\/workspace\/0-first\.txt:1: needle one\n\[The search was stopped: the pattern took over 1 s .*backtracks.*Simplify the pattern\.\]$/s);
    expect(out.glob).toMatch(/^No paths match/);
    expect(toolResults(e2e.server.requests[2]!).after).toBe("/mnt/user-data/workspace/0-first.txt:1: needle one");
  }, 300_000);
});

describe("rewrites keep the file's metadata", () => {
  it.skipIf(process.getuid?.() !== 0)(
    "an edit as root keeps the owner, group and mode of a user's file",
    async () => {
      const sb = e2e.sandbox();
      const repo = join(sb.userHome, "repo");
      mkdirSync(repo, { recursive: true });
      const file = join(repo, "owned.txt");
      writeFileSync(file, "owned\n");
      chownSync(file, 1234, 2345);
      chmodSync(file, 0o640);
      e2e.server.push(
        { toolCalls: [{ id: "read", name: "read_file", args: { path: "owned.txt" } }] },
        { toolCalls: [{ id: "edit", name: "str_replace", args: { path: "owned.txt", old_str: "owned", new_str: "edited" } }] },
        { content: "done" },
      );
      const r = await sb.run(["run", "--yes", "-w", repo, "edit"], { timeoutMs: 180_000 });
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      expect(toolResults(e2e.server.requests[2]!).edit).toMatch(/^Replaced 1 occurrence/);
      const st = statSync(file);
      expect(readFileSync(file, "utf8")).toBe("edited\n");
      expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1234, 2345, 0o640]);
    },
    240_000,
  );
});
