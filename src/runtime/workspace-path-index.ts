// The workspace's files for `@` completion: listed once in the background by the search engine the glob and grep
// tools use (ripgrep, or the JavaScript walker), so `.gitignore`, `.ignore` and `.git/info/exclude` are respected
// the same way, `.git` and `node_modules` are skipped and deerflow's own files are hidden. A keystroke only runs a
// fuzzy match over the list in memory; it never waits for the disk. Listed again after each run (the agent may have
// added files), the old list answering until the new one is complete.
import { type FoundFile, type SearchScope, listFiles } from "../tools/search-files.js";
import { resolveMounts, resolveSandboxPath } from "../sandbox/paths.js";
import { bestMatches } from "../vocabulary/fuzzy-match.js";

/** Beyond this many files the list stops (a home directory bound by mistake must not fill memory). */
export const PATH_INDEX_MAX_FILES = 500_000;

interface Entry {
  /** Relative to the workspace, "/"-separated; a directory ends with "/". */
  text: string;
  lower: string;
  nameStart: number;
}

function entryOf(text: string): Entry {
  const trimmed = text.endsWith("/") ? text.slice(0, -1) : text;
  return { text, lower: text.toLowerCase(), nameStart: trimmed.lastIndexOf("/") + 1 };
}

export interface PathIndexState {
  status: "empty" | "indexing" | "ready" | "failed" | "refused";
  /** Why the folder is not listed ("refused": a folder a workspace may not be, such as $HOME or /). */
  reason?: string;
  files: number;
  /** ms the last complete listing took. */
  tookMs?: number;
  truncated?: boolean;
}

export class WorkspacePathIndex {
  private entries: Entry[] = [];
  private files = 0;
  private building: Promise<void> | undefined;
  private again = false;
  private readonly listeners = new Set<() => void>();
  state: PathIndexState = { status: "empty", files: 0 };
  /** The last query and what matched it: a query that extends it searches only those (typing narrows). */
  private last: { query: string; hits: Entry[] } | undefined;

  /** `refusal`: why `root` must not be listed (the workspace check's words); then nothing is. */
  constructor(
    readonly root: string,
    refusal?: string,
  ) {
    if (refusal) this.state = { status: "refused", files: 0, reason: refusal };
  }

  /** Called whenever a listing completes (or fails): a menu showing "indexing…" asks again. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lists the workspace in the background (a refresh asked for during a listing runs once it ends). */
  refresh(): Promise<void> {
    if (this.state.status === "refused") return Promise.resolve();
    if (this.building) {
      this.again = true;
      return this.building;
    }
    if (this.state.status === "empty") this.state = { status: "indexing", files: 0 };
    this.building = this.list()
      .catch(() => {
        if (this.state.status !== "ready") this.state = { status: "failed", files: 0 };
      })
      .finally(() => {
        this.building = undefined;
        for (const l of this.listeners) l();
        if (this.again) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.building;
  }

  private async list(): Promise<void> {
    const started = performance.now();
    const mounts = resolveMounts({ workspace_path: this.root, uploads_path: this.root, outputs_path: this.root });
    const base = await resolveSandboxPath(this.root, mounts, { mustExist: true, kind: "dir" });
    const scope: SearchScope = { mounts, base, includeIgnored: false, includeVendor: false };
    const files: FoundFile[] = [];
    let truncated = false;
    for await (const f of listFiles(scope, {}, [], false)) {
      if (files.length >= PATH_INDEX_MAX_FILES) {
        truncated = true;
        break;
      }
      files.push(f);
    }
    const dirs = new Set<string>();
    for (const f of files) for (let i = f.rel.lastIndexOf("/"); i > 0 && !dirs.has(f.rel.slice(0, i + 1)); i = f.rel.lastIndexOf("/", i - 1)) dirs.add(f.rel.slice(0, i + 1));
    // Shallow first, then by name: an empty query shows the top of the tree.
    const keyed = [...dirs, ...files.map((f) => f.rel)].map((text) => ({ text, depth: depth(text) }));
    keyed.sort((a, b) => a.depth - b.depth || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    const texts = keyed.map((k) => k.text);
    this.entries = texts.map(entryOf);
    this.files = files.length;
    this.last = undefined;
    this.state = { status: "ready", files: files.length, tookMs: Math.round(performance.now() - started), truncated };
  }

  /** The best `limit` paths (directories end with "/") for `query`; [] until the first listing is done. */
  search(query: string, limit: number): string[] {
    const q = query.toLowerCase();
    if (q === "") return this.entries.slice(0, limit).map((e) => e.text);
    if (q.length === 1) return this.firstLetter(q, limit);
    const pool = this.last && q.startsWith(this.last.query) ? this.last.hits : this.entries;
    // One pass: every hit is kept (the next keystroke narrows from them: ranking may change as the query grows).
    const hits: Entry[] = [];
    const top = bestMatches(
      pool,
      q,
      limit,
      (e) => e,
      (e) => hits.push(e),
    );
    this.last = { query: q, hits };
    return top.map((e) => e.text);
  }

  /**
   * A one-letter query matches nearly every path, so it is not ranked (that is the slowest keystroke on a big
   * tree): names starting with it, shallow first, then the others; the next letter narrows from all its hits.
   */
  private firstLetter(q: string, limit: number): string[] {
    const hits: Entry[] = [];
    const top: string[] = [];
    for (const e of this.entries) {
      if (!e.lower.includes(q)) continue;
      hits.push(e);
      if (top.length < limit && e.lower[e.nameStart] === q) top.push(e.text);
    }
    this.last = { query: q, hits };
    for (const e of hits) {
      if (top.length >= limit) break;
      if (e.lower[e.nameStart] !== q) top.push(e.text);
    }
    return top;
  }

  get size(): number {
    return this.files;
  }
}

function depth(p: string): number {
  let n = 0;
  for (let i = 0; i < p.length - 1; i++) if (p[i] === "/") n++;
  return n;
}
