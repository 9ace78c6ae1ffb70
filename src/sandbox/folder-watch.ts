// While background jobs run, the folders the guards' walk visits (workspace-checkouts.ts) are also watched (inotify),
// and a new folder or `.git` entry in one brings the next sweep forward to now. A job can see every sweep's reads
// (inotify is open to it too) but not these watches, and a sweep it did not see coming found a nested repository it
// made right after one sweep and would have removed before the next (the forty-second pass's A42c-1): its plant now
// lives for as long as the host takes to look, not for the wait between two sweeps.
// A job that watched the sweep's own reads could still remove its plant the instant a sweep started. So when a new
// repository or its config appears, its config is read at once (a read the job sees only as it happens) and, when
// it holds code or hiding keys, remembered: a sweep that then finds it gone says so, and that counts as a repair.
import { type FSWatcher, lstatSync, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isGitCodeKey, isGitViewKey } from "../vocabulary/code-settings.js";
import { configTextKeys } from "./config-text-keys.js";
import { readRegularFile } from "./regular-file.js";

/** At most this many folders are watched (inotify watches are a per-user limit); past it, the timed sweeps alone. */
export const MAX_WATCHED_FOLDERS = 20_000;

const watchers = new Map<string, FSWatcher>();
let onNew: (() => void) | undefined;
/** Per checkout folder seen made with code or hiding keys in its config: those keys. */
const sighted = new Map<string, string[]>();
/** The checkout folders seen made while watching: only theirs are sighted (a repository you had is the guards'). */
const made = new Set<string>();

/** The code or hiding keys of `dir/.git/config` now ([] for none, or no such file). */
function plantedKeys(dir: string): string[] {
  const text = readRegularFile(join(dir, ".git", "config"), 1024 * 1024)?.toString("utf8") ?? "";
  return configTextKeys(text).filter((k) => isGitCodeKey(k) || isGitViewKey(k));
}

/** A checkout at `dir` appeared or its config changed: its `.git` is watched, and a plant in its config noted. */
function sight(dir: string): void {
  made.add(dir);
  if (isFolder(join(dir, ".git"))) watchFolder(join(dir, ".git"));
  const keys = plantedKeys(dir);
  if (keys.length > 0) sighted.set(dir, keys);
}

const isFolder = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** Watches `dir` (once) while watching is on; a folder made in it is watched at once too. */
export function watchFolder(dir: string): void {
  if (!onNew || watchers.has(dir) || watchers.size >= MAX_WATCHED_FOLDERS) return;
  let w: FSWatcher;
  try {
    w = watch(dir, { persistent: false }, (event, name) => {
      if (!name) return;
      const entry = join(dir, String(name));
      if (basename(dir) === ".git" && name === "config") {
        if (made.has(dirname(dir))) sight(dirname(dir)); // written or replaced
        return;
      }
      if (event !== "rename") return;
      if (name === ".git") sight(dir);
      else if (isFolder(entry)) {
        watchFolder(entry); // first: a `.git` made in it from now on is an event of its own
        if (lstatSync(join(entry, ".git"), { throwIfNoEntry: false })) sight(entry);
      } else return;
      onNew?.();
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

/**
 * The plants seen made since the last call that are gone now, before any check took them out: a line each. One still
 * there is left to the guards, which take it out and say so.
 */
export function takeVanishedPlants(): string[] {
  const lines: string[] = [];
  for (const [dir, keys] of sighted) {
    if (plantedKeys(dir).length > 0) continue;
    lines.push(
      `deerflow saw a repository made at ${dir} with ${keys.join(", ")} in its git config, gone again before a check could take it out: a background job that hides git code from the checks.`,
    );
  }
  sighted.clear();
  return lines;
}

/** How many folders are watched now. */
export function watchedFolders(): number {
  return watchers.size;
}

/** Watching ends (no job left): every watch is closed. */
export function endFolderWatch(): void {
  onNew = undefined;
  sighted.clear();
  made.clear();
  for (const w of watchers.values()) w.close();
  watchers.clear();
}
