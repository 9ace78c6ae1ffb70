// The search engine under grep and glob: ripgrep when it is installed, the JavaScript walker otherwise, with the
// same answer from both. What is searched: see ignore-rules.ts (.gitignore & co., `.git` never, `node_modules`
// only when asked). Order: ripgrep's `--sort path` (depth-first, names in byte order, a directory's contents right
// after its name), which the walker reproduces; it is stable, so a capped answer is the same prefix every time.
// Symlinks are never followed and never listed. ripgrep's answers are candidates only: every path is checked and
// every matching file re-read through the safe path (safe-fs.ts) before a byte is shown.
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { type ResolvedMounts, type ResolvedPath, hardLinksReadable, hiddenFromTools, isInside, realMounts } from "../sandbox/paths.js";
import { safeReadFile } from "../sandbox/safe-fs.js";
import { readForSearchSync } from "../sandbox/safe-fs-sync.js";
import { boundedMatcher, matchBatchBudgetMs } from "./bounded-regex.js";
import { comparePaths, walk } from "./fs-common.js";
import { ALWAYS_SKIPPED, IgnoreStack, VENDOR_DIR, explicitRules } from "./ignore-rules.js";
import { RG_TIME_LIMIT_MS, findRipgrep, runRipgrep } from "./ripgrep.js";

/** Files bigger than this are not searched by grep. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface SearchScope {
  mounts: ResolvedMounts;
  /** The directory searched (resolved, inside the mounts). */
  base: ResolvedPath;
  /** Search ignored files too (.gitignore & co., node_modules). */
  includeIgnored: boolean;
  /** Search node_modules (it is skipped otherwise, ignored or not). */
  includeVendor: boolean;
  signal?: AbortSignal;
  /** Force the engine (tests, bench); default ripgrep when it is on PATH. */
  engine?: "ripgrep" | "walker";
}

export interface FoundFile {
  hostPath: string;
  /** Relative to the searched directory, "/"-separated. */
  rel: string;
}

/** Why a search stopped early, for the note under the results. */
export interface SearchEnd {
  /** "backtrack": the walker's regex took over its budget (matchBatchBudgetMs) on one batch of files. */
  stoppedBy?: "time" | "abort" | "backtrack";
  /** ripgrep failed after it had found something (what it found is shown, with this). */
  warning?: string;
}

/**
 * What to do after rg exited: note a stop by time or cancel; when rg failed (a broken install, a crash, a pattern
 * its regex dialect rejects) and found nothing, the walker answers instead; when it found something first, the
 * answer says it may be incomplete.
 */
function afterRg(done: { code: number | null; stderr: string; stoppedBy?: string }, yielded: boolean, end: SearchEnd): "walker" | undefined {
  if (done.stoppedBy === "time" || done.stoppedBy === "abort") end.stoppedBy = done.stoppedBy;
  else if (done.stoppedBy === "limit" || done.code === 0 || done.code === 1) return undefined;
  else if (!yielded) return "walker";
  else end.warning = `[ripgrep failed (${done.stderr.split("\n")[0]?.slice(0, 200) || `exit ${done.code}`}); the results above may be incomplete.]`;
  return undefined;
}

/** The note under a search's results that says why it stopped early, if it did. */
export function stoppedNote(end: SearchEnd): string | undefined {
  if (end.stoppedBy === "time") return `[The search was stopped after ${RG_TIME_LIMIT_MS / 1000} s; the results above are partial. Narrow the path or pattern.]`;
  if (end.stoppedBy === "abort") return "[The search was cancelled; the results above are partial.]";
  if (end.stoppedBy === "backtrack") {
    return `[The search was stopped: the pattern took over ${matchBatchBudgetMs() / 1000} s on a few files (it backtracks: nested quantifiers such as (a+)+, or look-around); the results above are partial. Simplify the pattern.]`;
  }
  return end.warning;
}

interface Place {
  root: string;
  baseRel: string;
}

async function placeOf(scope: SearchScope): Promise<Place> {
  const list = await realMounts(scope.mounts);
  const m = list.find((x) => x.name === scope.base.mount)!;
  return { root: m.real, baseRel: relative(m.real, scope.base.hostPath).split(sep).join("/") };
}

export function engineOf(scope: Pick<SearchScope, "engine">): { engine: "ripgrep" | "walker"; rg: string | null } {
  if (scope.engine === "walker") return { engine: "walker", rg: null };
  const rg = findRipgrep();
  return rg ? { engine: "ripgrep", rg } : { engine: "walker", rg: null };
}

/** The arguments both rg modes share, and the ignore rules of the folders above the one searched. */
function rgCommon(scope: SearchScope, place: Place, sorted = true): { args: string[]; rules: string } {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-exclude"];
  if (sorted) args.push("--sort", "path");
  args.push("-g", `!${ALWAYS_SKIPPED}`, "-g", "!.deerflowrc");
  if (!scope.includeVendor && !scope.includeIgnored) args.push("-g", `!${VENDOR_DIR}`);
  if (scope.includeIgnored) args.push("--no-ignore");
  return { args, rules: scope.includeIgnored ? "" : explicitRules(place.root, place.baseRel, { vendor: scope.includeVendor }) };
}

/** A path rg printed (relative to the mount root, maybe "./"-prefixed), or undefined when it is not UTF-8. */
function decodePath(raw: Buffer): string | undefined {
  const s = raw.toString("utf8");
  if (!Buffer.from(s, "utf8").equals(raw)) return undefined; // no tool can name it
  return s.startsWith("./") ? s.slice(2) : s;
}

function relToBase(place: Place, mountRel: string): string | undefined {
  // rg prints paths under the relative path it was given; anything else (absolute, "..") is not believed.
  if (mountRel.startsWith("/") || mountRel.split("/").includes("..")) return undefined;
  if (!place.baseRel) return mountRel;
  return mountRel.startsWith(place.baseRel + "/") ? mountRel.slice(place.baseRel.length + 1) : undefined;
}

function walkerHide(scope: SearchScope): (hostPath: string) => boolean {
  const hidden = hiddenFromTools(scope.mounts);
  const vendor = !scope.includeVendor && !scope.includeIgnored;
  return (p) => {
    const name = basename(p);
    return name === ALWAYS_SKIPPED || (vendor && name === VENDOR_DIR) || hidden(p);
  };
}

/** Files (and directories) under the searched directory by the walker, in path order, ignored ones left out. */
export async function* walkEntries(scope: SearchScope, end: SearchEnd = {}): AsyncGenerator<FoundFile & { dir: boolean }> {
  const place = await placeOf(scope);
  const ignore = scope.includeIgnored ? undefined : { stack: IgnoreStack.forWalk(place.root, place.baseRel, { vendor: scope.includeVendor }), baseRel: place.baseRel };
  for await (const e of walk(scope.base.hostPath, { hide: walkerHide(scope), ignore })) {
    if (scope.signal?.aborted) {
      end.stoppedBy = "abort";
      return;
    }
    if (e.kind === "file" || e.kind === "dir") yield { hostPath: e.hostPath, rel: e.rel, dir: e.kind === "dir" };
  }
}

/**
 * Regular files under the searched directory, in path order, ignored ones left out unless asked. `sorted: false`
 * lets rg list in parallel, in no particular order (listMatching sorts).
 */
export async function* listFiles(scope: SearchScope, end: SearchEnd = {}, rgArgs: string[] = [], sorted = true): AsyncGenerator<FoundFile> {
  const { rg } = engineOf(scope);
  if (!rg) {
    for await (const e of walkEntries(scope, end)) if (!e.dir) yield e;
    return;
  }
  const place = await placeOf(scope);
  const { args, rules } = rgCommon(scope, place, sorted);
  const run = runRipgrep(rg, [...args, ...rgArgs, "--files", "-0", "--", place.baseRel || "."], { cwd: place.root, rules, separator: 0, signal: scope.signal });
  let yielded = false;
  for await (const raw of run.records) {
    const mountRel = decodePath(raw);
    const rel = mountRel === undefined ? undefined : relToBase(place, mountRel);
    if (rel === undefined) continue;
    yielded = true;
    yield { hostPath: join(place.root, mountRel!), rel };
  }
  if (afterRg(await run.done, yielded, end) === "walker") for await (const e of walkEntries(scope, end)) if (!e.dir) yield e;
}

/** Beyond this many matches, listMatching stops collecting and streams rg's sorted list instead. */
const COLLECT_MAX = 20_000;

/**
 * The first `limit` files (in path order) whose path relative to the searched directory passes `test`, and
 * whether there were more. With ripgrep: first its parallel, unsorted list (`rgArgs` narrow it), the matches
 * sorted here, which is what makes a selective pattern fast; when the matches pass COLLECT_MAX (a pattern that
 * matches most of the tree), its sorted list instead, read only up to the limit.
 */
export async function listMatching(scope: SearchScope, test: (rel: string) => boolean, limit: number, end: SearchEnd, rgArgs: string[] = []): Promise<{ files: FoundFile[]; more: boolean }> {
  const take = async (files: AsyncIterable<FoundFile>) => {
    const out: FoundFile[] = [];
    for await (const f of files) {
      if (!test(f.rel)) continue;
      out.push(f);
      if (out.length > limit) break;
    }
    return { files: out.slice(0, limit), more: out.length > limit };
  };
  if (engineOf(scope).rg) {
    const all: FoundFile[] = [];
    let overflow = false;
    for await (const f of listFiles(scope, end, rgArgs, false)) {
      if (!test(f.rel)) continue;
      all.push(f);
      if (all.length > COLLECT_MAX) {
        overflow = true;
        break;
      }
    }
    if (!overflow) {
      all.sort((a, b) => comparePaths(a.rel, b.rel));
      return { files: all.slice(0, limit), more: all.length > limit };
    }
  }
  return take(listFiles(scope, end, rgArgs));
}

/**
 * Check a listed path before it is shown: its directory really inside the mounts (cached per directory), the
 * entry a regular file that is not a symlink, and not one of deerflow's own files.
 */
export function pathChecker(mounts: ResolvedMounts): (hostPath: string) => Promise<boolean> {
  const dirs = new Map<string, Promise<boolean>>();
  const hidden = hiddenFromTools(mounts);
  return async (hostPath) => {
    const dir = dirname(hostPath);
    let ok = dirs.get(dir);
    if (!ok) {
      ok = realpath(dir).then(
        async (real) => real === dir && (await realMounts(mounts)).some((m) => isInside(real, m.real)) && !hidden(real),
        () => false,
      );
      dirs.set(dir, ok);
    }
    if (!(await ok)) return false;
    const st = await lstat(hostPath).catch(() => undefined);
    return !!st && st.isFile() && !hidden(hostPath);
  };
}

export interface GrepQuery {
  /** The JavaScript form (walker, and the re-check of rg's lines). */
  re: RegExp;
  pattern: string;
  literal: boolean;
  caseSensitive: boolean;
  /** Only files whose name (or, with a "/", relative path) matches. */
  fileFilter?: { re: RegExp; onPath: boolean; glob: string };
}

export interface GrepHit {
  /** The verified real host path of the file. */
  realPath: string;
  line: number;
  text: string;
}

function looksBinary(data: Buffer): boolean {
  return data.subarray(0, 8192).includes(0);
}

/** The lines of a file as text ("\r" of CRLF dropped), or undefined for a binary file. */
function linesOf(data: Buffer): string[] | undefined {
  if (looksBinary(data)) return undefined;
  return data
    .toString("utf8")
    .split("\n")
    .map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

async function readForSearch(hostPath: string, mounts: ResolvedMounts): Promise<{ realPath: string; lines: string[] } | undefined> {
  try {
    const r = await safeReadFile(hostPath, mounts, { maxBytes: GREP_MAX_FILE_BYTES });
    if (r.truncated || hiddenFromTools(mounts)(r.realPath)) return undefined;
    const lines = linesOf(r.data);
    return lines ? { realPath: r.realPath, lines } : undefined;
  } catch {
    return undefined; // refused (symlink swapped in, hard link without confinement) or unreadable
  }
}

function wantsFile(q: GrepQuery, rel: string): boolean {
  if (!q.fileFilter) return true;
  return q.fileFilter.re.test(q.fileFilter.onPath ? rel : rel.slice(rel.lastIndexOf("/") + 1));
}

/** Matching lines in path order; the caller stops iterating when it has enough (rg is killed then). */
export async function* grepFiles(scope: SearchScope, q: GrepQuery, end: SearchEnd = {}): AsyncGenerator<GrepHit> {
  const { rg } = engineOf(scope);
  // Unconfined, a hard link here may be a file from outside: rg would read its bytes (never shown, but read),
  // while the walker checks the link count before reading. So without confinement grep walks.
  if (!rg || !scope.base.isDirectory || !hardLinksReadable(scope.mounts)) return yield* grepWalker(scope, q, end);
  const place = await placeOf(scope);
  const { args, rules } = rgCommon(scope, place);
  const extra = ["--json", "--max-filesize", String(GREP_MAX_FILE_BYTES), q.caseSensitive ? "--case-sensitive" : "--ignore-case"];
  if (q.literal) extra.push("--fixed-strings");
  // A name-only filter narrows rg's search too, as a file type (a -g glob would override the ignore rules);
  // the exact test follows.
  if (q.fileFilter && !q.fileFilter.onPath && !q.fileFilter.glob.startsWith("include:")) extra.push("--type-add", `deerflow:${q.fileFilter.glob}`, "--type", "deerflow");
  const run = runRipgrep(rg, [...args, ...extra, "--regexp", q.pattern, "--", place.baseRel || "."], { cwd: place.root, rules, separator: 0x0a, signal: scope.signal });
  let current: { hostPath: string; read?: Promise<{ realPath: string; lines: string[] } | undefined> } | undefined;
  let yielded = false;
  for await (const raw of run.records) {
    let rec: { type?: string; data?: { path?: { text?: string }; line_number?: number; lines?: { text?: string; bytes?: string } } };
    try {
      rec = JSON.parse(raw.toString("utf8"));
    } catch {
      continue;
    }
    if (rec.type !== "match" || typeof rec.data?.path?.text !== "string" || typeof rec.data.line_number !== "number") continue;
    const mountRel = rec.data.path.text.startsWith("./") ? rec.data.path.text.slice(2) : rec.data.path.text;
    const rel = relToBase(place, mountRel);
    if (rel === undefined || !wantsFile(q, rel)) continue;
    const hostPath = join(place.root, mountRel);
    if (current?.hostPath !== hostPath) current = { hostPath, read: readForSearch(hostPath, scope.mounts) };
    const file = await current.read;
    if (!file) continue;
    // Show only what the safe read saw, and only where it agrees with rg (a file rewritten, or a directory
    // swapped, in between drops the line rather than showing bytes from elsewhere).
    const mine = file.lines[rec.data.line_number - 1];
    const theirs = rec.data.lines?.text ?? Buffer.from(rec.data.lines?.bytes ?? "", "base64").toString("utf8");
    if (mine === undefined || theirs.replace(/\r?\n$/, "") !== mine) continue;
    yielded = true;
    yield { realPath: file.realPath, line: rec.data.line_number, text: mine };
  }
  // rg's regex dialect differs from JavaScript's (no look-around or backreferences): when rg cannot compile the
  // pattern, which JavaScript accepted, it fails without a match and the walker answers instead.
  if (afterRg(await run.done, yielded, end) === "walker") yield* grepWalker(scope, q, end);
}

/** Files the walker's grep reads between two turns of the event loop (the UI and cancel stay responsive). */
const READ_BATCH = 64;
/** A batch of the walker's grep is matched at once (one time budget) up to this many bytes of text. */
const MATCH_BATCH_BYTES = 4 * 1024 * 1024;

async function* wantedFiles(scope: SearchScope, q: GrepQuery, end: SearchEnd): AsyncGenerator<FoundFile> {
  // A file named as the path is searched whatever the ignore rules and the glob filter say.
  if (!scope.base.isDirectory) return yield { hostPath: scope.base.hostPath, rel: "" };
  for await (const f of listFiles({ ...scope, engine: "walker" }, end)) if (wantsFile(q, f.rel)) yield f;
}

type FileLines = { realPath: string; lines: string[] };

/** The searchable lines of the wanted files, in order, read synchronously in batches. */
async function* readWanted(scope: SearchScope, q: GrepQuery, end: SearchEnd): AsyncGenerator<FileLines[]> {
  const hidden = hiddenFromTools(scope.mounts);
  let batch: FileLines[] = [];
  let bytes = 0;
  for await (const f of wantedFiles(scope, q, end)) {
    const r = readForSearchSync(f.hostPath, scope.mounts, GREP_MAX_FILE_BYTES);
    const lines = r && !hidden(r.realPath) ? linesOf(r.data) : undefined;
    if (r && lines) {
      batch.push({ realPath: r.realPath, lines });
      bytes += r.data.length;
    }
    if (batch.length >= READ_BATCH || bytes >= MATCH_BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (batch.length) yield batch;
}

async function* grepWalker(scope: SearchScope, q: GrepQuery, end: SearchEnd): AsyncGenerator<GrepHit> {
  const match = boundedMatcher(q.re);
  const budget = matchBatchBudgetMs();
  const deadline = Date.now() + RG_TIME_LIMIT_MS;
  for await (const batch of readWanted(scope, q, end)) {
    const hits = match(
      batch.map((f) => f.lines),
      Math.min(budget, deadline - Date.now()),
    );
    if (hits === "timeout") {
      // Keep what matches before the file that backtracks: the batch again, file by file, within one more budget.
      const stop = Math.min(Date.now() + budget, deadline);
      for (const file of batch) {
        const own = match([file.lines], stop - Date.now());
        if (own === "timeout") break;
        for (const [, i] of own) yield { realPath: file.realPath, line: i + 1, text: file.lines[i]! };
      }
      end.stoppedBy = Date.now() >= deadline ? "time" : "backtrack";
      return;
    }
    for (const [f, i] of hits) yield { realPath: batch[f]!.realPath, line: i + 1, text: batch[f]!.lines[i]! };
  }
}
