// Whether another user could put something else at a folder's path: one who may write a folder above it renames the
// folder and puts a link in its place (a group-shared repository, the user working in a package folder of it). Every
// use of the folder by its path then reached what the link names: the file tools, the sandbox's binds, the hooks'
// cwd, a rewind and the next run's workspace (the forty-fourth and forty-fifth passes' A44a-3/4, A45a-1..5). A pin
// (pinned-folders.ts) catches a swap during a run; this refuses the folders where one is possible at all, as git's
// safe.directory refuses a repository another user owns.
import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { isUserOrRoot } from "../config/project-folders.js";

/** Names of the users (other than this one) whose groups, primary or listed, include `gid`; "?" when unreadable. */
function othersIn(gid: number): string[] {
  const me = process.getuid?.();
  try {
    const users = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .filter((f) => f.length >= 4);
    const group = readFileSync("/etc/group", "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .find((f) => f.length >= 4 && Number(f[2]) === gid);
    const byName = new Map(users.map((f) => [f[0]!, Number(f[2])]));
    const listed = (group?.[3] ?? "").split(",").filter((n) => n !== "");
    const primary = users.filter((f) => Number(f[3]) === gid).map((f) => f[0]!);
    return [...new Set([...listed, ...primary])].filter((n) => byName.get(n) !== me);
  } catch {
    return ["?"];
  }
}

const cache = new Map<string, string | undefined>();

/**
 * Why another user could replace `path` (a real path) by renaming it: a folder above it that another user owns, or
 * that a group with other members, or anyone, may write without the sticky bit (/tmp's sticky bit lets no one rename
 * what they do not own). Undefined when no one else can. Judged once per folder and process.
 */
export function replaceableBy(path: string): string | undefined {
  if (cache.has(path)) return cache.get(path);
  let why: string | undefined;
  for (let dir = dirname(path); why === undefined; dir = dirname(dir)) {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st) {
      const sticky = (st.mode & 0o1000) !== 0;
      if (!isUserOrRoot(st.uid)) why = `${dir} belongs to another user`;
      else if (!sticky && (st.mode & 0o002) !== 0) why = `anyone may write ${dir}`;
      else if (!sticky && (st.mode & 0o020) !== 0) {
        const others = othersIn(st.gid);
        if (others.length > 0) why = `its group (${others.slice(0, 3).join(", ")}${others.length > 3 ? ", …" : ""}) may write ${dir}`;
      }
    }
    if (dirname(dir) === dir) break;
  }
  cache.set(path, why);
  return why;
}

/** The one line for a folder another user could replace: what it is (with its path), why, and what to do. */
export function replaceableFolderLine(what: string, why: string): string {
  return `${what} could be replaced by another user (${why}): they could rename it and put a link to your files in its place, so deerflow does not use it. Use a folder only you (or root) may change, e.g. a clone of your own`;
}
