// End to end: `deerflow rewind` and `deerflow threads rm` through the CLI against the loopback test
// model, in a bound git repository whose own .git must stay exactly as it was.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { listThreads, userTexts } from "../support/requests.js";

const e2e = useE2E();

// GIT_OPTIONAL_LOCKS=0: our own `git status` must not refresh the index it is checking.
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH!, GIT_CONFIG_NOSYSTEM: "1", GIT_OPTIONAL_LOCKS: "0", HOME: cwd },
  });

/** sha256 of every file under `dir` (the user's .git: objects, index, config, hooks, refs). */
function dirHash(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      h.update(relative(dir, p));
      if (st.isDirectory()) walk(p);
      else h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

/** A git repository with a commit, a staged change and an unstaged one on top (a dirty index). */
function userRepo(sb: Sandbox): string {
  const repo = join(sb.userHome, "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q");
  writeFileSync(join(repo, "src", "app.js"), "console.log('v1');\n");
  writeFileSync(join(repo, "README.md"), "# repo\n");
  writeFileSync(join(repo, ".gitignore"), "build/\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "init");
  writeFileSync(join(repo, "README.md"), "# repo (staged)\n");
  git(repo, "add", "README.md");
  writeFileSync(join(repo, "README.md"), "# repo (staged, then edited)\n");
  return repo;
}

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", args: { description: "edit", command } }] });

async function runJson(sb: Sandbox, args: string[]) {
  const r = await runCli(sb, ["run", "--output-format", "json", ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { thread_id: string; run_id: string };
}

async function rewind(sb: Sandbox, args: string[]) {
  const r = await runCli(sb, ["rewind", ...args]);
  return { ...r, json: r.exitCode === 0 && args.includes("--json") ? JSON.parse(r.stdout) : undefined };
}

/** Two runs on a bound repository: the first edits src/app.js, the second creates notes.txt and edits app.js again. */
async function twoRuns(sb: Sandbox) {
  const repo = userRepo(sb);
  const status = git(repo, "status", "--porcelain");
  const gitHash = dirHash(join(repo, ".git"));
  e2e.server.push(bash("b1", "printf \"console.log('v2');\\n\" > src/app.js"), { content: "Changed app.js to v2." });
  const first = await runJson(sb, ["-w", repo, "make it v2"]);
  e2e.server.push(bash("b2", "printf 'notes\\n' > notes.txt && printf \"console.log('v3');\\n\" > src/app.js"), { content: "Now v3, with notes." });
  await runJson(sb, ["--thread", first.thread_id, "make it v3 and take notes"]);
  expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v3');\n");
  return { repo, status, gitHash, thread: first.thread_id };
}

describe("deerflow rewind", () => {
  it("--list shows the runs latest first with their input and the files each changed", async () => {
    const sb = e2e.sandbox();
    const { thread } = await twoRuns(sb);
    const text = await rewind(sb, [thread, "--list"]);
    expect(text.exitCode, text.stderr).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[1]).toMatch(/^ 1\. \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  success\s+"make it v3 and take notes"  · 2 files: notes\.txt, src\/app\.js$/);
    expect(lines[2]).toMatch(/^ 2\. .*"make it v2"  · 1 file: src\/app\.js$/);
    const json = await rewind(sb, [thread, "--list", "--json"]);
    expect(json.json.runs.map((r: { back: number; input: string; files_changed: string[] }) => [r.back, r.input, r.files_changed])).toEqual([
      [1, "make it v3 and take notes", ["notes.txt", "src/app.js"]],
      [2, "make it v2", ["src/app.js"]],
    ]);
  }, 120_000);

  it("restores files and conversation to before the last run; the user's .git and git status are untouched; the thread continues", async () => {
    const sb = e2e.sandbox();
    const { repo, status, gitHash, thread } = await twoRuns(sb);
    const r = await rewind(sb, [thread, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ thread_id: thread, scope: "both", conversation: true, files: { restored: ["notes.txt", "src/app.js"], skipped: [] } });
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v2');\n");
    expect(existsSync(join(repo, "notes.txt"))).toBe(false);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# repo (staged, then edited)\n");

    // Continue: the model sees the first exchange only.
    e2e.server.push({ content: "Continuing from v2." });
    await runJson(sb, ["--thread", thread, "what now?"]);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["make it v2", "what now?"]);

    // Back to before the first run too: the repository is as the user left it.
    const again = await rewind(sb, [thread, "--runs", "2"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Rewound thread \S+ to before run run-\w+ \(2 runs undone\): the conversation and 1 file: src\/app\.js restored\./);
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v1');\n");
    expect(git(repo, "status", "--porcelain")).toBe(status);
    expect(dirHash(join(repo, ".git"))).toBe(gitHash);
  }, 120_000);

  it("--files-only keeps the conversation; --conversation-only keeps the files; --undo puts a rewind back", async () => {
    const sb = e2e.sandbox();
    const { repo, thread } = await twoRuns(sb);
    const files = await rewind(sb, [thread, "--files-only"]);
    expect(files.exitCode, files.stderr).toBe(0);
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v2');\n");
    e2e.server.push({ content: "Still remember both." });
    await runJson(sb, ["--thread", thread, "files only?"]);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["make it v2", "make it v3 and take notes", "files only?"]);

    const conv = await rewind(sb, [thread, "--conversation-only", "--json"]);
    expect(conv.exitCode, conv.stderr).toBe(0);
    expect(conv.json).toMatchObject({ scope: "conversation", conversation: true, files: null });
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v2');\n");

    const undo = await rewind(sb, [thread, "--undo"]);
    expect(undo.exitCode, undo.stderr).toBe(0);
    e2e.server.push({ content: "Back again." });
    await runJson(sb, ["--thread", thread, "after undo"]);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["make it v2", "make it v3 and take notes", "files only?", "after undo"]);
  }, 120_000);

  it("refuses what it cannot do with one line and the right exit code", async () => {
    const sb = e2e.sandbox();
    const both = await rewind(sb, ["nope", "--files-only", "--conversation-only"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr.trim().split("\n")).toHaveLength(1);
    const unknown = await rewind(sb, ["nope"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/Thread nope not found/);
    e2e.server.push({ content: "One run." });
    const { thread_id } = await runJson(sb, ["hello"]);
    const tooFar = await rewind(sb, [thread_id, "--runs", "2"]);
    expect(tooFar.exitCode).toBe(2);
    expect(tooFar.stderr).toMatch(/has 1 run to rewind, not 2/);
    const bad = await rewind(sb, [thread_id, "--runs", "0"]);
    expect(bad.exitCode).toBe(2);
  }, 120_000);

  it("without git, the conversation still rewinds and the files say why in one line", async () => {
    const sb = e2e.sandbox();
    // Spawned: whether git runs is checked once per process. deerflow itself is started by absolute path; its PATH has
    // no git (nor anything else).
    const bin = join(sb.userHome, "empty-bin");
    mkdirSync(bin);
    const noGit = { PATH: bin };
    e2e.server.push({ content: "First." });
    const first = await sb.run(["run", "--output-format", "json", "first"], { env: noGit });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/warning: git is not installed: files are not snapshotted before runs/);
    const thread = JSON.parse(first.stdout).thread_id;
    const filesOnly = await sb.run(["rewind", thread, "--files-only"], { env: noGit });
    expect(filesOnly.exitCode).toBe(1);
    expect(filesOnly.stderr.trim().split("\n")).toHaveLength(1);
    expect(filesOnly.stderr).toMatch(/git is not installed.*--conversation-only/);
    const r = await sb.run(["rewind", thread], { env: noGit });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/the conversation restored/);
    expect(r.stderr.trim()).toMatch(/^deerflow: git is not installed/);
  }, 120_000);

  it("a bound workspace that was moved is one line and exit 2 for the files; the conversation still rewinds; oversize files stay", async () => {
    const sb = e2e.sandbox();
    const { repo, thread } = await twoRuns(sb);
    e2e.server.push(bash("big", "head -c 11000000 /dev/zero > big.bin"), { content: "Made a big file." });
    await runJson(sb, ["--thread", thread, "make a big file"]);
    const moved = `${repo}-moved`;
    renameSync(repo, moved);
    const r = await rewind(sb, [thread]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/workspace .* no longer exists \(moved or deleted\).*--conversation-only/);
    const conv = await rewind(sb, [thread, "--conversation-only"]);
    expect(conv.exitCode, conv.stderr).toBe(0);
    renameSync(moved, repo);
    // The two runs left go back (to before the first: v1); the 11 MB file was never recorded, so it stays.
    const files = await rewind(sb, [thread, "--files-only", "--runs", "2", "--json"]);
    expect(files.exitCode, files.stderr).toBe(0);
    expect(files.json.files.restored).toEqual(["notes.txt", "src/app.js"]);
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v1');\n");
    expect(existsSync(join(repo, "big.bin"))).toBe(true);
  }, 180_000);

  it("a run that rewrote .gitignore (then one that made it a folder) and shrank an oversize file: the rewind puts .gitignore back and deletes none of what was never recorded", async () => {
    const sb = e2e.sandbox();
    const repo = userRepo(sb);
    // Ignored by the repository: the user's secrets and a build directory; and a data file over the snapshot cap.
    writeFileSync(join(repo, ".gitignore"), "build/\n.env\n");
    writeFileSync(join(repo, ".env"), "API_KEY=only-copy\n");
    mkdirSync(join(repo, "build"));
    writeFileSync(join(repo, "build", "out.js"), "built\n");
    writeFileSync(join(repo, "data.csv"), Buffer.alloc(11_000_000, "a"));
    e2e.server.push(bash("b1", "printf 'dist/\\n' > .gitignore && printf 'x\\n' > data.csv && printf 'new\\n' > created.txt"), { content: "Tidied up." });
    const { thread_id } = await runJson(sb, ["-w", repo, "tidy the repo"]);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe("dist/\n");
    const r = await rewind(sb, [thread_id, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.files.restored).toEqual([".gitignore", "created.txt"]);
    expect(r.json.files.skipped).toEqual([".env", "build/out.js", "data.csv"]);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe("build/\n.env\n");
    expect(existsSync(join(repo, "created.txt"))).toBe(false);
    // Never recorded before the run, so never deleted: the secrets, the build output, and the file the run shrank.
    expect(readFileSync(join(repo, ".env"), "utf8")).toBe("API_KEY=only-copy\n");
    expect(readFileSync(join(repo, "build", "out.js"), "utf8")).toBe("built\n");
    expect(readFileSync(join(repo, "data.csv"), "utf8")).toBe("x\n");
    // The thread goes on with a run that turns .gitignore into a folder (nothing is ignored when it ends, so its
    // snapshot records the secrets): the next rewind still judges by the rules from before it and leaves them alone.
    e2e.server.push(bash("b2", "rm .gitignore && mkdir .gitignore && printf 'x\\n' > .gitignore/keep && printf 'again\\n' > created.txt"), { content: "Again." });
    await runJson(sb, ["--thread", thread_id, "again"]);
    const again = await rewind(sb, [thread_id, "--json"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.json.files.restored).toEqual([".gitignore", ".gitignore/keep", "created.txt"]);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe("build/\n.env\n");
    expect(readFileSync(join(repo, ".env"), "utf8")).toBe("API_KEY=only-copy\n");
    expect(existsSync(join(repo, "build", "out.js"))).toBe(true);
  }, 180_000);
});

describe("deerflow threads rm", () => {
  it("deletes the thread, its runs and its data directory, and leaves a bound workspace as it is", async () => {
    const sb = e2e.sandbox();
    const { repo, thread } = await twoRuns(sb);
    e2e.server.push({ toolCalls: [{ id: "w", name: "write_file", args: { path: "own.txt", content: "mine" } }] }, { content: "Wrote it." });
    const own = await runJson(sb, ["--scratch", "a thread with its own workspace"]);
    const ownDir = join(sb.home, "threads", own.thread_id);
    expect(existsSync(join(ownDir, "workspace", "own.txt"))).toBe(true);

    const r = await runCli(sb, ["threads", "rm", thread]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Its workspace ${repo} is yours and was left as it is.`);
    expect(readFileSync(join(repo, "src", "app.js"), "utf8")).toBe("console.log('v3');\n");
    expect(existsSync(join(sb.home, "threads", thread))).toBe(false);
    expect((await listThreads(sb)).map((t) => t.id)).toEqual([own.thread_id]);

    const json = await runCli(sb, ["threads", "rm", own.thread_id, "--json"]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ thread_id: own.thread_id, removed_dir: ownDir, kept_workspace: null });
    expect(existsSync(ownDir)).toBe(false);
    expect(await listThreads(sb)).toEqual([]);

    const again = await runCli(sb, ["threads", "rm", own.thread_id]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/not found/);
  }, 120_000);

  it("refuses a busy thread (exit 1) and leaves it whole", async () => {
    const sb = e2e.sandbox();
    e2e.server.push(bash("s", "sleep 60"), { content: "done" });
    const child = sb.spawn(["run", "--output-format", "stream-json", "--yes", "slow"]);
    let thread = "";
    let buffered = "";
    for await (const chunk of child.stdout!) {
      buffered += String(chunk);
      const started = buffered
        .split("\n")
        .map((l) => (l.startsWith("{") ? JSON.parse(l) : {}))
        .find((e) => e.type === "tool.started");
      if (started) {
        thread = JSON.parse(buffered.split("\n")[0]!).thread_id;
        break;
      }
    }
    const r = await runCli(sb, ["threads", "rm", thread]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is busy/);
    const rw = await runCli(sb, ["rewind", thread]);
    expect(rw.exitCode).toBe(1);
    expect(rw.stderr).toMatch(/is busy/);
    child.kill("SIGTERM");
    await child;
    expect((await listThreads(sb)).map((t) => t.id)).toEqual([thread]);
  }, 120_000);
});
