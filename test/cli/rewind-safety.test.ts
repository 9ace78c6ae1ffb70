// End to end through the built bin/deerflow: what rewind must never do to the user. It leaves the files the user
// changed by hand after the last run as they are (and says so), unless --force; and a rewind killed with SIGKILL half
// way through 3,000 files is finished by the next command (rewind, run, doctor) or put back exactly by --undo.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { HAS_BWRAP, pathWithoutBwrap } from "../support/confinement.js";
import { useE2E } from "../support/e2e.js";
import { runCli } from "../support/cli-in-process.js";
import { userTexts } from "../support/requests.js";

const e2e = useE2E();

const write = (id: string, path: string, content: string) => ({ toolCalls: [{ id, name: "write_file", args: { path, content } }] });
const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", args: { description: "generate", command } }] });

async function runJson(sb: Sandbox, args: string[], env?: Record<string, string>) {
  const r = await runCli(sb, ["run", "--output-format", "json", ...args], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { thread_id: string; run_id: string };
}

async function rewind(sb: Sandbox, args: string[]) {
  const r = await runCli(sb, ["rewind", ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  return { ...r, json: args.includes("--json") ? JSON.parse(r.stdout) : undefined };
}

/** A file as the shadow repository keeps it under `ref` (what a user recovering it by hand would run). */
const shown = (gitDir: string, ref: string, path: string) => execFileSync("git", ["--git-dir", gitDir, "show", `${ref}:${path}`], { encoding: "utf8", env: { PATH: process.env.PATH! } });

const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");

describe.each(HAS_BWRAP ? (["bwrap", "fallback"] as const) : (["fallback"] as const))("rewind and the user's own edits (%s)", (mode) => {
  it("leaves the files the user changed after the last run as they are and names them; --force takes them too, kept in the printed ref", async () => {
    const sb = e2e.sandbox();
    const env = mode === "fallback" ? { PATH: pathWithoutBwrap(sb) } : undefined;
    const ws = join(sb.userHome, "proj");
    mkdirSync(ws);
    writeFileSync(join(ws, "app.js"), "v1\n");
    writeFileSync(join(ws, "notes.md"), "notes\n");
    e2e.server.push({ toolCalls: [{ id: "r1", name: "read_file", args: { path: "app.js" } }] }, write("w1", "app.js", "v2\n"), write("w2", "created.txt", "by the run\n"), { content: "Done." });
    const { thread_id: thread } = await runJson(sb, ["-w", ws, "make it v2"], env);
    expect(read(ws, "app.js")).toBe("v2\n");

    // After the run, by hand: a file the run changed, one it did not, and a new one.
    writeFileSync(join(ws, "app.js"), "mine\n");
    writeFileSync(join(ws, "notes.md"), "my notes\n");
    writeFileSync(join(ws, "mine.txt"), "mine too\n");

    // The run's own changes are what --list counts for it, not the user's since.
    expect((await rewind(sb, [thread, "--list", "--json"])).json.runs[0].files_changed).toEqual(["app.js", "created.txt"]);
    const text = await rewind(sb, [thread]);
    expect(text.stdout).toMatch(
      new RegExp(
        `^Rewound thread ${thread} to before run run-\\S+ \\(1 run undone\\): the conversation and 1 file: created\\.txt restored\\. Changed since the last run, left as they are: app\\.js, mine\\.txt, notes\\.md \\(\`deerflow rewind ${thread} --force\` takes them too\\)\\. The files from before the rewind are kept at refs/deerflow/rewound/rewind-\\S+ in \\S+snapshots\\.git\\.`,
      ),
    );
    expect(existsSync(join(ws, "created.txt"))).toBe(false);
    expect([read(ws, "app.js"), read(ws, "notes.md"), read(ws, "mine.txt")]).toEqual(["mine\n", "my notes\n", "mine too\n"]);

    const undo = await rewind(sb, [thread, "--undo"]);
    expect(undo.stdout).toMatch(/: the conversation and 1 file: created\.txt put back\. The files from before the undo are kept at refs\/deerflow\/rewound\/rewind-\S+-undo in /);
    expect(read(ws, "created.txt")).toBe("by the run\n");
    expect(read(ws, "app.js")).toBe("mine\n");

    const forced = await rewind(sb, [thread, "--force", "--json"]);
    expect(forced.json).toMatchObject({ force: true, resumed: false, files: { restored: ["app.js", "created.txt", "mine.txt", "notes.md"], edited: ["app.js", "mine.txt", "notes.md"] } });
    expect([read(ws, "app.js"), read(ws, "notes.md"), existsSync(join(ws, "mine.txt"))]).toEqual(["v1\n", "notes\n", false]);
    // What --force overwrote is in the ref the output names.
    const { git_dir, ref } = forced.json.files_before;
    expect([shown(git_dir, ref, "app.js"), shown(git_dir, ref, "mine.txt")]).toEqual(["mine\n", "mine too\n"]);
  }, 180_000);
});

describe("a rewind killed half way (SIGKILL, 3,000 files)", () => {
  const FILES = 3000;
  const generate = `mkdir gen && for i in $(seq 1 ${FILES}); do echo "file $i" > gen/f$i.txt; done`;

  /** Every generated file, with the content the run gave it. */
  function allThere(gen: string): boolean {
    if (!existsSync(gen) || readdirSync(gen).length !== FILES) return false;
    for (let i = 1; i <= FILES; i++) if (readFileSync(join(gen, `f${i}.txt`), "utf8") !== `file ${i}\n`) return false;
    return true;
  }

  /**
   * Starts `deerflow rewind` and SIGKILLs it as soon as the workspace shows the restore under way (a generated file
   * is gone: inotify reports it, no clock involved). Returns how many generated files are left.
   */
  async function killMidRewind(sb: Sandbox, thread: string, gen: string): Promise<number> {
    const child = sb.spawn(["rewind", thread]);
    await new Promise<void>((resolve, reject) => {
      const watcher = watch(gen, () => {
        if (readdirSync(gen).length >= FILES) return;
        child.kill("SIGKILL");
        watcher.close();
        resolve();
      });
      void child.then((r) => {
        watcher.close();
        reject(new Error(`the rewind ended before any file was seen going (exit ${r.exitCode}): ${String(r.stderr)}`));
      });
    });
    const r = await child;
    expect(r.signal).toBe("SIGKILL");
    return existsSync(gen) ? readdirSync(gen).length : 0;
  }

  async function threadWithFiles(sb: Sandbox, ws: string, thread?: string): Promise<string> {
    e2e.server.push(bash(`g${thread ? 2 : 1}`, generate), { content: "Generated." });
    const r = await runJson(sb, [...(thread ? ["--thread", thread] : ["-w", ws]), "generate the files"]);
    expect(allThere(join(ws, "gen"))).toBe(true);
    return r.thread_id;
  }

  it("--undo puts the files back exactly; the next rewind finishes it and prints the ref; so do a run and doctor", async () => {
    const sb = e2e.sandbox();
    const ws = join(sb.userHome, "proj");
    mkdirSync(ws);
    writeFileSync(join(ws, "keep.txt"), "before\n");
    const gen = join(ws, "gen");
    const thread = await threadWithFiles(sb, ws);

    // Killed half way, then --undo: every file back as before the rewind; the conversation was not touched.
    const left = await killMidRewind(sb, thread, gen);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(FILES);
    const undo = await rewind(sb, [thread, "--undo", "--json"]);
    expect(undo.json).toMatchObject({ conversation: false, files: { edited: [] } });
    expect(undo.json.files.restored.length).toBe(FILES - left);
    expect(allThere(gen)).toBe(true);
    expect((await rewind(sb, [thread, "--list", "--json"])).json.runs).toHaveLength(1);

    // Killed again, then `rewind` again: the interrupted rewind is finished (nothing more), its ref printed.
    const left2 = await killMidRewind(sb, thread, gen);
    expect(left2).toBeLessThan(FILES);
    const done = await rewind(sb, [thread, "--json"]);
    expect(done.json).toMatchObject({ resumed: true, conversation: true, scope: "both" });
    expect(done.json.files.restored.length).toBe(left2);
    expect(existsSync(gen)).toBe(false);
    expect(read(ws, "keep.txt")).toBe("before\n");
    expect(shown(done.json.files_before.git_dir, done.json.files_before.ref, "gen/f3000.txt")).toBe("file 3000\n");
    expect((await rewind(sb, [thread, "--list", "--json"])).json.runs).toHaveLength(0);

    // Killed during the rewind of a second run: `doctor` finishes it.
    await threadWithFiles(sb, ws, thread);
    await killMidRewind(sb, thread, gen);
    const doctor = await runCli(sb, ["doctor"]);
    expect(doctor.stdout).toMatch(
      new RegExp(`✓ rewind  finished rewind rewind-\\S+ of thread ${thread}, which was interrupted: \\d+ files?: .* restored \\(the files from before it are at refs/deerflow/rewound/rewind-\\S+\\)`),
    );
    expect(existsSync(gen)).toBe(false);

    // And during the rewind of a third: the next run on the thread finishes it first and says so.
    await threadWithFiles(sb, ws, thread);
    await killMidRewind(sb, thread, gen);
    e2e.server.push({ content: "Fresh start." });
    const next = await runCli(sb, ["run", "--thread", thread, "what is left?"]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /warning: Finished rewind rewind-\S+, which was interrupted: thread \S+ is rewound to before run run-\S+ \(1 run undone\): the conversation and \d+ files?: .* restored\. The files from before the rewind are kept at refs\/deerflow\/rewound\//,
    );
    expect(existsSync(gen)).toBe(false);
    expect(userTexts(e2e.server.requests.at(-1)!)).toEqual(["what is left?"]);
  }, 400_000);
});

describe("rewind --force", () => {
  it("with --list or --conversation-only is one line and exit 2 (it takes files back; those take none)", async () => {
    const sb = e2e.sandbox();
    for (const other of ["--list", "--conversation-only"]) {
      const r = await runCli(sb, ["rewind", "some-thread", "--force", other]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`--force takes files back; ${other} takes none.`);
    }
  }, 60_000);
});
