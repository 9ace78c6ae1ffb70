// Two extensions of git's index are caches git trusts without looking: the cache-tree (`TREE`, each folder's tree id)
// and the untracked cache (`UNTR`, each folder's untracked files). A command that forged them had the user's next
// `git commit -am` record a file content `git diff` never showed, and `git status` leave out a planted `.npmrc` that the
// user's `git add -A` then committed (the thirty-eighth pass's A38c-5 and A38c-4). So an index a command changed loses
// both (git builds them again at its next commit and status); nothing else in it changes. The file is read here, by
// git's documented layout (gitformat-index), and written back through repair-within.ts.
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { editFileWithin } from "./repair-within.js";

/** The caches dropped: git trusts them for what a commit records and what git status lists. */
const CACHES = new Set(["TREE", "UNTR"]);
/** An index larger than this is left as it is (a repository with a million files has one of ~100 MB). */
const MAX_BYTES = 256 * 1024 * 1024;

/** Where the entries of `data` end (the first extension), or undefined when it is not an index this reads. */
function entriesEnd(data: Buffer, hashBytes: number): number | undefined {
  if (data.length < 12 + hashBytes || data.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = data.readUInt32BE(8);
  const fixed = 40 + hashBytes + 2; // times, dev, ino, mode, uid, gid, size; the id; the flags
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + fixed > data.length) return undefined;
    const flags = data.readUInt16BE(at + fixed - 2);
    at += fixed + (version >= 3 && flags & 0x4000 ? 2 : 0);
    if (version === 4) {
      while (at < data.length && data[at]! & 0x80) at++; // the varint of the prefix it strips
      at++;
    }
    const nul = data.indexOf(0, at);
    if (nul < 0) return undefined;
    at = version === 4 ? nul + 1 : start + Math.ceil((nul - start + 1) / 8) * 8;
  }
  return at <= data.length - hashBytes ? at : undefined;
}

/** `data` without the cache extensions, or undefined when it has none (or is not an index this reads). */
export function withoutCaches(data: Buffer, format: "sha1" | "sha256"): Buffer | undefined {
  const hashBytes = format === "sha256" ? 32 : 20;
  const end = entriesEnd(data, hashBytes);
  if (end === undefined) return undefined;
  const kept: Buffer[] = [data.subarray(0, end)];
  let dropped = false;
  for (let at = end; at < data.length - hashBytes; ) {
    if (at + 8 > data.length - hashBytes) return undefined;
    const size = data.readUInt32BE(at + 4);
    const next = at + 8 + size;
    if (next > data.length - hashBytes) return undefined;
    if (CACHES.has(data.toString("latin1", at, at + 4))) dropped = true;
    else kept.push(data.subarray(at, next));
    at = next;
  }
  if (!dropped) return undefined;
  const body = Buffer.concat(kept);
  return Buffer.concat([body, createHash(format).update(body).digest()]);
}

/** Drops the cache extensions from the index at `index` (a regular file); true when it had any. */
export function dropIndexCaches(index: string, format: "sha1" | "sha256", roots: readonly string[]): boolean {
  const st = lstatSync(index, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size > MAX_BYTES) return false;
  if (!withoutCaches(readFileSync(index), format)) return false;
  editFileWithin(
    index,
    roots,
    (copy) => {
      const out = withoutCaches(readFileSync(copy), format);
      if (out) writeFileSync(copy, out);
    },
    MAX_BYTES,
  );
  return true;
}
