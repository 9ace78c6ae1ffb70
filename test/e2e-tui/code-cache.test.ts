// End to end: the chat keeps V8's compiled code of its two bundles in the user's cache directory
// (src/cli/code-cache.ts, src/config/cache-home.ts). A cache someone or something damaged — truncated by a full disk,
// altered, left by another build — never stops the chat: it starts, answers, and writes a good cache again.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useE2E } from "../support/e2e.js";
import { submit, usePty, waitReady } from "../support/pty.js";

const e2e = useE2E();
const tui = usePty();
const MAGIC = "deerflow code cache 2\n";

function caches(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".v8cache"))
      .sort();
  } catch {
    return [];
  }
}

describe("code cache of the chat's bundles", () => {
  it("the first chat writes one per bundle; damaged ones are ignored, the chat works, and they are written again", async () => {
    const sb = e2e.sandbox();
    // Its own cache directory: the suite's shared one (test/support/cli.ts) is warm already.
    const cacheDir = join(sb.userHome, "code-cache");
    sb.env.DEERFLOW_CACHE_DIR = cacheDir;
    const first = tui.spawn(sb, ["chat"]);
    await waitReady(first);
    const written = caches(cacheDir);
    expect(written).toHaveLength(2);
    expect(written.some((f) => /^start\.cjs-[0-9a-f]{32}\.v8cache$/.test(f))).toBe(true);
    expect(written.some((f) => /^runtime\.cjs\.chat-[0-9a-f]{32}\.v8cache$/.test(f))).toBe(true);
    await first.kill();
    const files = written.map((f) => join(cacheDir, f));
    const identity = () => files.map((f) => `${statSync(f).ino}:${statSync(f).mtimeMs}`);

    // The next start uses them: V8 accepted both, so neither was rewritten (a rewrite renames a new file in). This
    // failed when a module of the runtime set a V8 flag while loading: every cache was refused and written again.
    const before = identity();
    const warm = tui.spawn(sb, ["chat"]);
    await waitReady(warm);
    await warm.kill();
    expect(identity()).toEqual(before);

    // One truncated (a full disk); one with its compiled code altered under a recomputed SHA-256 (V8 runs cached
    // data as machine code: this crashed every start with SIGSEGV when a plain checksum guarded it); plus a leftover
    // of an older build.
    const [a, b] = files;
    writeFileSync(a!, readFileSync(a!).subarray(0, 4096));
    const good = readFileSync(b!);
    const payload = Buffer.from(good.subarray(MAGIC.length + 32));
    for (let i = 4096; i < 4096 + 4096; i++) payload[i]! ^= 0xa5;
    writeFileSync(b!, Buffer.concat([good.subarray(0, MAGIC.length), createHash("sha256").update(payload).digest(), payload]));
    const leftover = join(cacheDir, `runtime.cjs.chat-${"0".repeat(32)}.v8cache`);
    writeFileSync(leftover, "from an older build");

    e2e.server.push({ content: "Answered with a damaged cache." });
    const second = tui.spawn(sb, ["chat"]);
    await waitReady(second);
    await submit(second, "are you there");
    await second.waitFor("Answered with a damaged cache.");
    // The older build's cache is kept (two versions sharing the directory each stay warm), never read.
    expect(caches(cacheDir)).toEqual([...written, basename(leftover)].sort());
    for (const f of [a!, b!]) {
      const bytes = readFileSync(f);
      expect(bytes.subarray(0, MAGIC.length).toString()).toBe(MAGIC);
      expect(bytes.length).toBeGreaterThan(100_000);
    }
  }, 120_000);

  it("is kept in ~/.cache/deerflow by default: not in the data home ~/.deerflowrc names, ~/.deerflow or the working directory", async () => {
    // This failed when the cache went to $DEERFLOW_HOME or ~/.deerflow whatever the config said (megabytes in a
    // directory the user never chose), and to ./cache in the project when DEERFLOW_HOME was set but empty; then when
    // it lived in the data home, so every fresh home compiled from scratch.
    const sb = e2e.sandbox();
    const userHome = dirname(sb.cwd);
    // The user's own file: a project's "home" applies only in a trusted folder (test/cli/trust.test.ts).
    writeFileSync(join(userHome, ".deerflowrc"), `{ "home": "data" } // relative to this file's folder\n`);
    const chat = tui.spawn(sb, ["chat"], { env: { DEERFLOW_HOME: "", DEERFLOW_CACHE_DIR: undefined } });
    await waitReady(chat);
    await chat.kill();
    expect(caches(join(userHome, ".cache", "deerflow"))).toHaveLength(2);
    expect(existsSync(join(userHome, "data", "cache"))).toBe(false);
    expect(existsSync(join(userHome, ".deerflow"))).toBe(false);
    expect(existsSync(join(sb.cwd, "cache"))).toBe(false);
    expect(caches(join(sb.home, "cache"))).toEqual([]);
  }, 120_000);
});
