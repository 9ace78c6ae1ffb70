// Whether another user could put something else at a folder's path: one who may write a folder above it renames the
// folder and puts a link in its place (a group-shared repository, the user working in a package folder of it). Every
// use of the folder by its path then reached what the link names: the file tools, the sandbox's binds, the hooks'
// cwd, a rewind and the next run's workspace (the forty-fourth and forty-fifth passes' A44a-3/4, A45a-1..5). A pin
// (pinned-folders.ts) catches a swap during a run; this refuses the folders where one is possible at all, as git's
// safe.directory refuses a repository another user owns.
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isUserOrRoot } from "../config/project-folders.js";
import { realOrSelf } from "./real-path.js";

const members = new Map<number, string[]>();

/** Names of the users (other than this one) whose groups, primary or listed, include `gid`; "?" when unreadable. */
function othersIn(gid: number): string[] {
  let names = members.get(gid);
  if (!names) members.set(gid, (names = readOthersIn(gid)));
  return names;
}

function readOthersIn(gid: number): string[] {
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
 * Why another user could replace `path` (as named, and where it leads now): it, or a folder above it, belongs to
 * another user (the owner renames an entry even in a sticky folder: A46a-1), or a folder above it may be written by a
 * group with other members, or by anyone, without the sticky bit (/tmp's lets no one rename what they do not own).
 * Both chains count: judged only where it leads, a path already swapped for a link to the home passed (A46a-2/3).
 * Undefined when no one else can.
 */
export function replaceableBy(path: string): string | undefined {
  const named = resolve(path);
  const real = realOrSelf(named);
  return chainReplaceable(named) ?? (real === named ? undefined : chainReplaceable(real));
}

/** replaceableBy for one chain of folders (judged once per path and process). */
function chainReplaceable(path: string): string | undefined {
  if (cache.has(path)) return cache.get(path);
  const own = lstatSync(path, { throwIfNoEntry: false });
  let why: string | undefined = own && !isUserOrRoot(own.uid) ? `${path} belongs to another user` : undefined;
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

/**
 * Why a folder kept by its real path (a thread's bound workspace) may not be used: it now leads elsewhere (a link was
 * put in its place), or another user could replace it. Undefined when it may.
 */
export function boundFolderProblem(path: string): string | undefined {
  return existsSync(path) && realOrSelf(path) !== path ? "it now leads elsewhere: a link was put in its place" : replaceableBy(path);
}

/** The one line for a folder another user could replace: what it is (with its path), why, and what to do. */
export function replaceableFolderLine(what: string, why: string): string {
  return `${what} could be replaced by another user (${why}): they could rename it and put a link to your files in its place, so deerflow does not use it. Use a folder only you (or root) may change, e.g. a clone of your own`;
}
