// Loads a CommonJS bundle (scripts/bundle-runtime.mjs, scripts/bundle-tui.mjs) through V8's code cache. Compiling the
// ~2.7 MB runtime is most of what importing it costs, and Node 20 has no compile cache of its own
// (module.enableCompileCache is 22+): the compiled code, including the functions the first start-up compiled lazily,
// is kept in the user's cache directory (config/cache-home.ts: one per user, shared by every data home) and handed
// back to V8 next time. The cache is only an accelerator: its name carries a hash of the bundle, the node and V8
// versions and the architecture (a rebuilt bundle or another node never reads an old one, and two versions of
// deerflow sharing the directory each keep their own); its bytes carry a keyed MAC (V8 checks the source length and
// flags, not the payload, in release builds; see below); it is written to a temporary file of its own and renamed (a
// crash leaves no half file; two processes writing at once each rename a whole file in); anything unreadable or
// rejected is ignored and rewritten.
// V8 also rejects a cache written under other V8 flags: a module that calls v8.setFlagsFromString when loaded must
// be loaded before the bundles are compiled (see load-runtime.ts), or every start compiles from scratch.
// WHY a keyed MAC, not a checksum: V8 trusts cached data as machine code, so a file with altered bytes and a
// recomputed checksum crashed every start (SIGSEGV) and could do worse. Each cache is signed with HMAC-SHA256 under a
// random key kept beside the caches (`code-cache.key`, 0600, in the 0700 cache directory, owned by the user), so
// only a cache this user's deerflow wrote is ever handed to V8; a key file anyone else could have written (other
// owner, group or world bits, a symlink: what a cloned repository or a copied home looks like) is replaced, which
// voids every cache signed with it. A cache directory owned by someone else, or one that cannot be made, means no
// cache at all (the bundle compiles as if none were there), never a failed start.
import { isAscii } from "node:buffer";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { chmodSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";

const MAGIC = Buffer.from("deerflow code cache 2\n");
const SUM_BYTES = 32;
/** Caches kept per bundle and use: the newest few, so two builds or node versions used in turn both stay warm. */
const KEPT_PER_USE = 3;
const KEY_FILE = "code-cache.key";
const KEY_BYTES = 32;

export interface LoadedBundle<T> {
  exports: T;
  /** How the cache was found: used, absent (first start, or a new bundle/node), or present but unusable. */
  cache: "used" | "absent" | "corrupt" | "rejected";
  /**
   * Writes the compiled code to the cache unless it was used as it was. Call it once the bundle has done its start-up
   * work, so the functions compiled lazily along the way are in it. Never throws: a cache that cannot be written
   * (read-only home, full disk) only means the next start compiles again.
   */
  saveCache(): void;
}

/** The MAC of a cache file's payload, bound to its name (a valid cache of one bundle is not one of another). */
function sum(key: Buffer, file: string, bytes: Uint8Array): Buffer {
  return createHmac("sha256", key).update(basename(file)).update("\0").update(bytes).digest();
}

const uid = () => process.getuid?.();

/** Owned by this user, and no one else may read or write it. */
function isPrivate(st: { uid: number; mode: number }): boolean {
  return (uid() === undefined || st.uid === uid()) && (st.mode & 0o077) === 0;
}

/** The cache directory, made (or tightened to) 0700; false when it is someone else's. */
function privateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (uid() !== undefined && st.uid !== uid())) return false;
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return true;
}

function readKey(file: string): Buffer | undefined {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || !isPrivate(st) || st.size !== KEY_BYTES) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * This cache directory's key, made on first use; undefined when the cache directory cannot be made private (then
 * no cache is read or written). A key file that is not private is replaced. Made beside and linked in, so two
 * starts at once agree on one key (link never replaces a file).
 */
export function codeCacheKey(cacheDir: string): Buffer | undefined {
  try {
    if (!privateDir(cacheDir)) return undefined;
    const file = join(cacheDir, KEY_FILE);
    const found = readKey(file);
    if (found) return found;
    rmSync(file, { force: true });
    const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, randomBytes(KEY_BYTES), { mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
    return readKey(file);
  } catch {
    return undefined;
  }
}

function readCache(file: string, key: Buffer): { data?: Buffer; state: "absent" | "corrupt" } {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch {
    return { state: "absent" };
  }
  const head = MAGIC.length + SUM_BYTES;
  if (raw.length <= head || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return { state: "corrupt" };
  const data = raw.subarray(head);
  if (!sum(key, file, data).equals(raw.subarray(MAGIC.length, head))) return { state: "corrupt" };
  return { data, state: "absent" };
}

function writeCache(file: string, key: Buffer, data: Buffer, prefix: string): void {
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([MAGIC, sum(key, file, data), data]), { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  pruneOlder(dirname(file), prefix);
}

/**
 * The caches of older bundles or other node versions are dead weight (a couple of MB each): all but the newest
 * KEPT_PER_USE of this prefix go. Not all but this one: two versions sharing the directory would delete each
 * other's cache on every start and never start warm.
 */
function pruneOlder(dir: string, prefix: string): void {
  const mine = readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && name.endsWith(".v8cache"))
    .flatMap((name) => {
      try {
        return [{ name, mtime: lstatSync(join(dir, name)).mtimeMs }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.mtime - a.mtime);
  for (const { name } of mine.slice(KEPT_PER_USE)) rmSync(join(dir, name), { force: true });
}

/** What a cache file's name starts with: the bundle, and the use it was compiled for (see loadBundle). */
function cachePrefix(bundle: string, use: string | undefined): string {
  return `${basename(bundle)}${use ? `.${use}` : ""}-`;
}

/** The cache file of `bundle`'s current source under this node: `<dir>/<bundle>[.<use>]-<key>.v8cache`. */
export function codeCacheFile(bundle: string, source: string | Uint8Array, cacheDir: string, use?: string): string {
  const key = createHash("sha256").update(source).update(`\0${process.version}\0${process.versions.v8}\0${process.arch}`).digest("hex").slice(0, 32);
  return join(cacheDir, `${cachePrefix(bundle, use)}${key}.v8cache`);
}

/**
 * Runs the CommonJS bundle `file` (as Node's own loader would: module, exports, require relative to it) and returns
 * its exports. `cacheDir` undefined: no cache at all. `use` names what the process will do with the bundle (`run`,
 * `chat`, …) when one bundle serves several commands: each gets a cache of its own, holding the functions its own
 * start compiled (a cache written by `deerflow threads` would hold little of what `run` needs, and a used cache is
 * never rewritten).
 */
export function loadBundle<T>(file: string, cacheDir: string | undefined, use?: string): LoadedBundle<T> {
  const raw = readFileSync(file);
  // The bundles are written ASCII-only (scripts/bundle-*.mjs, charset "ascii"): read as latin1, V8 keeps a one-byte
  // string, where decoding 3 MB of UTF-8 into a two-byte one cost a cold start ~40 ms and twice the memory.
  const source = isAscii(raw) ? raw.toString("latin1") : raw.toString("utf8");
  const key = cacheDir === undefined ? undefined : codeCacheKey(cacheDir);
  const cacheFile = cacheDir === undefined || key === undefined ? undefined : codeCacheFile(file, raw, cacheDir, use);
  const found = cacheFile === undefined || key === undefined ? { state: "absent" as const } : readCache(cacheFile, key);
  // The wrapper sits on a line of its own (lineOffset -1) so the bundle's positions in stack traces stay its own.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData: found.data,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache: LoadedBundle<T>["cache"] = found.data ? (script.cachedDataRejected ? "rejected" : "used") : found.state;
  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  let saved = cache === "used";
  return {
    exports: module.exports,
    cache,
    saveCache() {
      if (saved || cacheFile === undefined || key === undefined) return;
      saved = true;
      try {
        writeCache(cacheFile, key, script.createCachedData(), cachePrefix(file, use));
      } catch {
        // Only an accelerator: the next start compiles the bundle again.
      }
    },
  };
}
