// Hooks in a repository the sandbox could write: one it made with `git init` (the workspace had none when the run
// started) or one checked out inside the workspace. The workspace's own `.git/hooks` is bound read-only when it
// existed at the start; these are not, and the user's own `git commit` there runs them on the host. So each hooks
// folder is compared with the run's start after every command, and a hook the run added or changed is moved aside
// (never deleted: the user may want to read it), with a line saying so.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { identityOf } from "./file-identity.js";
import { isHookName } from "./git-dir-code.js";
import { moveAsideWithin } from "./repair-within.js";
import { listForGuard } from "./guard-listing.js";

/** Per hooks folder: each entry's identity (file-identity.ts) when the run saw it. */
const baseline = new Map<string, Map<string, string>>();

function entries(hooksDir: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const name of listForGuard(hooksDir)) {
      if (!isHookName(name)) continue;
      const st = lstatSync(join(hooksDir, name));
      // A folder is never run as a hook (husky's `.husky/_` inside `.husky`: checked as a hooks folder of its own).
      if (st.isDirectory()) continue;
      out.set(name, identityOf(join(hooksDir, name)));
    }
  } catch {
    // no folder (yet): nothing to run
  }
  return out;
}

/** The hooks folder's own identity when it is a link (git follows it wherever it points), else "". */
function linkId(hooksDir: string): string {
  try {
    const st = lstatSync(hooksDir);
    return st.isSymbolicLink() ? identityOf(hooksDir) : "";
  } catch {
    return "";
  }
}
const LINK = "\0link";

/** Remembers what `hooksDir` holds now as the user's (once per run). `empty`: a repository the run made, nothing is. */
export function noteHooks(hooksDir: string, empty = false): void {
  if (baseline.has(hooksDir)) return;
  const known = empty ? new Map<string, string>() : entries(hooksDir);
  if (!empty) known.set(LINK, linkId(hooksDir));
  baseline.set(hooksDir, known);
}

/**
 * Moves aside each hook added or changed since the note, or a hooks folder the run made a link; the lines saying so.
 * `roots`: the folders deerflow may repair in (repair-within.ts).
 */
export function checkHooks(hooksDir: string, roots: readonly string[]): string[] {
  noteHooks(hooksDir, true);
  const before = baseline.get(hooksDir)!;
  const link = linkId(hooksDir);
  // A link the run put there points git's hooks at a folder deerflow does not watch (a readWrite folder, say).
  if (link && (before.get(LINK) ?? "") !== link) return moveAside(hooksDir, "that hooks folder link", roots);
  const lines: string[] = [];
  for (const [name, id] of entries(hooksDir)) {
    if (before.get(name) === id) continue;
    lines.push(...moveAside(join(hooksDir, name), "that git hook", roots));
  }
  return lines;
}

function moveAside(path: string, what: string, roots: readonly string[]): string[] {
  try {
    const aside = moveAsideWithin(path, roots);
    return [`deerflow moved ${path} to ${aside}: a command in the sandbox wrote ${what}, and your own git commit would run what it holds on your host.`];
  } catch (err) {
    return [`deerflow could not move ${path} aside (${(err as Error).message}): a command in the sandbox wrote ${what}; remove it before you run git there.`];
  }
}

/** The end of a chat or run: forget. */
export function forgetHooks(): void {
  baseline.clear();
}
