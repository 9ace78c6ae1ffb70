// Which folders' project files (.deerflowrc, .deerflow/skills, .deerflow/commands, the repository root's AGENTS.md)
// count: the working folder and those above it, up to the first folder anyone may write (/tmp, /var/tmp, /dev/shm),
// which ends the walk. What another local user left in such a folder, or above it, is not the project's: a skill
// planted in /tmp/.deerflow replaced the user's own for every run under /tmp, and a /tmp/.deerflowrc made each one
// fail asking to trust it (the fortieth pass's A40a-4). A file or folder another user owns (root aside) does not count
// either, as git's safe.directory rule has it.
import { lstatSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

const worldWritable = (dir: string) => ((statSync(dir, { throwIfNoEntry: false })?.mode ?? 0) & 0o002) !== 0;

/** `cwd` and the folders above it, nearest first, up to (not including) the first world-writable one. */
export function projectFoldersUp(cwd: string): string[] {
  const out: string[] = [];
  for (let dir = resolve(cwd); !worldWritable(dir); dir = dirname(dir)) {
    out.push(dir);
    if (dirname(dir) === dir) break;
  }
  return out;
}

/** Whether a file of owner `uid` counts as a project file: this user's or root's. */
export function isUserOrRoot(uid: number): boolean {
  const me = process.getuid?.();
  return me === undefined || uid === me || uid === 0;
}

/** Whether `path` (not followed) belongs to this user or to root; false when it is not there. */
export function ownedByUserOrRoot(path: string): boolean {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st !== undefined && isUserOrRoot(st.uid);
}

/** What a project file another user owns is told (skipped, never read). */
export const OTHER_USERS_FILE = "it belongs to another user (a project file must be yours or root's)";
