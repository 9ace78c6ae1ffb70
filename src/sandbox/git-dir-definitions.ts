// Files of the workspace repository's git dir that define, besides its config (bound read-only), where the user's git
// pushes and what it shows: git's legacy remote files `remotes/<name>` and `branches/<name>` (the thirty-first pass's
// A31b-3 defined `origin` there, and the user's `git push origin` went into a bare repository whose hook it planted),
// and replace refs, loose in `refs/replace/` or lines of `packed-refs` (the thirty-second pass's A32b-2: `git log` and
// `git diff` showed a harmless commit while `git push` sent the one it replaced). A command writing them by hand is
// not git doing its work (`git replace` itself asks): after each command, one the run added is moved aside (a replace
// ref removed, a packed line taken out), one it changed is put back. The user's own stay. So for `info/` (exclude,
// attributes, grafts, sparse-checkout), which changes what the user's review views show.
import { type Dirent, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityOf } from "./file-identity.js";
import { EDIT_MAX_BYTES, createFileWithin, editFileWithin, isMovedAside, moveAsideWithin, removeFileWithin } from "./repair-within.js";
import { listForGuard } from "./guard-listing.js";

const FOLDERS: Record<string, string> = {
  remotes: "it defines a git remote, and your git push or fetch to that name would go where the run chose",
  branches: "it defines a git remote, and your git push or fetch to that name would go where the run chose",
  "refs/replace": "it is a replace ref: git log and git diff would show another commit than the one git push sends",
  // `info/exclude` hid a planted .npmrc from git status, `info/attributes` (`app.js -diff`) an edit from git diff (the
  // thirty-sixth pass's A36b-8); `info/grafts` rewrites history as replace refs do
  info: "git reads it for what git status, git diff and git log show (ignored files, attributes, grafts)",
};
/**
 * Single files, by name only: git itself writes `commit-graph` and `packs` beside them. An `alternates` a command wrote
 * lent the history to a folder it chose: the user's next gc (git runs one on its own) dropped every object found
 * there, and deleting that folder lost the history (the thirty-seventh pass's A37a-1).
 */
const FILES: Record<string, string> = Object.fromEntries(
  ["alternates", "http-alternates"].map((name) => [
    `objects/info/${name}`,
    "it points git at objects kept outside .git: your git gc would drop what is there, and deleting that folder would lose history",
  ]),
);
const PACKED_REPLACE = /^[0-9a-f]+ refs\/replace\//;

/** Per file there when the run started: its text (null: not a small regular file) and identity (file-identity.ts). */
const atStart = new Map<string, { text: string | null; id: string }>();
/** Per git dir: the replace lines its packed-refs held at the start. */
const packedAtStart = new Map<string, Set<string>>();
/** Per git dir: the identity of the `packed-refs` last read (one too large to read is said once per change). */
const packedSeen = new Map<string, string>();

function read(path: string): string | null {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.size <= 64 * 1024 ? readFileSync(path, "utf8") : null;
  } catch {
    return null;
  }
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
  const info = join(gitDir, "objects", "info");
  let named: Dirent[] = [];
  try {
    named = listForGuard(info, true);
  } catch {
    // no objects/info
  }
  for (const e of named) if (`objects/info/${e.name}` in FILES) out.push(join(info, e.name));
  return out;
}

/**
 * The replace lines of `packed-refs`, read whole up to the size a repair edits (git reads one of any size: a repository
 * with many tags has one past 64 KiB, where the thirty-sixth pass's A36a-4 hid a replace ref); null when it is larger.
 */
function packedReplaceLines(gitDir: string): string[] | null {
  const file = join(gitDir, "packed-refs");
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) return [];
  if (st.size > EDIT_MAX_BYTES) return null;
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => PACKED_REPLACE.test(l));
}

/** What the git dir holds now is the user's (once per run). */
export function noteGitDirDefinitions(gitDir: string): void {
  if (packedAtStart.has(gitDir)) return;
  packedAtStart.set(gitDir, new Set(packedReplaceLines(gitDir) ?? []));
  packedSeen.set(gitDir, identityOf(join(gitDir, "packed-refs")));
  for (const f of filesOf(gitDir)) atStart.set(f, { text: read(f), id: identityOf(f) });
}

const whyOf = (gitDir: string, file: string) => {
  const rel = file.slice(gitDir.length + 1);
  if (rel in FILES) return FILES[rel];
  const folder = Object.keys(FOLDERS).find((d) => rel.startsWith(`${d}/`));
  return folder ? FOLDERS[folder] : "git reads it";
};

/** Moves aside or puts back what the run added or changed; the lines saying so. `roots`: where deerflow may repair. */
export function checkGitDirDefinitions(gitDir: string, roots: readonly string[]): string[] {
  noteGitDirDefinitions(gitDir);
  const lines: string[] = [];
  for (const f of filesOf(gitDir)) {
    const before = atStart.get(f);
    if (before && identityOf(f) === before.id) continue;
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
  const packedNow = packedReplaceLines(gitDir);
  if (packedNow === null) {
    lines.push(`deerflow could not look for replace refs in ${packed} (larger than ${EDIT_MAX_BYTES} bytes): run git replace -l before you trust git log or git diff there.`);
    return lines;
  }
  const added = packedNow.filter((l) => !known.has(l));
  if (added.length > 0) {
    const what = `${added.length === 1 ? "a replace ref" : `${added.length} replace refs`} the run added`;
    try {
      editFileWithin(packed, roots, (copy) =>
        writeFileSync(
          copy,
          readFileSync(copy, "utf8")
            .split("\n")
            .filter((l) => !added.includes(l))
            .join("\n"),
        ),
      );
      lines.push(`deerflow took ${what} out of ${packed}: ${FOLDERS["refs/replace"]}.`);
    } catch (err) {
      packedSeen.delete(gitDir); // tried again after the next command
      lines.push(`deerflow could not take ${what} out of ${packed} (${(err as Error).message}): ${FOLDERS["refs/replace"]}; run git replace -d before you push.`);
    }
  }
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetGitDirDefinitions(): void {
  atStart.clear();
  packedAtStart.clear();
  packedSeen.clear();
}
