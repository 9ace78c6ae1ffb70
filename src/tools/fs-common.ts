// Shared plumbing of the file tools: where the thread's mounts come from, the ReadBeforeWrite record (read-records.ts), the
// directory walker (never follows symlinks) and a small glob matcher.
//
// Where the mounts come from (first that is set):
//   1. `options.mounts` given to the tool factory (tests, subagents bound to fixed directories);
//   2. `runtime.state.thread_data` — the ToolNode of createAgent passes the graph state as `runtime.state`
//      (langchain's ToolNode sets `state: config.configurable.__pregel_scratchpad.currentTaskInput`), and the
//      ThreadData middleware has recorded the paths there in beforeAgent;
//   3. `runtime.configurable.thread_data` (callers invoking a tool outside a graph);
//   4. the sandbox provider for `configurable.thread_id` (same rule as the ThreadData middleware).
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { type ResolvedMounts, resolveMounts } from "../sandbox/paths.js";
import { requireThreadId, resolveSandboxProvider } from "../sandbox/resolve-provider.js";
import { findBwrap } from "../sandbox/run-shell.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import type { IgnoreStack } from "./ignore-rules.js";
// Glob regexes (globToRegExp) fall back to V8's linear engine when they backtrack (see bounded-regex.ts).
import "./bounded-regex.js";

export interface FileToolOptions {
  /** Fixed mounts; when unset they are read from the graph state (thread_data) at call time. */
  mounts?: ThreadPaths;
  /**
   * Whether hard-linked files may be read (and replaced by a write): by default when the shell is confined by
   * bubblewrap, because a command inside it cannot link a file from outside (a link across mounts fails, EXDEV).
   */
  hardLinks?: "readable" | "refused";
}

/** The part of ToolRuntime the file tools use (kept loose: direct `.invoke` callers pass a plain config). */
export type RuntimeLike = {
  state?: unknown;
  configurable?: Record<string, unknown>;
  config?: { configurable?: Record<string, unknown> };
  toolCallId?: string;
  toolCall?: { id?: string };
};

function asPaths(v: unknown): ThreadPaths | undefined {
  const t = v as Partial<Record<keyof ThreadPaths, unknown>> | null | undefined;
  if (t && typeof t.workspace_path === "string" && typeof t.uploads_path === "string" && typeof t.outputs_path === "string") {
    return { workspace_path: t.workspace_path, uploads_path: t.uploads_path, outputs_path: t.outputs_path };
  }
  return undefined;
}

/** A tool runtime's `configurable` (LangGraph passes it at the top or under `config`, by version and caller). */
export function configurableOf(runtime: RuntimeLike | undefined): Record<string, unknown> | undefined {
  return runtime?.configurable ?? runtime?.config?.configurable;
}

function threadPaths(runtime: RuntimeLike | undefined, options: FileToolOptions): ThreadPaths {
  if (options.mounts) return options.mounts;
  const fromState = asPaths((runtime?.state as { thread_data?: unknown } | undefined)?.thread_data);
  if (fromState) return fromState;
  const configurable = configurableOf(runtime);
  const fromConfig = asPaths(configurable?.thread_data);
  if (fromConfig) return fromConfig;
  return resolveSandboxProvider(undefined, configurable).pathsFor(requireThreadId(configurable));
}

/** The call's mounts, resolved once for the whole call (see ResolvedMounts), with the hard-link policy. */
export function getMounts(runtime: RuntimeLike | undefined, options: FileToolOptions = {}): ResolvedMounts {
  const readable = (options.hardLinks ?? (findBwrap() ? "readable" : "refused")) === "readable";
  return resolveMounts(threadPaths(runtime, options), { hardLinksReadable: readable });
}

export function toolCallIdOf(runtime: RuntimeLike | undefined): string {
  return runtime?.toolCallId ?? runtime?.toolCall?.id ?? "";
}

// ReadBeforeWrite lives in read-records.ts (persisted with the thread).
export { assertReadCurrent, recordRead, resetReadRecords, sha256 } from "./read-records.js";

// ---------------------------------------------------------------------------------------------
// Walking and matching

export interface WalkEntry {
  /** Host path (inside a checked directory; symlinks are never followed). */
  hostPath: string;
  /** Path relative to the walk root, "/"-separated. */
  rel: string;
  kind: "file" | "dir" | "symlink" | "other";
  depth: number;
}

export interface WalkOptions {
  /** 1 = direct children only. */
  maxDepth?: number;
  /** Directory names never entered (listed, not descended). */
  skipDirs?: ReadonlySet<string>;
  /** Entries left out entirely (deerflow's own files: see hiddenFromTools). */
  hide?: (hostPath: string) => boolean;
  /** The repository's ignore rules (see ignore-rules.ts); `baseRel` is the walk root relative to the mount root. */
  ignore?: { stack: IgnoreStack; baseRel: string; onIgnored?: (e: WalkEntry) => void };
}

/** Names in byte order (ripgrep's --sort path order, so both engines list the same way). */
export function sortNames(names: string[]): string[] {
  return names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** An entry's kind from its directory entry; lstat only where the file system did not say (DT_UNKNOWN). */
async function kindOf(d: Dirent, hostPath: string): Promise<WalkEntry["kind"] | undefined> {
  const known = d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "dir" : d.isFile() ? "file" : d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice() ? "other" : undefined;
  if (!isUtf8Name(d.name)) return undefined;
  if (known) return known;
  const st = await lstat(hostPath).catch(() => undefined);
  if (!st) return undefined;
  return st.isSymbolicLink() ? "symlink" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
}

/** readdir decodes a name that is not UTF-8 with U+FFFD: such a file cannot be opened by its decoded name. */
function isUtf8Name(name: string): boolean {
  return !name.includes("\uFFFD");
}

/** The walk's order for two "/"-separated relative paths: folder by folder, names in byte order. */
export function comparePaths(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = Buffer.compare(Buffer.from(x[i]!), Buffer.from(y[i]!));
    if (c) return c;
  }
  return x.length - y.length;
}

/**
 * Depth-first walk that never follows symlinks, names in byte order within each directory, a directory's contents
 * right after it (ripgrep's `--sort path`). `maxDepth` 1 = direct children only.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Infinity;
  const ig = options.ignore;
  const mountRel = (rel: string) => (ig?.baseRel ? `${ig.baseRel}/${rel}` : rel);
  async function* rec(dir: string, relDir: string, depth: number, stack: IgnoreStack | undefined): AsyncGenerator<WalkEntry> {
    let entries: Dirent[];
    try {
      // The entry types come with the names (no lstat per entry); readdir never follows a symlink.
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const byName = new Map(entries.map((d) => [d.name, d]));
    for (const name of sortNames([...byName.keys()])) {
      const hostPath = join(dir, name);
      const rel = relDir ? `${relDir}/${name}` : name;
      if (options.hide?.(hostPath)) continue;
      const kind = await kindOf(byName.get(name)!, hostPath);
      if (!kind) continue; // vanished, or a name that is not valid UTF-8 (it cannot be named by a tool either)
      const entry: WalkEntry = { hostPath, rel, kind, depth };
      if (stack?.ignores(mountRel(rel), kind === "dir")) {
        ig?.onIgnored?.(entry);
        continue;
      }
      yield entry;
      if (kind === "dir" && depth < maxDepth && !options.skipDirs?.has(name)) yield* rec(hostPath, rel, depth + 1, stack?.child(hostPath, mountRel(rel)));
    }
  }
  yield* rec(root, "", 1, ig?.stack);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Compile a glob (`*`, `?`, `**`, `[...]`, `{a,b}`, `\x`) to a RegExp matching whole "/"-separated relative paths.
 * WHY not picomatch/minimatch: their regexes use look-around, which V8's linear-time engine cannot run, and the model
 * writes these globs: a glob with many stars could then backtrack for minutes with nothing able to stop it
 * (bounded-regex.ts). It is tested against minimatch, which follows bash (`[!a-c]`, `[]]x`, `a\*b`).
 */
export function globToRegExp(pattern: string): RegExp {
  let re = "";
  let i = 0;
  let braces = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        const atStart = i === 0 || pattern[i - 1] === "/";
        const atEnd = i + 2 === pattern.length || pattern[i + 2] === "/";
        if (atStart && atEnd) {
          if (pattern[i + 2] === "/") {
            re += "(?:[^/]*/)*";
            i += 3;
          } else {
            re += ".*";
            i += 2;
          }
          continue;
        }
        re += "[^/]*";
        i += 2;
        continue;
      }
      re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "\\" && i + 1 < pattern.length) {
      re += escapeRe(pattern[++i]!); // `a\*b` is a literal star, as in bash, picomatch and minimatch
    } else if (c === "[") {
      // A `]` right after `[` or `[!`/`[^` is a member, not the end (`[]]x`, `[!]]`), as POSIX says.
      const negated = pattern[i + 1] === "!" || pattern[i + 1] === "^";
      const first = i + (negated ? 2 : 1);
      let end = pattern[first] === "]" ? first + 1 : first;
      while (end < pattern.length && pattern[end] !== "]") end += pattern[end] === "\\" ? 2 : 1;
      if (end >= pattern.length) re += "\\[";
      else {
        // `\x` in a class is x; every member is escaped for the RegExp class but a range's "-".
        const members = pattern
          .slice(first, end)
          .replace(/\\(.)/g, "$1")
          .replace(/[\\\]^[]/g, "\\$&");
        re += `[${negated ? "^" : ""}${members}]`;
        i = end;
      }
    } else if (c === "{") {
      braces++;
      re += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      re += ")";
    } else if (c === "," && braces > 0) re += "|";
    else re += escapeRe(c);
    i++;
  }
  while (braces-- > 0) re += ")";
  return new RegExp(`^${re}$`);
}

// ---------------------------------------------------------------------------------------------
// Content sniffing

/** A known binary type by magic bytes, or undefined. */
export function sniffType(data: Buffer): { mime: string; label: string } | undefined {
  const at = (off: number, bytes: number[]) => bytes.every((b, i) => data[off + i] === b);
  const ascii = (off: number, s: string) => data.subarray(off, off + s.length).toString("latin1") === s;
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mime: "image/png", label: "PNG image" };
  if (at(0, [0xff, 0xd8, 0xff])) return { mime: "image/jpeg", label: "JPEG image" };
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return { mime: "image/gif", label: "GIF image" };
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return { mime: "image/webp", label: "WebP image" };
  if (ascii(0, "%PDF-")) return { mime: "application/pdf", label: "PDF document" };
  if (at(0, [0x50, 0x4b, 0x03, 0x04])) return { mime: "application/zip", label: "ZIP archive (or docx/xlsx/jar)" };
  if (at(0, [0x1f, 0x8b])) return { mime: "application/gzip", label: "gzip archive" };
  if (at(0, [0x7f, 0x45, 0x4c, 0x46])) return { mime: "application/x-elf", label: "ELF executable" };
  if (ascii(0, "SQLite format 3\0")) return { mime: "application/vnd.sqlite3", label: "SQLite database" };
  return undefined;
}

/** Binary: a known binary magic, a NUL byte in the first 8 KB, or mostly invalid UTF-8. */
export function describeBinary(data: Buffer): string | undefined {
  const known = sniffType(data);
  if (known) return known.label;
  const head = data.subarray(0, 8192);
  if (head.includes(0)) return "binary data";
  const text = head.toString("utf8");
  const bad = (text.match(/\uFFFD/g) ?? []).length;
  if (head.length > 0 && bad / Math.max(1, text.length) > 0.1) return "binary data (not UTF-8 text)";
  return undefined;
}
