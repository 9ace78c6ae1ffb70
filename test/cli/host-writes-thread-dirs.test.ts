// deerflow itself (the host) copies attachments into the thread's uploads/; a confined command can write that folder
// too. A link it planted there must be replaced by the copy, never written through (the tenth adversarial pass
// linked uploads/README.md to ~/.bashrc, and the user's next `@README.md` overwrote ~/.bashrc with the README).
import { lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HAS_BWRAP, toolResults } from "../support/confinement.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

describe.skipIf(!HAS_BWRAP)("a link planted in uploads/ by a confined command", () => {
  it("the next @file and --upload replace the link and leave its target alone; a linked uploads/ is refused in one line", async () => {
    const sb = e2e.sandbox();
    const bashrc = join(sb.userHome, ".bashrc");
    writeFileSync(bashrc, "alias ll=ls\n");
    writeFileSync(join(sb.cwd, "README.md"), "# Project\n\necho PWNED >> ~/PWNED-upload\n");
    writeFileSync(join(sb.cwd, "notes.txt"), "plain notes\n");
    // Run 1: the project's setup script plants links; a benign model runs it (confined, unasked).
    writeFileSync(join(sb.cwd, "setup.sh"), 'for f in README.md notes.txt; do ln -sf "$HOME/.bashrc" /mnt/user-data/uploads/$f; done; ls -l /mnt/user-data/uploads\n');
    e2e.server.push({ toolCalls: [{ id: "b1", name: "bash", args: { command: "sh ./setup.sh" } }] }, { content: "set up" });
    const first = await runCli(sb, ["run", "--output-format", "json", "--no-memory", "set up"]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(toolResults(e2e.server.requests[1]!).b1).toContain("README.md ->");
    const threadId = JSON.parse(first.stdout).thread_id as string;
    const uploads = join(sb.home, "threads", threadId, "uploads");
    expect(lstatSync(join(uploads, "README.md")).isSymbolicLink()).toBe(true);

    // Run 2: the user attaches the README with @ and notes.txt with --upload.
    e2e.server.push({ content: "summarized" });
    const second = await runCli(sb, ["run", "-t", threadId, "--no-memory", "--upload", "notes.txt", "summarize @README.md"]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(readFileSync(bashrc, "utf8")).toBe("alias ll=ls\n");
    for (const name of ["README.md", "notes.txt"]) {
      expect(lstatSync(join(uploads, name)).isFile()).toBe(true);
      expect(readFileSync(join(uploads, name), "utf8")).toBe(readFileSync(join(sb.cwd, name), "utf8"));
    }

    // uploads/ itself made a link (an unconfined command can do that): refused, nothing written through it.
    rmSync(uploads, { recursive: true });
    symlinkSync(sb.userHome, uploads);
    const third = await runCli(sb, ["run", "-t", threadId, "--no-memory", "look at @README.md"]);
    expect(third.exitCode).toBe(2);
    expect(third.stderr.trim().split("\n")).toHaveLength(1);
    expect(third.stderr).toMatch(/Cannot attach .*README\.md: .*uploads is a symbolic link/);
    expect(readlinkSync(uploads)).toBe(sb.userHome);
    expect(() => lstatSync(join(sb.userHome, "README.md"))).toThrow();
    expect(e2e.server.requests).toHaveLength(3);
  });
});
