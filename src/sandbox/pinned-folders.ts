// Folders judged once and used later by their path: the thread's workspace (judged when a run opens the thread) and
// each skill's folder (judged when skills are found). Another user who may write the folder above one (a group-shared
// repository, the user working in a package folder of it) renamed it and put a link to the user's home in its place
// while deerflow ran: the file tools then wrote into the home, and the sandbox bound the home at /mnt/skills/<name>
// (the forty-fourth pass's A44a-3 and A44a-4). A pinned folder is known by its identity (device and inode) from the
// moment it was judged; every later use checks that the path still leads to it, and the sandbox checks its own
// mounts from the host once it has started (shell-session.ts), before any command runs in it.
import { statSync } from "node:fs";

interface Identity {
  dev: number;
  ino: number;
}

const pinned = new Map<string, Identity>();

/** Records what `path` is now (followed); nothing when it does not exist. A later pin of the same path replaces it. */
export function pinFolder(path: string): void {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st) pinned.set(path, { dev: st.dev, ino: st.ino });
  else pinned.delete(path);
}

/** Whether the folder at `seen` (a stat of what a path leads to now) is the one pinned for `path`; true when unpinned. */
export function isPinnedFolder(path: string, seen: Identity | undefined): boolean {
  const id = pinned.get(path);
  return id === undefined || (seen !== undefined && seen.dev === id.dev && seen.ino === id.ino);
}

/** Why `path` may not be used now: it was pinned and now leads elsewhere (undefined: it may). */
export function replacedFolder(path: string, what: string): string | undefined {
  if (isPinnedFolder(path, statSync(path, { throwIfNoEntry: false }))) return undefined;
  return `${what} ${path} was replaced while deerflow ran (moved away, or a link put in its place): nothing is read, written or run there. Look at the folder, then start deerflow again`;
}
