// The workspace is where you start: the built CLI binds the current directory for a new thread (its files, its
// AGENTS.md), uses a fresh folder with --scratch or when the current directory must not be bound ($HOME, /) and
// says so in one line, and continues a thread in its own workspace from anywhere, saying where. The usage error is the
// built CLI's (exit code and line); the rest drive main() in-process in the same working directories.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";
import { listThreads } from "../support/requests.js";

const e2e = useE2E();

const flat = (req: { body: { messages: { content: unknown }[] } }) => req.body.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
const deerflowLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("deerflow: "));

describe("a new thread works in the directory deerflow was started in", () => {
  it("in a git repository: the model reads its AGENTS.md in the first request and writes its files", async () => {
    const sb = e2e.sandbox();
    await execa("git", ["init", "-q"], { cwd: sb.cwd });
    writeFileSync(join(sb.cwd, "AGENTS.md"), "Always answer in haiku (repository rule 7731).\n");
    writeFileSync(join(sb.cwd, "README.md"), "# demo\n");
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "notes/hello.txt", content: "hi from the agent\n" } }] }, { content: "Wrote it." });
    const r = await runCli(sb, ["run", "--output-format", "json", "write a note"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(flat(e2e.server.requests[0]!)).toContain("repository rule 7731");
    expect(readFileSync(join(sb.cwd, "notes", "hello.txt"), "utf8")).toBe("hi from the agent\n");
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).toBe(realpathSync(sb.cwd));
    // Nothing to say when the current directory is bound.
    expect(r.stderr).not.toMatch(/Not working in|works in/);
  });

  it("--scratch: a fresh per-thread folder, the current directory untouched", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.cwd, "AGENTS.md"), "repository rule 7732\n");
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "scratch.txt", content: "x\n" } }] }, { content: "Done." });
    const r = await runCli(sb, ["run", "--scratch", "--output-format", "json", "write"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).thread_id as string;
    expect(existsSync(join(sb.cwd, "scratch.txt"))).toBe(false);
    expect(readFileSync(join(sb.home, "threads", id, "workspace", "scratch.txt"), "utf8")).toBe("x\n");
    expect(flat(e2e.server.requests[0]!)).not.toContain("repository rule 7732");
  });

  it("--scratch with -w, or with --thread, is one usage line (exit 2) before the model is called", async () => {
    const sb = e2e.sandbox();
    const both = await sb.run(["run", "--scratch", "-w", ".", "hi"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/either --workspace <dir> or --scratch/);
    const withThread = await runCli(sb, ["run", "--scratch", "--thread", "abcdef123456", "hi"]);
    expect(withThread.exitCode).toBe(2);
    expect(withThread.stderr).toMatch(/--scratch starts a new thread/);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it("in $HOME: a fresh folder, and one line on stderr says so (also with stream-json)", async () => {
    const sb = e2e.sandbox();
    writeFileSync(join(sb.userHome, "AGENTS.md"), "home rule 7733\n");
    e2e.server.push({ content: "Hello." });
    const r = await runCli(sb, ["run", "--output-format", "stream-json", "hi"], { cwd: sb.userHome });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = deerflowLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^deerflow: Not working in .*: it is your home directory\. This thread works in a fresh folder/);
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).toBe(join(sb.home, "threads", thread!.id, "workspace"));
    expect(flat(e2e.server.requests[0]!)).not.toContain("home rule 7733");
  });

  it("in /: a fresh folder, never the whole disk", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "Hello." });
    const r = await runCli(sb, ["run", "hi"], { cwd: "/" });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/deerflow: Not working in \/: it is a system directory\. This thread works in a fresh folder/);
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).toBe(join(sb.home, "threads", thread!.id, "workspace"));
  });

  it("inside a secret directory (~/.ssh): a fresh folder, even with --allow-dangerous-workspace", async () => {
    const sb = e2e.sandbox();
    const ssh = join(sb.userHome, ".ssh");
    mkdirSync(ssh);
    e2e.server.push({ content: "Hello." });
    const r = await runCli(sb, ["run", "--allow-dangerous-workspace", "hi"], { cwd: ssh });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Not working in .*\.ssh: it is inside ~\/\.ssh/);
    const [thread] = await listThreads(sb);
    expect(thread!.workspace).not.toContain(".ssh");
  });

  it("--thread from another directory continues in the thread's own workspace and says so in one line", async () => {
    const sb = e2e.sandbox();
    e2e.server.push({ content: "First." });
    const first = await runCli(sb, ["run", "--output-format", "json", "start"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).thread_id as string;
    const elsewhere = join(sb.userHome, "elsewhere");
    mkdirSync(elsewhere);
    e2e.server.push({ toolCalls: [{ name: "write_file", args: { path: "second.txt", content: "2\n" } }] }, { content: "Second." });
    const again = await runCli(sb, ["run", "--thread", id, "go on"], { cwd: elsewhere });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`deerflow: Thread ${id} works in ${realpathSync(sb.cwd)} (its own workspace), not in the current directory.`);
    expect(readFileSync(join(sb.cwd, "second.txt"), "utf8")).toBe("2\n");
    expect(existsSync(join(elsewhere, "second.txt"))).toBe(false);
    // From its own directory nothing is said.
    e2e.server.push({ content: "Third." });
    const home = await runCli(sb, ["run", "--continue", "and more"]);
    expect(home.exitCode, home.stderr).toBe(0);
    expect(home.stderr).not.toMatch(/works in/);
  });
});
