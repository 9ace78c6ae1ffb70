// What the git guards compare a file or link by between commands: its inode, size and ctime. No command can set a
// ctime back, so a file rewritten, replaced or renamed in place always gets a new identity (an mtime can be forged).
import { type Stats, lstatSync } from "node:fs";

/** The identity of what `lstat` returned. */
export const identityOfStats = (st: Stats) => `${st.ino}:${st.size}:${st.ctimeMs}`;

/** `path`'s identity (never following a link); "" when nothing is there. */
export function identityOf(path: string): string {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st ? identityOfStats(st) : "";
}
