// An index's entries as git's review views use them. `git status` and `git diff` trust an entry whose recorded file
// data (times, inode, size) match the file on disk, and never read the file: a command that `git add`ed its edit, then
// wrote the committed blob's id into that entry, hid the edit from `git status`, `git diff HEAD` and `git commit -a`,
// and the user's `npm test` ran it (the thirty-sixth pass's A36b-6). So an entry whose file data changed since the last
// look, and which git would trust, has its file hashed; one whose content is not what the entry names is reset to
// carry no file data, so git reads the file again. Read and written under deerflow's own empty repository (plain-git.ts).
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { plainGit } from "./plain-git.js";

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
}

const ENTRY = /^(\S) (\d{6}) ([0-9a-f]{40,64}) (\d)\t([\s\S]*)$/;

/**
 * `ls-files -v --stage --debug -z`: each entry's line ends in NUL, and its five debug lines (`  ctime: s:ns`, `  mtime:
 * s:ns`, `  dev: d\tino: i`, `  uid: u\tgid: g`, `  size: n\tflags: f`) come before the next entry's line.
 */
function parse(out: string): Omit<IndexListing, "format"> {
  const flagged = new Set<string>();
  const entries = new Map<string, IndexEntry>();
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
    last = { path, entry: { mode, oid, stat: "" } };
    if (stage === "0") entries.set(path, last.entry);
  }
  return { flagged, entries };
}

/** The index of `gitDir` (worktree `top`) listed in its object format; undefined when git cannot read it. */
export function listIndex(index: string, top: string): IndexListing | undefined {
  for (const format of ["sha1", "sha256"] as const) {
    try {
      return { format, ...parse(plainGit(["ls-files", "-v", "--stage", "--debug", "-z"], { cwd: top, index, format })) };
    } catch {
      // the other object format next
    }
  }
  return undefined;
}

/** The file data git records for `path` now, as the index stores it (seconds, 32-bit inode). */
function fileStat(path: string): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false, bigint: true });
  if (!st?.isFile()) return undefined;
  return [st.ctimeMs / 1000n, st.mtimeMs / 1000n, st.ino & 0xffffffffn, st.size & 0xffffffffn].join(":");
}

/**
 * The entries whose file data changed since `before` (path → stat), which git would trust (the data match the file)
 * while the file's content is not the blob they name.
 */
export function lyingEntries(index: string, top: string, before: Map<string, IndexEntry>, now: IndexListing): string[] {
  const trusted = [...now.entries].filter(([path, e]) => /^100(644|755)$/.test(e.mode) && before.get(path)?.stat !== e.stat && fileStat(join(top, path)) === e.stat);
  // Hashed here first (a `git add` of an honest edit is the common case: no git started for it); what differs is asked
  // of git, whose attributes (end-of-line conversion) can make the blob differ from the bytes.
  const suspects = trusted.filter(([path, e]) => blobIdOf(join(top, path), now.format) !== e.oid && !path.includes("\n"));
  if (suspects.length === 0) return [];
  const hashes = plainGit(["hash-object", "--stdin-paths"], { cwd: top, workTree: top, index, format: now.format, input: `${suspects.map(([p]) => p).join("\n")}\n` }).split("\n");
  return suspects.filter(([, e], i) => hashes[i] !== e.oid).map(([path]) => path);
}

/** Files up to this size are hashed in process; larger ones are left to git. */
const HASH_IN_PROCESS_BYTES = 16 * 1024 * 1024;

/** git's id of the file's bytes as a blob (undefined when too large to read here). */
function blobIdOf(path: string, format: "sha1" | "sha256"): string | undefined {
  let fd: number;
  try {
    // Never through a link, never waiting on a FIFO a job swapped in since the file was looked at.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > HASH_IN_PROCESS_BYTES) return undefined;
    const data = readFileSync(fd);
    return createHash(format).update(`blob ${data.length}\0`).update(data).digest("hex");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Resets each entry to carry no file data (same blob, same mode), so git reads the file again. */
export function forgetFileData(index: string, top: string, listing: IndexListing, paths: string[]): void {
  const info = paths.map((p) => `${listing.entries.get(p)!.mode} ${listing.entries.get(p)!.oid} 0\t${p}\0`).join("");
  plainGit(["update-index", "-z", "--index-info"], { cwd: top, workTree: top, index, format: listing.format, input: info });
}
