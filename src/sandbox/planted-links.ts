// `sandbox.readWrite` / `readOnly` folders are bound at their real paths each time a sandbox starts, and the load-time
// checks (sandbox-paths.ts, workspace-check.ts) cannot see a link made later: the twenty-third pass trusted
// `readWrite: ["./build"]` before `build` existed, had the model make it a link to the home and end the sandbox, and
// the restarted sandbox bound the home read-write (it appended to ~/.bashrc); with an absolute entry into a project,
// one run's link to ~/.local/bin was bound by the next run. A link on an entry's way that lies in a folder sandboxed
// commands can write (the workspace, a readWrite folder, an earlier run's workspace: sandbox-writable.ts) is the
// model's, not the user's: such an entry is not bound, and the user is told. Links the user made elsewhere
// (~/projects -> /data/projects) still count. The same for a project's skill folders, bound read-only at
// /mnt/skills/<name>: a skill folder swapped for a link to the home showed the whole home there (A23-5).
import { lstatSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { isInside } from "./paths.js";
import { realOrSelf } from "./real-path.js";
import { RepairLines } from "./repair-lines.js";
import { replaceableBy, replaceableFolderLine } from "./replaceable-folders.js";
import { sandboxWritable } from "./sandbox-writable.js";

export interface PlantedLink {
  /** The link, as found on the entry's way. */
  link: string;
  /** Where it leads (its real path), or undefined for a loop. */
  target?: string;
}

/**
 * The first link on `path`'s way whose own folder is inside one of `writable` (real paths), or undefined. The walk
 * goes component by component, each resolved before the next is looked at; it ends where the path stops existing.
 */
export function plantedLinkOnWay(path: string, writable: readonly string[]): PlantedLink | undefined {
  let at = "/";
  for (const part of resolve(path).split("/").filter(Boolean)) {
    const next = join(at, part);
    const st = lstatSync(next, { throwIfNoEntry: false });
    if (!st) return undefined;
    if (st.isSymbolicLink()) {
      if (writable.some((w) => isInside(at, w))) return { link: next, target: realTarget(next) };
      try {
        at = realpathSync(next);
      } catch {
        return undefined; // dangling or a loop outside the writable folders: nothing there to bind
      }
    } else at = next;
  }
  return undefined;
}

function realTarget(link: string): string | undefined {
  try {
    return realpathSync(link);
  } catch {
    return undefined;
  }
}

/** Where a sandbox runs: its workspace, the thread's other folders (uploads, outputs), the data directory. */
export interface SandboxFolders {
  workspace: string;
  threadDirs?: readonly string[];
  dataDir: string;
}

/**
 * The folders a sandboxed command can write, by real path: the workspace, the thread's folders, and every folder
 * sandbox-writable.ts noted (readWrite folders, earlier runs' workspaces), but not the data directory as a whole:
 * commands write only the thread's folders in it, and a link the user made there (a skill) is theirs.
 */
export function writableFolders(where: SandboxFolders): string[] {
  const data = realOrSelf(where.dataDir);
  return [where.workspace, ...(where.threadDirs ?? []), ...sandboxWritable().filter((w) => w !== data)].filter(Boolean).map(realOrSelf);
}

/** Why `entry` (a configured folder) is not bound, in the words of a refusal, or undefined. */
export function plantedLinkProblem(entry: string, writable: readonly string[]): string | undefined {
  const found = plantedLinkOnWay(entry, writable);
  if (!found) return undefined;
  return `it leads through ${found.link} (a link to ${found.target ?? "itself"}) in a folder sandboxed commands can write`;
}

const refused = new RepairLines();
/** Each refusal is said once per process, not with every command. */
const told = new Set<string>();

/**
 * The entries of `list` a sandbox for `workspace` may use now (bind, record as writable, repair in): those with no
 * planted link on their way. `label` names them for the user ("sandbox.readWrite", "skill"). A refused one is said
 * to the user (takeRefusedBinds) and left unbound: inside the workspace it stays the link it is, showing what the
 * read-only host has there.
 */
export function withoutPlantedLinks(list: readonly string[], label: string, where: SandboxFolders): string[] {
  if (list.length === 0) return [];
  const writable = writableFolders(where);
  return withoutReplaceable(
    list.filter((p) => {
      const why = plantedLinkProblem(p, writable);
      say(why && `${label} ${JSON.stringify(p)} is not bound: ${why}. Remove the link, or name the real folder.`);
      return !why;
    }),
    label,
  );
}

function say(line: string | undefined): void {
  if (line && !told.has(line)) {
    told.add(line);
    refused.hear(line);
  }
}

/**
 * The entries of `list` no other user could replace (replaceable-folders.ts): one whose folder above another user may
 * write is not bound, and said (A45a-2: a readWrite folder swapped for a link to the home had the home bound).
 */
export function withoutReplaceable(list: readonly string[], label: string): string[] {
  return list.filter((p) => {
    const why = replaceableBy(p);
    say(why && `${replaceableFolderLine(`${label} ${JSON.stringify(p)}`, why)}.`);
    return !why;
  });
}

/** The refusals since the last call, for the user. */
export function takeRefusedBinds(): string[] {
  return refused.take();
}
