// The chat runtime's V8 code cache (src/cli/code-cache.ts) against real files and a real vm.Script: a bundle loads
// the same with or without it; a stale, truncated, corrupt, altered or foreign cache is never handed over as it is but
// ignored and rewritten; a cache that cannot be written costs nothing but speed.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { isAscii } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCacheFile, codeCacheKey, loadBundle } from "../../src/cli/code-cache.js";

interface Bundle {
  answer: (n: number) => number;
  sibling: string;
  file: string;
  classNames: string[];
}

let dir: string;
let cacheDir: string;
let bundle: string;

function source(variant: string): string {
  // Real CommonJS as rolldown writes it: require relative to the bundle, __filename, classes whose names matter.
  return `"use strict";
const sibling = require("./sibling.cjs");
class RemoveMessage {}
class AIMessage {}
function answer(n) { let s = 0; for (let i = 0; i < n; i++) s += i * ${variant.length}; return s; }
module.exports = { answer, sibling: sibling.name, file: __filename, classNames: [RemoveMessage.name, AIMessage.name], variant: ${JSON.stringify(variant)} };
`;
}

function writeBundle(variant: string): void {
  writeFileSync(bundle, source(variant));
}

function cacheFiles(): string[] {
  try {
    return readdirSync(cacheDir)
      .filter((f) => f.endsWith(".v8cache"))
      .sort();
  } catch {
    return [];
  }
}

function load() {
  return loadBundle<Bundle>(bundle, cacheDir);
}

function expectWorking(b: ReturnType<typeof load>, variant = "v1"): void {
  expect(b.exports.answer(10)).toBe(45 * variant.length);
  expect(b.exports.sibling).toBe("sibling");
  expect(b.exports.file).toBe(bundle);
  expect(b.exports.classNames).toEqual(["RemoveMessage", "AIMessage"]);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "deerflow-code-cache-"));
  cacheDir = join(dir, "home", "cache");
  bundle = join(dir, "chat-session.cjs");
  writeFileSync(join(dir, "sibling.cjs"), `module.exports = { name: "sibling" };\n`);
  writeBundle("v1");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("code cache", () => {
  it("compiles without a cache, writes one once started, and the next load uses it", () => {
    const first = load();
    expect(first.cache).toBe("absent");
    expectWorking(first);
    expect(cacheFiles()).toEqual([]);
    first.saveCache();
    const [file] = cacheFiles();
    expect(file).toMatch(/^chat-session\.cjs-[0-9a-f]{32}\.v8cache$/);

    const second = load();
    expect(second.cache).toBe("used");
    expectWorking(second);
    const before = readFileSync(join(cacheDir, file!));
    second.saveCache();
    // A cache that was used is not rewritten.
    expect(readFileSync(join(cacheDir, file!)).equals(before)).toBe(true);
  });

  it("a rebuilt bundle never reads the old cache; the newest three builds' caches are kept, older ones removed", () => {
    load().saveCache();
    const [v1] = cacheFiles();
    writeBundle("v2-longer");
    const rebuilt = load();
    expect(rebuilt.cache).toBe("absent");
    expectWorking(rebuilt, "v2-longer");
    rebuilt.saveCache();
    // Two versions sharing the user's cache directory, used in turn, each keep theirs: this failed when writing one
    // removed every other, so each start of either compiled from scratch.
    expect(cacheFiles()).toHaveLength(2);
    writeBundle("v1");
    expect(load().cache).toBe("used");
    writeBundle("v2-longer");
    expect(load().cache).toBe("used");
    // Separate builds have distinct modification times: the oldest cache goes first.
    const age = (minutes: number) => {
      const newest = cacheFiles().find((f) => !agedOnes.has(f))!;
      agedOnes.add(newest);
      const t = new Date(Date.now() - minutes * 60_000);
      utimesSync(join(cacheDir, newest), t, t);
    };
    const agedOnes = new Set<string>([v1!]);
    utimesSync(join(cacheDir, v1!), new Date(Date.now() - 30 * 60_000), new Date(Date.now() - 30 * 60_000));
    age(20);
    writeBundle("v3-much-longer");
    load().saveCache();
    age(10);
    writeBundle("v4-longer-still");
    load().saveCache();
    expect(cacheFiles()).toHaveLength(3);
    expect(cacheFiles()).not.toContain(v1);
    expect(load().cache).toBe("used");
  });

  it("each use of one bundle keeps its own cache, so one command's start never stands in for another's", () => {
    const run = loadBundle<Bundle>(bundle, cacheDir, "run");
    run.saveCache();
    expect(cacheFiles()).toEqual([expect.stringMatching(/^chat-session\.cjs\.run-[0-9a-f]{32}\.v8cache$/)]);
    expect(loadBundle<Bundle>(bundle, cacheDir, "threads").cache).toBe("absent");
    expect(loadBundle<Bundle>(bundle, cacheDir, "run").cache).toBe("used");
  });

  it("a same-length edit of the bundle gets a cache of its own (V8 alone would only compare the length)", () => {
    load().saveCache();
    writeBundle("v9");
    const edited = load();
    expect(edited.cache).toBe("absent");
    expect((edited.exports as unknown as { variant: string }).variant).toBe("v9");
  });

  it("a corrupt or truncated cache is ignored, the bundle still loads, and the cache is rewritten", () => {
    load().saveCache();
    const file = join(cacheDir, cacheFiles()[0]!);
    const good = readFileSync(file);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 100]! ^= 0xff;
    writeFileSync(file, flipped);
    const afterFlip = load();
    expect(afterFlip.cache).toBe("corrupt");
    expectWorking(afterFlip);
    afterFlip.saveCache();
    expect(load().cache).toBe("used");

    for (const broken of [good.subarray(0, good.length - 1), good.subarray(0, 10), Buffer.alloc(0), Buffer.from("not a cache at all")]) {
      writeFileSync(file, broken);
      const b = load();
      expect(b.cache).toBe("corrupt");
      expectWorking(b);
    }
  });

  it("altered bytes under a recomputed checksum never reach V8 (they crashed every start): ignored and rebuilt", () => {
    load().saveCache();
    const file = join(cacheDir, cacheFiles()[0]!);
    const good = readFileSync(file);
    const head = "deerflow code cache 2\n".length;
    const payload = Buffer.from(good.subarray(head + 32));
    // Scribble over the middle of the compiled code, then recompute the plain SHA-256 the old format trusted.
    for (let i = Math.floor(payload.length / 3); i < Math.floor(payload.length / 3) + 64; i++) payload[i]! ^= 0x5a;
    writeFileSync(file, Buffer.concat([good.subarray(0, head), createHash("sha256").update(payload).digest(), payload]));
    const b = load();
    expect(b.cache).toBe("corrupt");
    expectWorking(b);
    b.saveCache();
    expect(load().cache).toBe("used");
  });

  it("the key is private to this home: 0600 in a 0700 directory; one anyone else could have written is replaced", () => {
    load().saveCache();
    const key = join(cacheDir, "code-cache.key");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFiles()[0]!)).mode & 0o777).toBe(0o600);
    const before = readFileSync(key);
    // A key as a cloned repository or a copied home would bring it (group- and world-readable): not trusted.
    chmodSync(key, 0o644);
    const b = load();
    expect(b.cache).toBe("corrupt");
    expectWorking(b);
    expect(readFileSync(key).equals(before)).toBe(false);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    b.saveCache();
    expect(load().cache).toBe("used");
    // A cache copied from another home (another key) is not this installation's either.
    const otherDir = join(dir, "other-home", "cache");
    loadBundle<Bundle>(bundle, otherDir).saveCache();
    const foreign = readdirSync(otherDir).find((f) => f.endsWith(".v8cache"))!;
    writeFileSync(join(cacheDir, foreign), readFileSync(join(otherDir, foreign)));
    expect(load().cache).toBe("corrupt");
  });

  it("a well-formed cache V8 refuses (compiled from other code) is reported as rejected and replaced", () => {
    // Another script's compiled code, signed with this home's key under this bundle's name (as this installation
    // would sign it): V8's own check is the last line.
    writeBundle("another-source-of-another-length");
    load().saveCache();
    const other = readFileSync(join(cacheDir, cacheFiles()[0]!));
    writeBundle("v1");
    const target = codeCacheFile(bundle, readFileSync(bundle, "utf8"), cacheDir);
    const head = "deerflow code cache 2\n".length;
    const payload = other.subarray(head + 32);
    const mac = createHmac("sha256", codeCacheKey(cacheDir)!).update(basename(target)).update("\0").update(payload).digest();
    const foreign = Buffer.concat([other.subarray(0, head), mac, payload]);
    writeFileSync(target, foreign);
    const b = load();
    expect(b.cache).toBe("rejected");
    expectWorking(b);
    b.saveCache();
    expect(load().cache).toBe("used");
    expect(createHash("sha256").update(readFileSync(target)).digest("hex")).not.toBe(createHash("sha256").update(foreign).digest("hex"));
  });

  it("a cache directory that cannot be written only costs speed", () => {
    mkdirSync(join(dir, "home"), { recursive: true });
    writeFileSync(cacheDir, "a file where the cache directory should be");
    const b = load();
    expect(b.cache).toBe("absent");
    expectWorking(b);
    expect(() => b.saveCache()).not.toThrow();
    expect(load().cache).toBe("absent");
  });

  it("no cache directory: loads without reading or writing a cache", () => {
    const b = loadBundle<Bundle>(bundle, undefined);
    expectWorking(b);
    b.saveCache();
    expect(readdirSync(dir).sort()).toEqual(["chat-session.cjs", "sibling.cjs"]);
  });

  it("a bundle with non-ASCII text loads it exactly; the built bundles are ASCII-only, so they take the one-byte fast path", () => {
    writeFileSync(bundle, source("caf\u00e9 \u2026 \u2192 \ud83d\ude80 \ufeff").replace('"use strict";', '"use strict"; // …'));
    const b = loadBundle<Bundle & { variant: string }>(bundle, cacheDir);
    expect(b.exports.variant).toBe("café … → 🚀 \ufeff");
    const built = ["runtime-bundle/runtime.cjs", "tui-bundle/start.cjs"].map((f) => new URL(`../../dist/${f}`, import.meta.url));
    for (const f of built) expect(isAscii(readFileSync(f)), `${f.pathname} has non-ASCII bytes: build it with charset "ascii"`).toBe(true);
  });
});
