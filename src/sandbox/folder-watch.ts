// While background jobs run, the folders the guards' walk visits (workspace-checkouts.ts) are also watched (inotify),
// and a new folder or `.git` entry in one brings the next sweep forward to now. A job can see every sweep's reads
// (inotify is open to it too) but not these watches, and a sweep it did not see coming found a nested repository it
// made right after one sweep and would have removed before the next (the forty-second pass's A42c-1): its plant now
// lives for as long as the host takes to look, not for the wait between two sweeps.
import { type FSWatcher, lstatSync, watch } from "node:fs";
import { join } from "node:path";

/** At most this many folders are watched (inotify watches are a per-user limit); past it, the timed sweeps alone. */
export const MAX_WATCHED_FOLDERS = 20_000;

const watchers = new Map<string, FSWatcher>();
let onNew: (() => void) | undefined;

const isFolder = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** Watches `dir` (once) while watching is on; a folder made in it is watched at once too. */
export function watchFolder(dir: string): void {
  if (!onNew || watchers.has(dir) || watchers.size >= MAX_WATCHED_FOLDERS) return;
  let w: FSWatcher;
  try {
    w = watch(dir, { persistent: false }, (event, name) => {
      if (event !== "rename" || !name) return;
      const entry = join(dir, String(name));
      if (name === ".git") onNew?.();
      else if (isFolder(entry)) {
        watchFolder(entry);
        onNew?.();
      }
    });
  } catch {
    return; // gone, not a folder, or no watch left: the timed sweeps still look
  }
  w.on("error", () => {
    w.close();
    watchers.delete(dir);
  });
  watchers.set(dir, w);
}

/** Watching starts: `soon` is called for each new folder or `.git` entry in a watched folder. */
export function startFolderWatch(soon: () => void): void {
  onNew = soon;
}

/** How many folders are watched now. */
export function watchedFolders(): number {
  return watchers.size;
}

/** Watching ends (no job left): every watch is closed. */
export function endFolderWatch(): void {
  onNew = undefined;
  for (const w of watchers.values()) w.close();
  watchers.clear();
}
