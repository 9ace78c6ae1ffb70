// End to end through the built CLI: `deerflow run` starts from the runtime bundle through V8's code cache, kept in
// the user's cache directory (src/config/cache-home.ts) and shared by every data home; a cache directory that cannot
// be used costs only speed; and a thread written by the bundled CLI reads and continues in the unbundled runtime (the
// library, the in-process tests) and back: checkpoints name classes, which the bundle keeps (keepNames).
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../support/cli.js";
import { runCli } from "../support/cli-in-process.js";
import { useE2E } from "../support/e2e.js";

const e2e = useE2E();

const caches = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".v8cache")) : []);
const identity = (dir: string) => caches(dir).map((f) => `${f}:${statSync(join(dir, f)).ino}:${statSync(join(dir, f)).mtimeMs}`);

/** The code-cache lines of a debug log: how each start found the runtime's cache. */
function cacheStates(log: string): string[] {
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; cache?: string })
    .filter((e) => e.event === "cli.code_cache")
    .map((e) => e.cache!);
}

async function answers(sb: Sandbox, env: Record<string, string | undefined>, reply: string): Promise<void> {
  e2e.server.push({ content: reply });
  const r = await sb.run(["run", "hi"], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain(reply);
}

describe("the runtime's code cache", () => {
  it("a command started from a used cache still loads what the bundle leaves outside it (doctor's SQLite check, twice)", async () => {
    // On Node 20 an import() inside a script run from a used code cache fails ("A dynamic import callback was not
    // specified"): the second doctor said better-sqlite3 did not load and exited 1.
    const sb = e2e.sandbox();
    const cacheDir = join(sb.userHome, "doctor-cache");
    for (const start of ["writes the cache", "uses it"]) {
      const r = await sb.run(["doctor"], { env: { DEERFLOW_CACHE_DIR: cacheDir } });
      expect(r.stdout, start).toMatch(/^✓ sqlite +better-sqlite3 loads/m);
      expect(r.exitCode, `${start}: ${r.stdout}`).toBe(0);
    }
    expect(caches(cacheDir)).toEqual([expect.stringMatching(/^runtime\.cjs\.doctor-/)]);
  });

  it("is written once in the cache directory and used as it is by a start with another data home", async () => {
    const first = e2e.sandbox();
    const cacheDir = join(first.userHome, "shared-cache");
    const log = join(first.userHome, "debug.jsonl");
    await answers(first, { DEERFLOW_CACHE_DIR: cacheDir, DEERFLOW_LOG: log }, "First start.");
    expect(caches(cacheDir)).toEqual([expect.stringMatching(/^runtime\.cjs\.run-[0-9a-f]{32}\.v8cache$/)]);
    expect(statSync(join(cacheDir, "code-cache.key")).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    // Never in the data home (where it lived per home, so every fresh home compiled from scratch).
    expect(existsSync(join(first.home, "cache"))).toBe(false);

    const before = identity(cacheDir);
    // Another user home and data home: only the cache directory is shared.
    const second = e2e.sandbox();
    await answers(second, { DEERFLOW_CACHE_DIR: cacheDir, DEERFLOW_LOG: log }, "Second start.");
    expect(identity(cacheDir)).toEqual(before);
    expect(cacheStates(log)).toEqual([expect.stringMatching(/^(absent|rejected)$/), "used"]);
    expect(existsSync(join(second.home, "cache"))).toBe(false);
  });

  it("defaults to $XDG_CACHE_HOME/deerflow, else ~/.cache/deerflow", async () => {
    const sb = e2e.sandbox();
    const xdg = join(sb.userHome, "xdg-cache");
    await answers(sb, { DEERFLOW_CACHE_DIR: undefined, XDG_CACHE_HOME: xdg }, "Under XDG.");
    expect(caches(join(xdg, "deerflow"))).toHaveLength(1);
    await answers(sb, { DEERFLOW_CACHE_DIR: undefined }, "Under ~/.cache.");
    expect(caches(join(sb.userHome, ".cache", "deerflow"))).toHaveLength(1);
  });

  it("a cache directory that cannot be made, or is someone else's, only means no cache: the run still answers", async () => {
    const sb = e2e.sandbox();
    const notADir = join(sb.userHome, "a-file");
    writeFileSync(notADir, "a file where the cache directory's parent should be");
    await answers(sb, { DEERFLOW_CACHE_DIR: join(notADir, "cache") }, "No cache, still here.");
    // Someone else's directory (a planted cache or key could sit there): nothing is read from or written to it.
    if (process.getuid?.() !== 0) return; // only root can make a directory another user owns
    const foreign = join(sb.userHome, "foreign-cache");
    mkdirSync(foreign);
    chownSync(foreign, 4242, 4242);
    chmodSync(foreign, 0o777);
    await answers(sb, { DEERFLOW_CACHE_DIR: foreign }, "Still here.");
    expect(readdirSync(foreign)).toEqual([]);
    expect(statSync(foreign).mode & 0o777).toBe(0o777);
  });

  it("a thread the bundled CLI wrote continues in the unbundled runtime, and back", async () => {
    const sb = e2e.sandbox();
    // A tool call and its result in the checkpoint, as well as the plain messages.
    writeFileSync(join(sb.cwd, "note.txt"), "from-bundled\n");
    e2e.server.push({ toolCalls: [{ name: "read_file", args: { path: "note.txt" } }] }, { content: "Bundled turn done." });
    const bundled = await sb.run(["run", "--output-format", "json", "read the note"]);
    expect(bundled.exitCode, bundled.stderr).toBe(0);
    const { thread_id: thread } = JSON.parse(bundled.stdout) as { thread_id: string };

    // In-process: the modules as compiled from src, not the bundle.
    e2e.server.push({ content: "Unbundled turn done." });
    const unbundled = await runCli(sb, ["run", "--output-format", "json", "--thread", thread, "and again"]);
    expect(unbundled.exitCode, unbundled.stderr).toBe(0);
    const carried = e2e.server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    expect(carried.map((m) => m.role).filter((r) => r !== "system")).toEqual(expect.arrayContaining(["user", "assistant", "tool"]));
    expect(JSON.stringify(carried)).toContain("from-bundled");

    e2e.server.push({ content: "Bundled again." });
    const back = await sb.run(["run", "--output-format", "json", "--thread", thread, "once more"]);
    expect(back.exitCode, back.stderr).toBe(0);
    const shown = await sb.run(["threads", "show", thread]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    for (const text of ["Bundled turn done.", "Unbundled turn done.", "Bundled again."]) expect(shown.stdout).toContain(text);
  });
});
