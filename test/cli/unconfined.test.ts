// No confinement, no silent yolo: without bubblewrap (a PATH without `bwrap`), `run --yes`, `--approval yolo` and a
// .deerflowrc `approval: "yolo"` stop with exit 2 and one line before any model call, unless the user passes
// --dangerously-run-unconfined. With bubblewrap, the same invocations run as before. The built CLI holds the refusal's
// exit code and line once, and the watchdog's environment; the rest drive main() in-process (bwrap is looked up per
// PATH, so a PATH without it is a fallback there too).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { HAS_BWRAP, pathWithoutBwrap, toolResults, approveUnconfined } from "../support/confinement.js";
import { trustProject } from "../support/trust.js";

const e2e = useE2E();

describe("auto-approval without bubblewrap", () => {
  it("--yes, --approval yolo and a .deerflowrc yolo are refused (exit 2, one line, no model call); the flag lets them run", async () => {
    const sb = e2e.sandbox();
    const env = { PATH: pathWithoutBwrap(sb) };
    for (const args of [["--yes"], ["--approval", "yolo"]]) {
      // --yes through the built CLI (the exit code and the line a terminal shows); yolo in-process.
      const r = args[0] === "--yes" ? await sb.run(["run", ...args, "delete things"], { env }) : await runCli(sb, ["run", ...args, "delete things"], { env });
      expect(r.exitCode, args.join(" ")).toBe(2);
      const lines = r.stderr.trim().split("\n");
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^deerflow: bubblewrap \(bwrap\) is not available, so with (--yes|approval mode yolo) the agent's shell commands would run on this host unasked: refusing\. Install the `bubblewrap` package, or pass --dangerously-run-unconfined/,
      );
      expect(r.stdout).toBe("");
    }
    writeFileSync(join(sb.cwd, ".deerflowrc"), JSON.stringify({ approval: "yolo" }));
    trustProject(sb);
    const fromRc = await runCli(sb, ["run", "hi"], { env });
    expect(fromRc.exitCode).toBe(2);
    expect(fromRc.stderr).toMatch(/with approval mode yolo .* refusing/);
    expect(e2e.server.requests).toHaveLength(0);

    // Said on purpose: the guarded command runs unasked (and the usual warning says it is unconfined).
    const marker = join(sb.cwd, "ran.txt");
    e2e.server.push({ toolCalls: [{ id: "rm", name: "bash", args: { command: `rm -f ./gone; echo ok > ${marker}` } }] }, { content: "done" });
    const allowed = await runCli(sb, ["run", "--yes", "--dangerously-run-unconfined", "clean"], { env });
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect(allowed.stderr).toMatch(/UNCONFINED/);
    expect(toolResults(e2e.server.requests[1]!).rm).not.toMatch(/denied|needs approval/i);
    expect(existsSync(marker)).toBe(true);

    // Even said on purpose, a delete the audit cannot place inside the workspace never runs (the eleventh pass deleted
    // the whole home with these spellings under yolo).
    writeFileSync(join(sb.userHome, "notes.txt"), "mine");
    e2e.server.push(
      {
        toolCalls: [
          { id: "h1", name: "bash", args: { command: "rm -rf ${HOME:?}" } },
          { id: "h2", name: "bash", args: { command: "tar -cf /dev/null --remove-files ~" } },
          { id: "h3", name: "bash", args: { command: "d=~; rm -rf $d" } },
          // Asks with a specific concern: only a person may approve it without a sandbox (the twelfth pass's D1).
          { id: "h4", name: "bash", args: { command: `python3 -c 'import shutil,os; shutil.rmtree(os.path.expanduser("~"))'` } },
        ],
      },
      { content: "done" },
    );
    const before = e2e.server.requests.length;
    const home = await runCli(sb, ["run", "--approval", "yolo", "--dangerously-run-unconfined", "clean up"], { env });
    expect(home.exitCode, home.stderr).toBe(0);
    const results = toolResults(e2e.server.requests[before + 1]!);
    for (const id of ["h1", "h2", "h3"]) expect(results[id], id).toMatch(/^Blocked: .*never run/s);
    expect(results.h4).toMatch(/^Denied: deletes files from inline interpreter code .*needs a person's approval: --yes and yolo do not give it/s);
    expect(existsSync(join(sb.userHome, "notes.txt"))).toBe(true);
  });

  it("eval --yes without bubblewrap is refused the same way (exit 2, one line), before any model call", async () => {
    const sb = e2e.sandbox();
    const env = { PATH: pathWithoutBwrap(sb) };
    const list = await runCli(sb, ["eval", "--list"], { env });
    expect(list.exitCode, list.stderr).toBe(0);
    const task = list.stdout.split("\t")[0]!;
    const r = await runCli(sb, ["eval", "--yes", "--tasks", task], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^deerflow: bubblewrap \(bwrap\) is not available, so with --yes .* pass --dangerously-run-unconfined/);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("an unconfined command's parent is the watchdog with the scrubbed environment: /proc/$PPID/environ holds no key", async () => {
    const sb = e2e.sandbox();
    // A script the audit cannot read (so --yes approves it): reading /proc/*/environ by name needs a person without a
    // sandbox (shell-unconfined.ts); this is the layer under that.
    writeFileSync(join(sb.cwd, "read-parent.sh"), "tr '\\0' '\\n' < /proc/$PPID/environ; echo; tr '\\0' ' ' < /proc/$PPID/cmdline\n");
    e2e.server.push({ toolCalls: [{ id: "env", name: "bash", args: { command: "sh read-parent.sh" } }] }, { content: "done" });
    const r = await sb.run(["run", ...approveUnconfined("fallback"), "read my parent"], { env: { PATH: pathWithoutBwrap(sb), GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = toolResults(e2e.server.requests[1]!).env!;
    expect(out).toMatch(/^PATH=/m);
    expect(out).toMatch(/deerflow-watchdog [0-9a-f]{16} bash -c /);
    expect(out).not.toContain("sk-test-key-123456");
    expect(out).not.toContain("ghp_");
    expect(out).not.toMatch(/^OPENAI_/m);
  });

  it("a repository's file named --pre=sh does not turn an ordinary `rg -n TODO *` into its code running (the tenth pass's A12)", async () => {
    const sb = e2e.sandbox();
    const marker = join(sb.userHome, "PWNED-rgstar");
    writeFileSync(join(sb.cwd, "--pre=sh"), "");
    writeFileSync(join(sb.cwd, "build.sh"), `echo ran >> ${marker}\n# TODO\n`);
    e2e.server.push({ toolCalls: [{ id: "rg", name: "bash", args: { command: "rg -n TODO *" } }] }, { content: "done" });
    const r = await runCli(sb, ["run", "find the TODOs"], { env: { PATH: pathWithoutBwrap(sb) } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(toolResults(e2e.server.requests[1]!).rg).toMatch(/^Denied: no sandbox here/);
    expect(existsSync(marker)).toBe(false);
  });

  it.runIf(HAS_BWRAP)("with bubblewrap, --yes and yolo need no flag", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "fine" }, { content: "fine too" });
    const yes = await runCli(sb, ["run", "--yes", "hi"]);
    expect(yes.exitCode, yes.stderr).toBe(0);
    const yolo = await runCli(sb, ["run", "--approval", "yolo", "hi"]);
    expect(yolo.exitCode, yolo.stderr).toBe(0);
    expect(yolo.stdout).toBe("fine too\n");
  });
});
