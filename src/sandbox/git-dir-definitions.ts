// Files of the workspace repository's git dir that define, besides its config (bound read-only), where the user's git
// pushes and what it shows: git's legacy remote files `remotes/<name>` and `branches/<name>` (the thirty-first pass's
// A31b-3 defined `origin` there, and the user's `git push origin` went into a bare repository whose hook it planted),
// and replace refs, loose in `refs/replace/` or lines of `packed-refs` (the thirty-second pass's A32b-2: `git log` and
// `git diff` showed a harmless commit while `git push` sent the one it replaced). A command writing them by hand is
// not git doing its work (`git replace` itself asks): after each command, one the run added is moved aside (a replace
// ref removed, a packed line taken out), one it changed is put back. The user's own stay. So for `info/` (exclude,
// attributes, grafts, sparse-checkout), which changes what the user's review views show, and for git's caches below.
// The git dirs of nested checkouts get the same care (the thirty-seventh pass's A37a-3 hid a committed edit there with
// a replace ref); in one first seen after the run began, nothing is the user's.
import { type Dirent, closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { identityOf } from "./file-identity.js";
import { cacheHolds, cacheKind } from "./git-cache-check.js";
import { forgetOperationStates, noteOperationStates } from "./git-operation-state.js";
import { toUser } from "./repair-lines.js";
import { createFileWithin, editFileWithin, isMovedAside, moveAsideWithin, removeFileWithin } from "./repair-within.js";
import { listForGuard } from "./guard-listing.js";
import { readRegularFile } from "./regular-file.js";

/**
 * git's caches that it trusts as it trusts objects: a commit-graph gave HEAD another root tree, so a staged edit was
 * gone from git status, git diff and git commit -a (the thirty-seventh pass's A37c-5); a multi-pack-index can map an
 * id to another object's bytes. One the run wrote or changed that does not verify against the objects
 * (git-cache-check.ts) is moved aside, never put back (binary): git works without them and writes them again at its
 * next gc.
 */
const CACHE =
  "it is a cache git trusts for what commits and objects hold: git status, git diff and git log could show another history than the one git push sends (git writes it again at its next gc)";
const FOLDERS: Record<string, string> = {
  remotes: "it defines a git remote, and your git push or fetch to that name would go where the run chose",
  branches: "it defines a git remote, and your git push or fetch to that name would go where the run chose",
  "refs/replace": "it is a replace ref: git log and git diff would show another commit than the one git push sends",
  "objects/info/commit-graphs": CACHE,
  // git reuses a resolution recorded there by itself, no config needed: the user's next merge wrote the run's content
  // with no conflict shown (the thirty-eighth pass's A38c-3)
  "rr-cache": "git reuses the conflict resolutions recorded there: your next merge or rebase would write the run's content with no conflict shown",
};
/**
 * Single files, by name only: git itself writes `packs` beside them. An `alternates` a command wrote lent the history
 * to a folder it chose: the user's next gc (git runs one on its own) dropped every object found there, and deleting
 * that folder lost the history (the thirty-seventh pass's A37a-1).
 */
const INFO = "git reads it for what git status, git diff and git log show (ignored files, attributes, grafts, the sparse checkout)";
const ALTERNATES = "it points git at objects kept outside .git: your git gc would drop what is there, and deleting that folder would lose history";
const FILES: Record<string, string> = {
  // `info/exclude` hid a planted .npmrc from git status, `info/attributes` (`app.js -diff`) an edit from git diff (the
  // thirty-sixth pass's A36b-8); `info/grafts` rewrites history as replace refs do. git reads no other file of `info/`
  // (`info/refs` is what `git gc` writes for serving over dumb HTTP: A40c-2 had it moved aside).
  "info/exclude": INFO,
  "info/attributes": INFO,
  "info/grafts": INFO,
  "info/sparse-checkout": INFO,
  // `git fetch --depth=1` from the repository itself made it shallow: git log stopped at one commit, and the next gc
  // pruned the rest (the thirty-eighth pass's A38b-5); a shallow clone's own file, changed, is put back.
  shallow: "it tells git where history ends: git log and git blame would stop there, and your next gc would prune the commits past it",
  "objects/info/alternates": ALTERNATES,
  "objects/info/http-alternates": ALTERNATES,
  "objects/info/commit-graph": CACHE,
  "objects/pack/multi-pack-index": CACHE,
};
const isCache = (rel: string) => FILES[rel] === CACHE || rel.startsWith("objects/info/commit-graphs/");
const PACKED_REPLACE = /^[0-9a-f]+ refs\/replace\//i; // git reads an upper-case id too (A38c-7)

/** Per file there when the run started: its text (null: not a small regular file) and identity (file-identity.ts). */
const atStart = new Map<string, { text: string | null; id: string }>();
/** Per git dir: the replace lines its packed-refs held at the start. */
const packedAtStart = new Map<string, Set<string>>();
/** Per git dir: the identity of the `packed-refs` last read (read again only when it changed). */
const packedSeen = new Map<string, string>();

function read(path: string): string | null {
  return readRegularFile(path, 64 * 1024)?.toString("utf8") ?? null;
}

/** How deep names nest under one of FOLDERS (`remotes/team/origin`, `refs/replace/x/<hex>`): git reads any depth. */
const MAX_DEPTH = 8;

/**
 * The files under FOLDERS, at any depth. A name deerflow gave when it moved a remote aside is skipped there (git reads
 * a remote by its exact name); never under refs/replace, which deerflow empties and where git reads the hex a name
 * starts with after its last `/`, so `<hex>.deerflow-removed` and `x/<hex>` both count (the thirty-sixth pass's A36a-10).
 */
function filesOf(gitDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, replace: boolean, depth: number) => {
    let listing: Dirent[];
    try {
      listing = listForGuard(dir, true);
    } catch {
      return;
    }
    for (const e of listing) {
      if (!replace && isMovedAside(e.name)) continue;
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) walk(join(dir, e.name), replace, depth + 1);
      } else out.push(join(dir, e.name));
    }
  };
  for (const d of Object.keys(FOLDERS)) walk(join(gitDir, d), d === "refs/replace", 0);
  for (const rel of Object.keys(FILES)) if (lstatSync(join(gitDir, rel), { throwIfNoEntry: false })) out.push(join(gitDir, rel));
  return out;
}

/** Calls `on` with each line of the file open at `fd`, read in chunks as bytes (latin1 keeps every byte as it was). */
function eachLine(fd: number, on: (line: string) => void): void {
  const buf = Buffer.alloc(1 << 20);
  let rest = "";
  for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
    const lines = (rest + buf.toString("latin1", 0, n)).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) on(l);
  }
  if (rest) on(rest);
}

/** Each line of the regular file `path`, in chunks: `on` for each. */
function eachLineOf(path: string, on: (line: string) => void): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (fstatSync(fd).isFile()) eachLine(fd, on);
  } finally {
    closeSync(fd);
  }
}

/**
 * The replace lines of `packed-refs`, whatever its size: git reads one of any size (a repository with many tags has one
 * past 64 KiB, where the thirty-sixth pass's A36a-4 hid a replace ref; the thirty-seventh's A37a-2 padded one past the
 * 16 MiB deerflow read then).
 */
function packedReplaceLines(gitDir: string): string[] {
  const file = join(gitDir, "packed-refs");
  if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return [];
  const out: string[] = [];
  eachLineOf(file, (l) => PACKED_REPLACE.test(l) && out.push(l));
  return out;
}

/** Rewrites the file `copy` without the lines in `drop`, in chunks. */
function withoutLines(copy: string, drop: ReadonlySet<string>): void {
  const out = openSync(`${copy}.new`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    eachLineOf(copy, (l) => drop.has(l) || writeSync(out, `${l}\n`, null, "latin1"));
  } finally {
    closeSync(out);
  }
  renameSync(`${copy}.new`, copy);
}

/**
 * What the git dir holds now is the user's (once per run). `empty`: a git dir first seen after the run began (a
 * repository it made, or a nested one found later): nothing in it is.
 */
export function noteGitDirDefinitions(gitDir: string, empty = false): void {
  noteOperationStates(gitDir, empty); // and what it has in progress (a rebase), checked at the end
  if (packedAtStart.has(gitDir)) return;
  packedAtStart.set(gitDir, new Set(empty ? [] : packedReplaceLines(gitDir)));
  packedSeen.set(gitDir, empty ? "" : identityOf(join(gitDir, "packed-refs")));
  if (empty) return;
  for (const f of filesOf(gitDir)) atStart.set(f, { text: isCache(f.slice(gitDir.length + 1)) ? null : read(f), id: identityOf(f) });
}

/** A file of only comments and blank lines, as `git init` writes `info/exclude`: git reads nothing from it. */
const inert = (f: string) =>
  read(f)
    ?.split("\n")
    .every((l) => l.trim() === "" || l.trimStart().startsWith("#")) ?? false;

const whyOf = (gitDir: string, file: string) => {
  const rel = file.slice(gitDir.length + 1);
  if (rel in FILES) return FILES[rel];
  const folder = Object.keys(FOLDERS).find((d) => rel.startsWith(`${d}/`));
  return folder ? FOLDERS[folder] : "git reads it";
};

/** Moves aside or puts back what the run added or changed; the lines saying so. `roots`: where deerflow may repair. */
export function checkGitDirDefinitions(gitDir: string, roots: readonly string[]): string[] {
  noteGitDirDefinitions(gitDir, true);
  const lines: string[] = [];
  // Caches last: they are verified against the objects, so never before an alternates the run added is moved aside.
  const files = filesOf(gitDir);
  const cacheFile = (f: string) => isCache(f.slice(gitDir.length + 1));
  const verified = new Map<string, boolean>();
  for (const f of [...files.filter((f) => !cacheFile(f)), ...files.filter(cacheFile)]) {
    const before = atStart.get(f);
    const id = identityOf(f);
    if (before && id === before.id) continue;
    if (!before && !f.includes("/refs/replace/") && inert(f)) continue;
    const rel = f.slice(gitDir.length + 1);
    if (isCache(rel)) {
      const kind = cacheKind(rel);
      if (!verified.has(kind)) verified.set(kind, cacheHolds(gitDir, rel));
      // One git wrote (a gc) holds: kept, and looked at again only when it changes.
      if (verified.get(kind)) {
        atStart.set(f, { text: null, id });
        continue;
      }
    }
    try {
      // git reads a replace ref by the hex its name starts with, so one renamed in place still counts: removed (its
      // text, an object id, is in the line).
      if (!before && f.includes("/refs/replace/")) {
        const text = (read(f) ?? "").trim().slice(0, 64);
        removeFileWithin(f, roots);
        lines.push(`deerflow removed ${f} (${text}): the run added it, and ${whyOf(gitDir, f)}.`);
      } else if (before?.text == null) lines.push(`deerflow moved ${f} to ${moveAsideWithin(f, roots)}: the run ${before ? "changed" : "added"} it, and ${whyOf(gitDir, f)}.`);
      else {
        removeFileWithin(f, roots);
        createFileWithin(f, roots, before.text);
        before.id = identityOf(f);
        lines.push(`deerflow put back ${f} as it was before the run: ${whyOf(gitDir, f)}.`);
      }
    } catch (err) {
      lines.push(`deerflow could not repair ${f} (${(err as Error).message}): ${whyOf(gitDir, f)}; remove it before you run git there.`);
    }
  }
  const known = packedAtStart.get(gitDir)!;
  const packed = join(gitDir, "packed-refs");
  const packedId = identityOf(packed);
  if (packedSeen.get(gitDir) === packedId) return lines;
  packedSeen.set(gitDir, packedId);
  const added = packedReplaceLines(gitDir).filter((l) => !known.has(l));
  if (added.length > 0) {
    const what = `${added.length === 1 ? "a replace ref" : `${added.length} replace refs`} the run added`;
    try {
      editFileWithin(packed, roots, (copy) => withoutLines(copy, new Set(added)), Number.POSITIVE_INFINITY);
      lines.push(`deerflow took ${what} out of ${packed}: ${FOLDERS["refs/replace"]}.`);
    } catch (err) {
      packedSeen.delete(gitDir); // tried again after the next command
      const line = `deerflow could not take ${what} out of ${packed} (${(err as Error).message}): ${FOLDERS["refs/replace"]}; run git replace -d before you push.`;
      toUser.hear(line);
      lines.push(line);
    }
  }
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetGitDirDefinitions(): void {
  forgetOperationStates();
  atStart.clear();
  packedAtStart.clear();
  packedSeen.clear();
}
