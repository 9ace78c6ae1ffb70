// grep, glob, ls, read_file and str_replace through the built CLI bound (-w) to a generated repository
// (test/support/repo-fixture.ts), in three environments: ripgrep and bubblewrap on PATH; ripgrep left out of PATH
// (the JavaScript walker); and neither (the walker, the shell unconfined). The search answers are the same in all
// three; pnpm's hard-linked node_modules is readable when the shell is confined and refused, with the reason and
// what to install, when it is not; an edit replaces the file, so the store's copy is untouched.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { HAS_BWRAP, pathWithout, toolResults } from "../support/confinement.js";
import { GREP_HITS, NEEDLE, STORE_TEXT, VISIBLE, makeRepo } from "../support/repo-fixture.js";

const e2e = useE2E();
const HAS_RG = ["/usr/bin/rg", "/usr/local/bin/rg", "/bin/rg"].some((p) => existsSync(p));
const W = "/mnt/user-data/workspace";

type Env = "rg+bwrap" | "no-rg" | "no-rg-no-bwrap";
const envs: Env[] = [...(HAS_RG && HAS_BWRAP ? (["rg+bwrap"] as const) : []), ...(HAS_BWRAP ? (["no-rg"] as const) : []), "no-rg-no-bwrap"];

describe.each(envs)("search a real-looking repository through the CLI (%s)", (env) => {
  it("same results in path order, ignored files skipped, links handled by the confinement", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.userHome, "repo");
    const { storeFile } = makeRepo(repo, join(sb.userHome, "..", "outside"));
    const confined = env !== "no-rg-no-bwrap";
    const PATH = env === "rg+bwrap" ? sb.env.PATH! : pathWithout(join(sb.userHome, "..", `bin-${env}`), env === "no-rg" ? ["rg"] : ["rg", "bwrap"]);
    e2e.server.push(
      {
        toolCalls: [
          { id: "glob", name: "glob", args: { pattern: "**/*" } },
          { id: "grep", name: "grep", args: { pattern: NEEDLE, case_sensitive: true } },
          { id: "grepOut", name: "grep", args: { pattern: NEEDLE, path: "out-link" } },
          { id: "ls", name: "ls", args: { path: "." } },
          { id: "read", name: "read_file", args: { path: "node_modules/zod/index.js" } },
        ],
      },
      { toolCalls: [{ id: "edit", name: "str_replace", args: { path: "node_modules/zod/index.js", old_str: "from zod", new_str: "patched" } }] },
      { content: "done" },
    );
    // Without bwrap, --yes needs the explicit flag (the commands run unconfined).
    const r = await sb.run(["run", "--yes", ...(env === "no-rg-no-bwrap" ? ["--dangerously-run-unconfined"] : []), "-w", repo, "search"], { env: { PATH }, timeoutMs: 180_000 });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.glob).toBe(VISIBLE.map((p) => `${W}/${p}`).join("\n"));
    expect(out.grep!.split(/\n(?=\/mnt)/).map((l) => l.slice(0, l.indexOf(": ")))).toEqual(GREP_HITS.map(([p, n]) => `${W}/${p}:${n}`));
    expect(out.grepOut).toMatch(/outside/);
    expect(out.grepOut).not.toContain("OUTSIDE-SECRET");
    expect(out.ls).not.toMatch(/build|generated|node_modules/);
    expect(out.ls).toMatch(/entries ignored by \.gitignore\/\.ignore not shown/);
    const edit = toolResults(e2e.server.requests[2]!).edit!;
    if (confined) {
      expect(out.read).toBe(`     1→${STORE_TEXT.trim()}`);
      expect(edit).not.toMatch(/refus|hard link/i);
      expect(readFileSync(join(repo, "node_modules", ".pnpm", "zod@3.23.8", "node_modules", "zod", "index.js"), "utf8")).toContain("patched");
    } else {
      expect(out.read).toMatch(/2 hard links.*unconfined.*Install the `bubblewrap` package/s);
      expect(edit).toMatch(/hard links/);
    }
    // pnpm's store copy is never written through the link.
    expect(readFileSync(storeFile, "utf8")).toBe(STORE_TEXT);
    expect(statSync(storeFile).nlink).toBe(confined ? 1 : 2);
  }, 240_000);
});
