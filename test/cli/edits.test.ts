// File edits through `deerflow run` and the test model: run's default approval mode (auto-edit) applies edits; the
// edit's unified diff rides on stream-json's tool.completed; `--approval ask` headless denies edits unless --yes.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();
const call = (id: string, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id, name, args }] });
const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });

describe("edits headless", () => {
  it("run applies edits without asking (auto-edit); tool.completed carries the diff; the model never sees it", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.cwd, "repo");
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "app.js"), "let n = 1;\nconsole.log(n);\n");
    e2e.server.push(
      call("r1", "read_file", { path: "app.js" }),
      call("s1", "str_replace", { path: "app.js", old_str: "let n = 1;", new_str: "let n = 2;" }),
      call("w1", "write_file", { path: "new.txt", content: "fresh\n" }),
      { content: "edited" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "--output-format", "stream-json", "edit it"]);
    expect(r.exitCode).toBe(0);
    const done = events(r.stdout).filter((e) => e.type === "tool.completed");
    expect(done.map((e) => [e.tool_call_id, e.status])).toEqual([
      ["r1", "ok"],
      ["s1", "ok"],
      ["w1", "ok"],
    ]);
    expect(done[0]).not.toHaveProperty("diff");
    // Real paths relative to the workspace, with git's a/ b/ headers (the model keeps its /mnt/user-data view).
    expect(done[1]!.diff).toEqual({
      path: "app.js",
      added: 1,
      removed: 1,
      patch: "--- a/app.js\n+++ b/app.js\n@@ -1,2 +1,2 @@\n-let n = 1;\n+let n = 2;\n console.log(n);\n",
    });
    expect(done[2]!.diff).toMatchObject({ path: "new.txt", added: 1, removed: 0, created: true, patch: expect.stringContaining("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+fresh\n") });
    expect(events(r.stdout).some((e) => e.type === "approval.requested")).toBe(false);
    expect(readFileSync(join(repo, "app.js"), "utf8")).toBe("let n = 2;\nconsole.log(n);\n");
    // The diff is for people and scripts: the model's tool result is the short confirmation.
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("Replaced 1 occurrence");
    expect(sent).not.toContain("@@ -1,2 +1,2 @@");
  });

  it("the stream-json patches apply with `git apply` in the -w repository (edit and new file, in a subfolder)", async () => {
    const sb = e2e.sandbox();
    // The repository is the run's -w workspace, not the directory deerflow starts in: paths are the workspace's.
    const repo = join(sb.cwd, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    await execa("git", ["init", "-q"], { cwd: repo });
    writeFileSync(join(repo, "src", "app.js"), "const a = 1;\nconst b = 2;\nconsole.log(a + b);\n");
    await execa("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "init", "--allow-empty"], { cwd: repo });
    await execa("git", ["add", "-A"], { cwd: repo });
    await execa("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "app"], { cwd: repo });
    e2e.server.push(
      call("r1", "read_file", { path: "src/app.js" }),
      call("s1", "str_replace", { path: "/mnt/user-data/workspace/src/app.js", old_str: "const b = 2;", new_str: "const b = 40;" }),
      call("w1", "write_file", { path: "src/new.js", content: "export const n = 1;\n" }),
      { content: "edited" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "--output-format", "stream-json", "edit it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const diffs = events(r.stdout)
      .filter((e) => e.type === "tool.completed" && e.diff)
      .map((e) => e.diff as { path: string; patch: string });
    expect(diffs.map((d) => d.path)).toEqual(["src/app.js", "src/new.js"]);
    // Undo the agent's edits, then re-apply its patches with git: the same files result.
    const edited = readFileSync(join(repo, "src", "app.js"), "utf8");
    await execa("git", ["checkout", "--", "src/app.js"], { cwd: repo });
    rmSync(join(repo, "src", "new.js"));
    for (const d of diffs) await execa("git", ["apply", "-"], { cwd: repo, input: d.patch });
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe(edited);
    expect(edited).toContain("const b = 40;");
    expect(readFileSync(join(repo, "src", "new.js"), "utf8")).toBe("export const n = 1;\n");
  });

  it("text mode names the workspace's files by their real path, in progress lines and the answer (the model keeps its view)", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.cwd, "repo");
    mkdirSync(repo);
    e2e.server.push(call("r0", "read_file", { path: "/mnt/user-data/workspace/missing.py" }), call("w1", "write_file", { path: "/mnt/user-data/workspace/app.py", content: "x = 1\n" }), {
      content: "I wrote /mnt/user-data/workspace/app.py.",
    });
    const r = await runCli(sb, ["run", "-w", repo, "write it"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const host = realpathSync(repo);
    expect(r.stdout).toBe(`I wrote ${host}/app.py.\n`);
    expect(r.stderr).toContain(`→ write_file {"path":"${host}/app.py"`);
    const failed = r.stderr.split("\n").find((l) => l.startsWith("deerflow: ✗ read_file:"));
    expect(failed).toContain(`${host}/missing.py`);
    expect(r.stdout + r.stderr).not.toContain("/mnt/user-data/workspace");
    // What the model reads is unchanged: its own view.
    expect(JSON.stringify(e2e.server.requests.at(-1)!.body.messages)).toContain("/mnt/user-data/workspace/missing.py");
  });

  it("--approval ask headless: an edit is denied (visibly, nothing written) unless --yes", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(call("w1", "write_file", { path: "a.txt", content: "x\n" }), { content: "could not write" });
    const denied = await runCli(sb, ["run", "--approval", "ask", "--output-format", "json", "write a"]);
    expect(denied.exitCode).toBe(0);
    const thread = JSON.parse(denied.stdout).thread_id as string;
    const result = (e2e.server.requests[1]!.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool")!.content;
    expect(result).toBe("Denied: the creation of a.txt was not approved (run with --yes to approve guarded actions headless).");
    expect(denied.stderr).toContain("✗ write_file: Denied: the creation of a.txt");
    expect(existsSync(join(sb.cwd, "a.txt"))).toBe(false);

    e2e.server.push(call("w2", "write_file", { path: "a.txt", content: "x\n" }), { content: "written" });
    const yes = await runCli(sb, ["run", "--approval", "ask", "--yes", "--thread", thread, "write a"]);
    expect(yes.exitCode).toBe(0);
    expect(readFileSync(join(sb.cwd, "a.txt"), "utf8")).toBe("x\n");
  });

  it("str_replace keeps every byte it does not replace (a Latin-1 file), and edits across lines of a CRLF file", async () => {
    const sb = e2e.sandbox();
    const repo = join(sb.cwd, "repo");
    mkdirSync(repo, { recursive: true });
    // "café" in Latin-1 (0xE9 is not UTF-8): read_file shows it as U+FFFD, which must never be written back.
    const latin = Buffer.from([...Buffer.from("caf"), 0xe9, ...Buffer.from(' = 1\nname = "x"\n')]);
    writeFileSync(join(repo, "latin.txt"), latin);
    // read_file shows a CRLF file's lines without their \r; the model's old_str has bare \n.
    writeFileSync(join(repo, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
    e2e.server.push(
      {
        toolCalls: [
          { id: "r1", name: "read_file", args: { path: "latin.txt" } },
          { id: "r2", name: "read_file", args: { path: "crlf.txt" } },
        ],
      },
      call("s1", "str_replace", { path: "latin.txt", old_str: '"x"', new_str: '"y"' }),
      call("s2", "str_replace", { path: "crlf.txt", old_str: "two\nthree", new_str: "TWO\nTHREE\nfour" }),
      { content: "edited" },
    );
    const r = await runCli(sb, ["run", "-w", repo, "--output-format", "stream-json", "edit them"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const done = events(r.stdout).filter((e) => e.type === "tool.completed");
    // r1 and r2 are one batch and run concurrently: either may finish first; the edits come after both.
    const pairs = done.map((e) => [e.tool_call_id, e.status]);
    expect([...pairs.slice(0, 2)].sort()).toEqual([
      ["r1", "ok"],
      ["r2", "ok"],
    ]);
    expect(pairs.slice(2)).toEqual([
      ["s1", "ok"],
      ["s2", "ok"],
    ]);
    expect(readFileSync(join(repo, "latin.txt")).equals(Buffer.from([...Buffer.from("caf"), 0xe9, ...Buffer.from(' = 1\nname = "y"\n')]))).toBe(true);
    expect(readFileSync(join(repo, "crlf.txt"), "utf8")).toBe("one\r\nTWO\r\nTHREE\r\nfour\r\n");
    expect(done[3]!.diff).toMatchObject({ added: 3, removed: 2 });
  });
});
