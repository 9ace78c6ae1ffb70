// An index's entries as git's review views use them. `git status` and `git diff` trust an entry whose recorded file
// data (times, inode, size) match the file on disk, and never read the file: a command that `git add`ed its edit, then
// wrote the committed blob's id into that entry, hid the edit from `git status`, `git diff HEAD` and `git commit -a`,
// and the user's `npm test` ran it (the thirty-sixth pass's A36b-6). So an entry whose file data changed since the last
// look, and which git would trust, has its file hashed; one whose content is not what the entry names is reset to
// carry no file data, so git reads the file again. Read and written under deerflow's own empty repository (plain-git.ts).
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { forgedPath } from "./forged-index.js";
import { plainGit } from "./plain-git.js";
import { readRegularFile } from "./regular-file.js";

export interface IndexEntry {
  mode: string;
  oid: string;
  /** The recorded file data: ctime and mtime seconds, inode (32 bits), size. */
  stat: string;
}

export interface IndexListing {
  format: "sha1" | "sha256";
  /** The paths with the assume-unchanged (lowercase tag) or skip-worktree (`S`) bit. */
  flagged: Set<string>;
  entries: Map<string, IndexEntry>;
  /** The first path git would never add (`../.bashrc`), when the index lists one (forged-index.ts). */
  forged?: string;
}

const ENTRY = /^(\S) (\d{6}) ([0-9a-f]{40,64}) (\d)\t([\s\S]*)$/;

/**
 * `ls-files -v --stage --debug -z`: each entry's line ends in NUL, and its five debug lines (`  ctime: s:ns`, `  mtime:
 * s:ns`, `  dev: d\tino: i`, `  uid: u\tgid: g`, `  size: n\tflags: f`) come before the next entry's line.
 */
function parse(out: string): Omit<IndexListing, "format"> {
  const flagged = new Set<string>();
  const entries = new Map<string, IndexEntry>();
  let forged: string | undefined;
  let last: { path: string; entry: IndexEntry } | undefined;
  for (const chunk of out.split("\0")) {
    const lines = chunk.split("\n");
    const debug = last ? lines.splice(0, 5) : [];
    if (last && debug.length === 5) {
      const num = (i: number, re: RegExp) => re.exec(debug[i]!)?.[1] ?? "?";
      last.entry.stat = [num(0, /ctime: (\d+)/), num(1, /mtime: (\d+)/), num(2, /ino: (\d+)/), num(4, /size: (\d+)/)].join(":");
    }
    const m = ENTRY.exec(lines.join("\n"));
    if (!m) continue;
    const [, tag, mode, oid, stage, path] = m as unknown as [string, string, string, string, string, string];
    if (tag === "S" || tag !== tag.toUpperCase()) flagged.add(path);
    if (forged === undefined && forgedPath(path)) forged = path;
    last = { path, entry: { mode, oid, stat: "" } };
    if (stage === "0") entries.set(path, last.entry);
  }
  return { flagged, entries, forged };
}

/**
 * The formats to read an index in, its own first. git ends an index with its checksum in the repository's hash, and
 * reading a sha256 index as sha1 does not fail: it lists garbage paths (`./`), which were taken for bits to clear and
 * for a forged entry. An index written without a checksum (index.skipHash) is tried as sha1 first.
 */
function formatsOf(index: string): readonly ("sha1" | "sha256")[] {
  try {
    const st = lstatSync(index);
    if (st.isFile() && st.size >= 12 + 32) {
      const data = readFileSync(index);
      if (createHash("sha256").update(data.subarray(0, -32)).digest().equals(data.subarray(-32))) return ["sha256", "sha1"];
    }
  } catch {
    // git says what is wrong with it
  }
  return ["sha1", "sha256"];
}

/** The index of `gitDir` (worktree `top`) listed in its object format; undefined when git cannot read it. */
export function listIndex(index: string, top: string): IndexListing | undefined {
  for (const format of formatsOf(index)) {
    try {
      return { format, ...parse(plainGit(["ls-files", "-v", "--stage", "--debug", "-z"], { cwd: top, index, format })) };
    } catch {
      // the other object format next
    }
  }
  return undefined;
}

const LINK_MODE = "120000";

/** The file data git records for `path` now, as the index stores it (seconds, 32-bit inode); `link`: a symlink entry's. */
function fileStat(path: string, link: boolean): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false, bigint: true });
  if (!st || !(link ? st.isSymbolicLink() : st.isFile())) return undefined;
  return [st.ctimeMs / 1000n, st.mtimeMs / 1000n, st.ino & 0xffffffffn, st.size & 0xffffffffn].join(":");
}

/**
 * The entries whose file data or blob changed since `before` (path → entry), which git would trust (the data match the
 * file) while the file's content is not the blob they name. A blob swapped in a later command, the file data left
 * alone, counts (the thirty-seventh pass's A37c-2), and so does a symlink's entry, whose blob is the link's target
 * (A37c-1: a link retargeted to a planted script, its entry naming the committed target).
 */
export function lyingEntries(index: string, top: string, before: Map<string, IndexEntry>, now: IndexListing): string[] {
  const changed = (path: string, e: IndexEntry) => before.get(path)?.stat !== e.stat || before.get(path)?.oid !== e.oid;
  const trusted = [...now.entries].filter(([path, e]) => /^(100644|100755|120000)$/.test(e.mode) && changed(path, e) && fileStat(join(top, path), e.mode === LINK_MODE) === e.stat);
  // A link's blob is its target's bytes, with no conversion: hashed here only.
  const links = trusted.filter(([path, e]) => e.mode === LINK_MODE && linkBlobIdOf(join(top, path), now.format) !== e.oid).map(([path]) => path);
  // Hashed here first (a `git add` of an honest edit is the common case: no git started for it); what differs is asked
  // of git, whose attributes (end-of-line conversion) can make the blob differ from the bytes.
  const suspects = trusted.filter(([path, e]) => e.mode !== LINK_MODE && blobIdOf(join(top, path), now.format) !== e.oid && !path.includes("\n"));
  if (suspects.length === 0) return links;
  const hashes = plainGit(["hash-object", "--stdin-paths"], { cwd: top, workTree: top, index, format: now.format, input: `${suspects.map(([p]) => p).join("\n")}\n` }).split("\n");
  return [...links, ...suspects.filter(([, e], i) => hashes[i] !== e.oid).map(([path]) => path)];
}

const blobOf = (data: Buffer, format: "sha1" | "sha256") => createHash(format).update(`blob ${data.length}\0`).update(data).digest("hex");

/** git's id of a symlink's target as a blob (undefined when it is no longer a link). */
function linkBlobIdOf(path: string, format: "sha1" | "sha256"): string | undefined {
  try {
    return blobOf(readlinkSync(path, { encoding: "buffer" }), format);
  } catch {
    return undefined;
  }
}

/** Files up to this size are hashed in process; larger ones are left to git. */
const HASH_IN_PROCESS_BYTES = 16 * 1024 * 1024;

/** git's id of the file's bytes as a blob (undefined when too large to read here). */
function blobIdOf(path: string, format: "sha1" | "sha256"): string | undefined {
  // Never through a link, never waiting on a FIFO a job swapped in since the file was looked at.
  const bytes = readRegularFile(path, HASH_IN_PROCESS_BYTES);
  return bytes && blobOf(bytes, format);
}

/** Resets each entry to carry no file data (same blob, same mode), so git reads the file again. */
export function forgetFileData(index: string, top: string, listing: IndexListing, paths: string[]): void {
  const info = paths.map((p) => `${listing.entries.get(p)!.mode} ${listing.entries.get(p)!.oid} 0\t${p}\0`).join("");
  plainGit(["update-index", "-z", "--index-info"], { cwd: top, workTree: top, index, format: listing.format, input: info });
}
