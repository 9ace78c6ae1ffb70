// Piped input through the built CLI, where the process is the contract: a shell pipe into `deerflow run "…"` reaches
// the model whole after the instruction (docs/cli.md, "Piped input"); binary input is refused before anything is
// sent; a stdin left open and silent by a parent process is not waited on for ever. The in-process cases (bounds,
// empty stdin, stdin-only prompts) are in run-stdin-in-process.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { BIN } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { userTexts } from "../support/requests.js";

const e2e = useE2E();

// A diff with a fenced block of its own, a tab, non-ASCII text and no final newline: all of it must arrive as is.
const MATERIAL = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('hi')\n+print('héllo → wörld')\n+\t# ```js\n+# ````\n+# end";

describe("deerflow run with piped stdin", () => {
  it('`printf … | deerflow run "review this diff"`: the request carries the instruction, then the material whole in a labelled fence', async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Looks fine." });
    const r = await execa("sh", ["-c", `printf '%s' "$MATERIAL" | "${process.execPath}" "${BIN}" run "review this diff"`], {
      cwd: sb.cwd,
      env: { ...sb.env, MATERIAL },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      timeout: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("Looks fine.\n");
    expect(e2e.server.requests).toHaveLength(1);
    // Longer than the material's longest backtick run (4), so the material cannot close the fence.
    expect(userTexts(e2e.server.requests[0]!)).toEqual([`review this diff\n\nPiped input (stdin):\n\`\`\`\`\`\n${MATERIAL}\n\`\`\`\`\``]);
  });

  it("a shell pipe whose command is slower than the silence limit is waited for, not dropped", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Read it." });
    // The producer sends nothing until deerflow has said it waits (past the 3 s limit, however busy the machine: a
    // fixed 4 s sleep lost the race on a loaded CI machine, whose start took longer), then its output. Bounded, so a
    // deerflow that never says it only fails the assertion below.
    const err = join(sb.cwd, "..", "stderr.txt");
    const producer = `for i in $(seq 600); do grep -q 'waiting for the piped input' "${err}" 2>/dev/null && break; sleep 0.1; done; printf 'late output'`;
    const r = await execa("sh", ["-c", `(${producer}) | "${process.execPath}" "${BIN}" run "summarize" 2>"${err}"`], {
      cwd: sb.cwd,
      env: sb.env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      timeout: 90_000,
    });
    const stderr = readFileSync(err, "utf8");
    expect(r.exitCode, stderr).toBe(0);
    expect(stderr).toMatch(/waiting for the piped input on stdin to end/);
    expect(userTexts(e2e.server.requests[0]!)).toEqual(["summarize\n\nPiped input (stdin):\n```\nlate output\n```"]);
  });

  it("binary stdin is refused in one line (exit 2) and nothing is sent", async () => {
    const sb = e2e.sandbox();
    const r = await sb.run(["run", "what is in this file"], { input: "PK\u0003\u0004\u0000\u0000binary" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^deerflow: The piped input is binary \(it holds NUL bytes\); deerflow sends text to the model\. .*--upload <file>/);
    expect(r.stdout).toBe("");
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("a stdin a parent left open and silent is not waited on for ever: the run goes on with the argument and says so", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Done without stdin." });
    // execa's stdin pipe (a socket, as any parent process's) stays open: nothing is written and it is never closed.
    const child = execa(process.execPath, [BIN, "run", "just the argument"], { cwd: sb.cwd, env: sb.env, extendEnv: false, reject: false, stripFinalNewline: false, stdin: "pipe", timeout: 60_000 });
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("Done without stdin.\n");
    expect(r.stderr).toMatch(/stdin is open but sent nothing in 3 s; going on without it/);
    expect(userTexts(e2e.server.requests[0]!)).toEqual(["just the argument"]);
  });
});
