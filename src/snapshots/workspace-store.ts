// The snapshot store the threads of one workspace share (`<home>/snapshots/<key>/`): the git objects of their shadow
// repositories, and a seed (the newest snapshot's tree with the index that describes it), so a new thread's first
// snapshot starts from what another thread already hashed and costs about one `git status` instead of hashing every
// file again. Each thread keeps its own refs, HEAD and index (threads/<id>/snapshots.git): threads never see nor move
// each other's snapshots, and two of them can snapshot at once (git writes an object by renaming a finished
// temporary file into place, so the same object written twice is harmless). Objects are never deleted while a
// thread uses the store; the last thread to go (`threads rm`) takes the store with it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The seed: the tree of a workspace's newest snapshot and the index git wrote for it. */
export interface Seed {
  tree: string;
  index: Buffer;
  /** When that index was written (ms since the epoch): a copy must not look newer (see writeIndexCopy). */
  indexMtimeMs: number;
}

const OID = /^[0-9a-f]{40,64}$/;

export class WorkspaceStore {
  /** `member`: the thread this handle joins the store for. */
  constructor(
    readonly dir: string,
    readonly member: string,
  ) {}

  /** Where a workspace's store lives: keyed by its path, so a workspace's threads find it and others never do. */
  static dirFor(home: string, workspace: string): string {
    return join(home, "snapshots", createHash("sha256").update(workspace).digest("hex").slice(0, 32));
  }

  static of(home: string, workspace: string, threadId: string): WorkspaceStore {
    return new WorkspaceStore(WorkspaceStore.dirFor(home, workspace), threadId);
  }

  /** Takes a deleted thread off every store it used (see leave). */
  static leaveAll(home: string, threadId: string): void {
    let keys: string[];
    try {
      keys = readdirSync(join(home, "snapshots"));
    } catch {
      return;
    }
    for (const key of keys) if (existsSync(join(home, "snapshots", key, "threads", threadId))) new WorkspaceStore(join(home, "snapshots", key), threadId).leave();
  }

  get objectsDir(): string {
    return join(this.dir, "objects");
  }

  private get membersDir(): string {
    return join(this.dir, "threads");
  }

  /** Creates the store if it is not there and records this thread as one of its users (both idempotent, cheap). */
  join(workspace: string): void {
    const marker = join(this.membersDir, this.member);
    if (existsSync(marker) && existsSync(this.objectsDir)) return;
    for (const d of [join(this.objectsDir, "info"), join(this.objectsDir, "pack"), this.membersDir]) mkdirSync(d, { recursive: true });
    // For a person looking at the data directory: which workspace this is.
    if (!existsSync(join(this.dir, "workspace"))) writeFileSync(join(this.dir, "workspace"), `${workspace}\n`);
    writeFileSync(marker, "");
  }

  /** The newest seed, or undefined (none yet, unreadable, or its tree is not in the store). */
  readSeed(): Seed | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.dir, "seed"));
    } catch {
      return undefined;
    }
    const nl = bytes.indexOf(10);
    const [tree, mtime] = bytes.subarray(0, Math.max(nl, 0)).toString("latin1").split(" ");
    const indexMtimeMs = Number(mtime);
    if (nl < 0 || !tree || !hasObject(this.objectsDir, tree) || !Number.isFinite(indexMtimeMs)) return undefined;
    return { tree, index: bytes.subarray(nl + 1), indexMtimeMs };
  }

  /**
   * Makes `index` (just written for `tree`) the seed: one file, renamed into place, so a reader sees a whole seed.
   * The temporary file is the thread's own (its snapshots never overlap: they run under its lock), so one a kill
   * left is replaced by its next publish.
   */
  publishSeed(tree: string, indexPath: string): void {
    const index = readFileSync(indexPath);
    const header = Buffer.from(`${tree} ${statSync(indexPath).mtimeMs}\n`, "latin1");
    const tmp = join(this.dir, `seed.tmp-${this.member}`);
    writeFileSync(tmp, Buffer.concat([header, index]));
    renameSync(tmp, join(this.dir, "seed"));
  }

  /**
   * Takes this thread off the store's users; the last one removes the store. Renamed away before it is deleted, so
   * a half-finished deletion is never mistaken for a store. A thread that joins in the same instant finds its first
   * snapshot gone and takes a whole one again on its next run (ShadowRepo checks its head is in the store).
   */
  leave(): void {
    rmSync(join(this.membersDir, this.member), { force: true });
    let members: string[];
    try {
      members = readdirSync(this.membersDir);
    } catch {
      return;
    }
    if (members.length > 0) return;
    const doomed = `${this.dir}.removing-${process.pid}`;
    try {
      renameSync(this.dir, doomed);
    } catch {
      return;
    }
    rmSync(doomed, { recursive: true, force: true });
  }
}

/** Whether object `oid` is in `objectsDir` (loose: the shadow repositories never pack, see ShadowRepo.init). */
export function hasObject(objectsDir: string, oid: string): boolean {
  return OID.test(oid) && existsSync(join(objectsDir, oid.slice(0, 2), oid.slice(2)));
}

/**
 * Writes a seed's index as `path`. Its time is set to a second before the one it was written in: git re-reads
 * (rather than trusts) an entry whose file changed in or after the second its index was written ("racy git"), and
 * a fresh copy would otherwise look newer than the changes it has not seen.
 */
export function writeIndexCopy(path: string, seed: Seed): void {
  const tmp = `${path}.seed-${process.pid}`;
  writeFileSync(tmp, seed.index);
  const t = Math.floor(seed.indexMtimeMs / 1000) - 1;
  utimesSync(tmp, t, t);
  renameSync(tmp, path);
}
