// A thread's shadow repository: git objects and refs in the data directory (`threads/<id>/snapshots.git`) that record
// the workspace's files before each run, with the workspace as git's work tree. The user's own `.git` is never read
// or written (git never adds a path named `.git`, and the repository is always named explicitly; see git.ts), their
// `.gitignore` files are respected, and their attributes cannot transform bytes (info/attributes turns text, eol and
// filter conversion off). What is not recorded, and so never restored nor deleted by a rewind: ignored files, files
// over MAX_FILE_BYTES, and the contents of nested repositories (a directory with its own `.git` is recorded as a
// pointer only). A repository created with its workspace's store (workspace-store.ts) keeps its objects there,
// shared with the workspace's other threads; one from before that keeps its own.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { type GitTarget, git, nulList } from "./git.js";
import { ignoredAt } from "./ignored-at.js";
import { lstatSafe, removeFiles } from "./work-tree-files.js";
import { type WorkspaceStore, hasObject, writeIndexCopy } from "./workspace-store.js";

/** Files larger than this are not recorded (a model's build output or dataset should not double the disk use). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The ref that always names the newest snapshot; one ref per run and per rewind keeps the others reachable. */
const HEAD_REF = "refs/deerflow/head";
export const runRef = (runId: string) => `refs/deerflow/runs/${runId}`;
export const rewoundRef = (rewindId: string) => `refs/deerflow/rewound/${rewindId}`;
/**
 * The files as deerflow last left them: written when a run ends and after a rewind or undo, deleted before anything
 * touches the files (a run's start, a rewind's restore), so it never outlives a process killed half way. What
 * differs from it is the user's own editing, which a rewind leaves alone.
 */
const LEFT_REF = "refs/deerflow/left";

const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n";
const REPO_CONFIG = "[core]\n\tbare = false\n\tautocrlf = false\n\tsymlinks = true\n\thooksPath = /dev/null\n\tuntrackedCache = true\n[gc]\n\tauto = 0\n";
/** Per snapshot commit, the paths it left out for their size or as nested repositories (see recordExcluded). */
const EXCLUDED_DIR = "deerflow-excluded";
/**
 * From this many changed paths on, `git add` takes the whole work tree instead of the list: git matches every path
 * it looks at against every listed one, so 20,000 listed paths (a first snapshot) took 15 s where the whole tree
 * takes one hashing pass.
 */
const WHOLE_TREE_AT = 256;
/** Where a repository that uses a shared store names it (git's own mechanism, so `git --git-dir … show` works by hand). */
const ALTERNATES = join("objects", "info", "alternates");

export interface Snapshot {
  /** The commit holding the files. */
  commit: string;
  /** Workspace-relative files left out for their size. */
  oversize: string[];
  /** Nested repositories (directories with their own `.git`) left out, with a trailing `/`. */
  nested: string[];
}

export interface RestoreResult {
  /** Files written back or deleted, workspace-relative. */
  restored: string[];
  /** Paths left as they are: over the size cap now, nested repositories, or missing from the target only because it
   * did not record them (ignored by its .gitignore files, or over the size cap then). */
  skipped: string[];
  /** Paths the user changed since deerflow last left the workspace that the restore would change: left as they are,
   * unless the caller forced them (then they are in `restored` too). */
  edited: string[];
}

/** One `.gitignore` line that matches exactly this workspace-relative path. */
function excludeLine(path: string): string {
  return `/${path.replace(/[\\*?[]/g, (c) => `\\${c}`).replace(/ $/, "\\ ")}`;
}

export class ShadowRepo {
  readonly target: GitTarget;
  /** The shared object directory this repository uses (null: its own objects); read from its alternates. */
  private sharedDir: string | null | undefined;

  /** `store`: the workspace's shared store, used when this creates the repository (and for its seed). */
  constructor(
    gitDir: string,
    workTree: string,
    private readonly store?: WorkspaceStore,
  ) {
    this.target = { gitDir, workTree };
  }

  /** Where a thread's shadow repository lives in the data directory. */
  static dirFor(home: string, threadId: string): string {
    return join(home, "threads", threadId, "snapshots.git");
  }

  get exists(): boolean {
    return existsSync(join(this.target.gitDir, "HEAD"));
  }

  /** The shared store's object directory, if this repository was created with one. */
  private get sharedObjects(): string | undefined {
    if (this.sharedDir === undefined) {
      try {
        const line = readFileSync(join(this.target.gitDir, ALTERNATES), "utf8").split("\n")[0]!.trim();
        this.sharedDir = line ? resolve(this.target.gitDir, "objects", line) : null;
      } catch {
        this.sharedDir = null;
      }
    }
    return this.sharedDir ?? undefined;
  }

  /** Git on this repository; with a shared store, objects are read from and written to the store. */
  private run(args: string[], opts?: { input?: string; allowFail?: boolean; env?: Record<string, string> }, workTree = this.target.workTree) {
    const shared = this.sharedObjects;
    return git({ gitDir: this.target.gitDir, workTree }, args, shared ? { ...opts, env: { GIT_OBJECT_DIRECTORY: shared, ...opts?.env } } : opts);
  }

  /** Creates the repository in a temporary directory and renames it into place, so a kill leaves none or a whole one. */
  private async init(): Promise<void> {
    if (this.exists) return;
    const { gitDir, workTree } = this.target;
    const tmp = `${gitDir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(dirname(gitDir), { recursive: true });
    await git({ gitDir: tmp, workTree }, ["init", "-q", "--bare"], { bare: true });
    // Written here rather than by a `git config` each (a git process costs 10-20 ms, more on a busy machine): the
    // later of two values wins, and a section may repeat. Snapshots are commits on refs/deerflow/head; refs are never
    // packed (gc is off), so they can be read as files.
    appendFileSync(join(tmp, "config"), REPO_CONFIG);
    writeFileSync(join(tmp, "HEAD"), `ref: ${HEAD_REF}\n`);
    mkdirSync(join(tmp, "info"), { recursive: true });
    writeFileSync(join(tmp, "info", "attributes"), ATTRIBUTES);
    writeFileSync(join(tmp, "info", "exclude"), "");
    if (this.store) {
      this.store.join(workTree);
      // Relative to the objects directory, as git reads it: the data directory can move as a whole.
      writeFileSync(join(tmp, ALTERNATES), `${relative(join(gitDir, "objects"), this.store.objectsDir)}\n`);
    }
    rmSync(gitDir, { recursive: true, force: true });
    renameSync(tmp, gitDir);
    this.sharedDir = undefined;
  }

  /**
   * Before a snapshot in a shared store. A thread with no snapshot yet starts from the store's seed: the index that
   * describes the workspace's newest snapshot, and a commit of its own of that tree, so the snapshot then costs
   * what changed since (git re-reads a file whose size, times or inode differ from the index's). A head whose
   * objects are gone (the store was removed as this thread joined it) is dropped: the snapshot is taken whole.
   */
  private async startFromStore(shared: string, message: string): Promise<void> {
    this.store?.join(this.target.workTree);
    const head = this.readRef(HEAD_REF);
    if (head && hasObject(shared, head)) return;
    if (head) rmSync(join(this.target.gitDir, HEAD_REF), { force: true });
    const seed = this.store?.readSeed();
    if (!seed) return rmSync(join(this.target.gitDir, "index"), { force: true });
    writeIndexCopy(join(this.target.gitDir, "index"), seed);
    this.writeRef(HEAD_REF, await this.commitTree(seed.tree, undefined, message));
  }

  private async commitTree(tree: string, parent: string | undefined, message: string): Promise<string> {
    // The message on stdin, never in argv (every local user can read a process's argv while it runs); a NUL is
    // shown as U+2400 "␀", as git would cut the message there.
    const args = ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "--no-gpg-sign"];
    return (await this.run(args, { input: `${message.replaceAll("\0", "\u2400")}\n` })).stdout.trim();
  }

  /** A lock file left by a git killed mid-write. Only called under the thread's run lock, so no live git holds it. */
  private clearStaleLocks(): void {
    for (const f of ["index.lock", "HEAD.lock", "packed-refs.lock"]) rmSync(join(this.target.gitDir, f), { force: true });
  }

  async resolve(ref: string): Promise<string | undefined> {
    const r = await this.run(["rev-parse", "-q", "--verify", `${ref}^{commit}`], { allowFail: true });
    return r.exitCode === 0 ? r.stdout.trim() : undefined;
  }

  /**
   * Brings the index up to the workspace (respecting .gitignore, leaving out files over the cap) and returns its tree.
   * Only what `git status` reports changed is looked at, so a snapshot after the first costs about one status.
   */
  private async stage(): Promise<{ oversize: string[]; nested: string[]; changed: boolean }> {
    const exclude = join(this.target.gitDir, "info", "exclude");
    writeFileSync(exclude, "");
    const status = nulList((await this.run(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"])).stdout);
    const changed: string[] = [];
    const oversize: string[] = [];
    /** Recorded paths to drop from the index: deleted, or grown over the cap. */
    const gone: string[] = [];
    let staged = false;
    for (const entry of status) {
      // "XY path": X is the index against the last snapshot (HEAD), Y the work tree against the index. Only Y needs
      // adding; X alone means the index is ahead of the last snapshot (a `--list` staged it), which still needs a commit.
      if (entry[0] !== " " && entry[0] !== "?") staged = true;
      if (entry[1] === " ") continue;
      const path = entry.slice(3);
      // With --untracked-files=all only a nested repository is listed as a directory: git cannot record its files
      // (and one without commits would fail the add), so it is left out like an ignored directory.
      if (path.endsWith("/")) {
        oversize.push(path);
        continue;
      }
      // Deleted, or now beyond a symlink (a directory swapped for a link): `git add` refuses such a path.
      if (entry[1] === "D") {
        gone.push(path);
        continue;
      }
      const st = lstatSafe(join(this.target.workTree, path));
      if (st?.isFile() && st.size > MAX_FILE_BYTES) {
        oversize.push(path);
        if (!entry.startsWith("??")) gone.push(path);
      } else {
        changed.push(path);
      }
    }
    if (oversize.length > 0) writeFileSync(exclude, `${oversize.map((p) => (p.endsWith("/") ? `${excludeLine(p.slice(0, -1))}/` : excludeLine(p))).join("\n")}\n`);
    if (gone.length > 0) await this.unrecord(gone);
    // The whole tree leaves out the same paths: ignored ones, and the oversize and nested ones just excluded (only a
    // file that grows past the cap between the status and the add is recorded, that once).
    if (changed.length >= WHOLE_TREE_AT) await this.run(["add", "-A"]);
    else if (changed.length > 0) await this.run(["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: changed.join("\0") });
    return { oversize: oversize.filter((p) => !p.endsWith("/")), nested: oversize.filter((p) => p.endsWith("/")), changed: staged || changed.length > 0 || gone.length > 0 };
  }

  /**
   * Records the workspace's files as a commit on the head ref, also named by `refs`. Each git process costs ~10-20 ms
   * to start, so an unchanged workspace costs one `status`, and a changed one status, add, write-tree and
   * commit-tree (a thread's first snapshot in a store with a seed: one commit-tree more).
   */
  async snapshot(message: string, refs: string[]): Promise<Snapshot> {
    await this.init();
    this.clearStaleLocks();
    const shared = this.sharedObjects;
    if (shared) await this.startFromStore(shared, message);
    const { oversize, nested, changed } = await this.stage();
    let commit = this.readRef(HEAD_REF);
    if (!commit || changed) {
      const tree = (await this.run(["write-tree"])).stdout.trim();
      commit = await this.commitTree(tree, commit, message);
      this.writeRef(HEAD_REF, commit);
      if (shared) this.store?.publishSeed(tree, join(this.target.gitDir, "index"));
    }
    this.recordExcluded(commit, [...oversize, ...nested]);
    for (const ref of refs) this.writeRef(ref, commit);
    return { commit, oversize, nested };
  }

  /**
   * Paths a snapshot left out for their size or as nested repositories, kept per commit (a commit reused by a later
   * snapshot gets the union): a restore to that commit must not take them for files created since.
   */
  private recordExcluded(commit: string, paths: string[]): void {
    if (paths.length === 0) return;
    const file = join(this.target.gitDir, EXCLUDED_DIR, commit);
    const known = new Set(this.excludedAt(commit));
    const added = paths.filter((p) => !known.has(p));
    if (added.length === 0) return;
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${added.join("\0")}\0`);
  }

  private excludedAt(commit: string): string[] {
    try {
      return nulList(readFileSync(join(this.target.gitDir, EXCLUDED_DIR, commit), "utf8"));
    } catch {
      return [];
    }
  }

  /** A loose ref's commit (refs are never packed here: gc is off); undefined when there is none. */
  private readRef(ref: string): string | undefined {
    try {
      const id = readFileSync(join(this.target.gitDir, ref), "utf8").trim();
      return /^[0-9a-f]{40,64}$/.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /** Writes a loose ref as git does (a file holding the id), atomically, without starting a git process. */
  private writeRef(ref: string, commit: string): void {
    const path = join(this.target.gitDir, ref);
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${commit}\n`);
    renameSync(tmp, path);
  }

  /** The files as deerflow last left them (see LEFT_REF); undefined when not known (a run or rewind was cut short). */
  leftCommit(): string | undefined {
    return this.readRef(LEFT_REF);
  }

  setLeft(commit: string): void {
    this.writeRef(LEFT_REF, commit);
  }

  clearLeft(): void {
    rmSync(join(this.target.gitDir, LEFT_REF), { force: true });
  }

  /** Keeps `commit` under `ref` (e.g. the left mark before a rewind, for its undo). */
  writeRefTo(ref: string, commit: string): void {
    this.writeRef(ref, commit);
  }

  /** The left mark as kept under `ref` (none kept: not known). */
  restoreLeftFrom(ref: string): void {
    const kept = this.readRef(ref);
    if (kept) this.setLeft(kept);
    else this.clearLeft();
  }

  /** Paths that differ between two snapshots (undefined `to`: the workspace as it is now). */
  async changedFiles(from: string, to?: string): Promise<string[]> {
    let toTree = to;
    if (!toTree) {
      await this.init();
      this.clearStaleLocks();
      await this.stage();
      toTree = (await this.run(["write-tree"])).stdout.trim();
    }
    return nulList((await this.run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, toTree])).stdout);
  }

  /**
   * Puts the workspace back to `commit`: files it holds are written back, files recorded since are deleted. What the
   * snapshots never held (ignored, oversize, nested repositories) is left alone: a path missing from `commit` is only
   * deleted when it was not there unrecorded, i.e. not ignored by `commit`'s own .gitignore files (ignored-at.ts: a run that rewrote
   * .gitignore must not get the user's ignored .env deleted) and not left out of it for its size. The caller
   * snapshots first, so what is undone stays reachable. Paths in `edited` (the user's own changes since deerflow
   * last left the files) are left as they are unless `force`.
   */
  async restore(commit: string, current: Snapshot, edits: { edited: readonly string[]; force: boolean } = { edited: [], force: false }): Promise<RestoreResult> {
    this.clearStaleLocks();
    const diff = nulList((await this.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", current.commit, commit])).stdout);
    const gitlinks = new Set(await this.gitlinks(current.commit, commit));
    const oversizeNow = new Set(current.oversize);
    const excludedThen = this.excludedAt(commit);
    const remove: string[] = [];
    const write: string[] = [];
    const skipped: string[] = [];
    /** Missing from the target but not the run's to delete: they are only dropped from the index. */
    const kept: string[] = [];
    const editedSet = new Set(edits.edited);
    const edited: string[] = [];
    for (let i = 0; i + 1 < diff.length; i += 2) {
      const status = diff[i]!;
      const path = diff[i + 1]!;
      if (editedSet.has(path)) edited.push(path);
      if (editedSet.has(path) && !edits.force) continue;
      if (gitlinks.has(path) || oversizeNow.has(path)) skipped.push(path);
      else if (status === "D" && excludedThen.some((x) => path === x || (x.endsWith("/") && path.startsWith(x)))) kept.push(path);
      else if (status === "D") remove.push(path);
      else write.push(path);
    }
    // What the target's own ignore rules ignore was not recorded then, so it is not the run's to delete.
    const ignored = new Set(await ignoredAt((workTree, args, opts) => this.run(args, opts, workTree), this.target.gitDir, commit, remove));
    const toRemove = remove.filter((p) => !ignored.has(p));
    kept.push(...ignored);
    // Deletions first: a directory recorded since may stand where the target has a file (and the reverse).
    removeFiles(this.target.workTree, toRemove);
    // The index matches the target again, so what is kept goes back to being unrecorded (ignored stays ignored).
    const unrecorded = new Set([...remove, ...kept]);
    if (unrecorded.size > 0) await this.unrecord([...unrecorded]);
    if (write.length > 0) await this.run(["checkout", commit, "--pathspec-from-file=-", "--pathspec-file-nul"], { input: write.join("\0") });
    this.writeRef(HEAD_REF, commit);
    return { restored: [...write, ...toRemove].sort(), skipped: [...skipped, ...kept].sort(), edited: edited.sort() };
  }

  /** Drops paths from the index whatever the work tree holds now (update-index does no pathspec or symlink checks). */
  private async unrecord(paths: string[]): Promise<void> {
    await this.run(["update-index", "--force-remove", "-z", "--stdin"], { input: `${paths.join("\0")}\0` });
  }

  /** Paths recorded as nested repositories (mode 160000) in either commit: never written nor deleted. */
  private async gitlinks(...commits: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const c of commits) {
      const entries = nulList((await this.run(["ls-tree", "-r", "-z", c])).stdout);
      for (const e of entries) if (e.startsWith("160000 ")) out.push(e.slice(e.indexOf("\t") + 1));
    }
    return out;
  }
}
