// `deerflow chat` loads its runtime from the bundle (scripts/bundle-runtime.mjs): grep, glob and ls there too run on
// ripgrep with the repository's ignore rules (the `ignore` package bundled), in a real terminal, bound (-w) to a
// generated repository.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { toolResults } from "../support/confinement.js";
import { GREP_HITS, NEEDLE, VISIBLE, makeRepo } from "../support/repo-fixture.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const W = "/mnt/user-data/workspace";

describe("search in the chat", () => {
  it("grep, glob and ls answer from the bundled runtime as from `run`", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.userHome, "repo");
    makeRepo(repo, join(sb.userHome, "..", "outside"));
    e2e.server.push(
      {
        toolCalls: [
          { id: "glob", name: "glob", args: { pattern: "**/*" } },
          { id: "grep", name: "grep", args: { pattern: NEEDLE, case_sensitive: true } },
          { id: "ls", name: "ls", args: { path: "." } },
        ],
      },
      { content: "Searched the repository." },
    );
    const t = tui.spawn(sb, ["chat", "-w", repo]);
    await waitReady(t);
    await submit(t, "find the needle");
    await t.waitFor("Searched the repository.");
    const out = toolResults(e2e.server.requests[1]!);
    expect(out.glob).toBe(VISIBLE.map((p) => `${W}/${p}`).join("\n"));
    expect(out.grep!.split(/\n(?=\/mnt)/).map((l) => l.slice(0, l.indexOf(": ")))).toEqual(GREP_HITS.map(([p, n]) => `${W}/${p}:${n}`));
    expect(out.ls).toMatch(/entries ignored by \.gitignore\/\.ignore not shown/);
  }, 120_000);
});
