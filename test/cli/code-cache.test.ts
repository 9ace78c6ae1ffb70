// The chat runtime's V8 code cache (src/cli/code-cache.ts) against real files and a real vm.Script: a bundle loads
// the same with or without it; a stale, truncated, corrupt or foreign cache is never handed over as it is but
// ignored and rewritten; a cache that cannot be written costs nothing but speed.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeCacheFile, loadBundle } from "../../src/cli/code-cache.js";

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
    return readdirSync(cacheDir).sort();
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

  it("a rebuilt bundle never reads the old cache, and the old one is removed when the new one is written", () => {
    load().saveCache();
    const [old] = cacheFiles();
    writeBundle("v2-longer");
    const rebuilt = load();
    expect(rebuilt.cache).toBe("absent");
    expectWorking(rebuilt, "v2-longer");
    rebuilt.saveCache();
    expect(cacheFiles()).toHaveLength(1);
    expect(cacheFiles()[0]).not.toBe(old);
    expect(load().cache).toBe("used");
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
    flipped[flipped.length - 100] ^= 0xff;
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

  it("a well-formed cache V8 refuses (compiled from other code) is reported as rejected and replaced", () => {
    // Another script's compiled code, wrapped with a valid checksum under this bundle's name.
    writeBundle("another-source-of-another-length");
    load().saveCache();
    const foreign = readFileSync(join(cacheDir, cacheFiles()[0]!));
    writeBundle("v1");
    const target = codeCacheFile(bundle, readFileSync(bundle, "utf8"), cacheDir);
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
});
