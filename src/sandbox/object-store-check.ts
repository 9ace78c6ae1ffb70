// git never checks an object it reads against its name: a loose object rewritten in place (new content under a
// committed blob's id) had the user's `git checkout -- <file>`, `git stash` and a local clone write the run's content as
// "the committed version" (the thirty-seventh pass's A37c-6), and a pack whose index maps an id to another object's
// bytes does the same. So after each command, every loose object and pack a command wrote or changed since the run
// began is checked the way `git fsck` would: a loose object is inflated and hashed, a pack is verified by git's own
// `index-pack --verify` in a repository of deerflow's (no config of the workspace is read). One that lies is moved
// aside, with a line. Objects the user had before the run are theirs and are not read; nor is a repository the run made.
import { createHash } from "node:crypto";
import { type Stats, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { identityOfStats } from "./file-identity.js";
import { objectFormatOf } from "./gitlink-walk.js";
import { listForGuard } from "./guard-listing.js";
import { plainGit } from "./plain-git.js";
import { toUser } from "./repair-lines.js";
import { moveAsideWithin } from "./repair-within.js";

/** What one check reads at most: a loose object past it, or a pack, is said to the user as not checked. */
export const objectCheckLimits = { looseBytes: 256 * 1024 * 1024, packBytes: 2 * 1024 * 1024 * 1024, packSeconds: 300 };

/** Per git dir: when the run began there (ms; a little before, as file times are coarser than the clock). */
const since = new Map<string, number>();
/** Per object file already checked: the identity it had then (checked again only when it changes). */
const checked = new Map<string, string>();

const HEX = /^[0-9a-f]+$/;

/**
 * The run begins in `gitDir` now (once per run). Only git dirs noted so are checked: in a repository the run made (a
 * clone), every object is the run's anyway, and verifying it would cost what the clone cost.
 */
export function noteObjectStore(gitDir: string): void {
  if (!since.has(gitDir)) since.set(gitDir, Date.now() - 2000);
}

/** Each entry of `dir` written since the run began in its git dir and not checked since: its path and stat. */
function changedIn(dir: string, from: number, keep: (name: string) => boolean): { path: string; st: Stats }[] {
  let names: string[];
  try {
    names = listForGuard(dir);
  } catch {
    return [];
  }
  const out: { path: string; st: Stats }[] = [];
  for (const name of names) {
    if (!keep(name)) continue;
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st?.isFile() || st.ctimeMs < from || checked.get(path) === identityOfStats(st)) continue;
    out.push({ path, st });
  }
  return out;
}

/** Whether the loose object at `path` (named `<xx>/<rest>`) holds what its name says; null when it cannot be read whole. */
function looseHolds(path: string, name: string): boolean | null {
  const format = name.length === 64 ? "sha256" : "sha1";
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(path), { maxOutputLength: objectCheckLimits.looseBytes });
  } catch {
    return null; // not zlib, or too large: git itself fails loudly on the first, the second is said below
  }
  return createHash(format).update(raw).digest("hex") === name;
}

function moveAside(path: string, why: string, roots: readonly string[]): string {
  try {
    return `deerflow moved ${path} to ${moveAsideWithin(path, roots)}: ${why}`;
  } catch (err) {
    const line = `deerflow could not move ${path} aside (${(err as Error).message}): ${why} Remove it before you run git there.`;
    toUser.hear(line);
    return line;
  }
}

const HANDED_OUT = "your git checkout, git stash or a clone would write the run's content as the committed one.";
const LIES = `its content is not the object its name says (a command rewrote it), and git would hand it out as that object: ${HANDED_OUT}`;
const INDEX_LIES = `it names objects of its pack by other objects' ids (a command wrote it), and git would hand them out under those ids: ${HANDED_OUT}`;

/** Loose objects the run wrote or changed that lie about their content; the lines saying what was moved aside. */
function checkLoose(objects: string, from: number, roots: readonly string[]): string[] {
  const lines: string[] = [];
  let fans: string[];
  try {
    fans = listForGuard(objects).filter((n) => n.length === 2 && HEX.test(n));
  } catch {
    return [];
  }
  for (const fan of fans) {
    for (const { path, st } of changedIn(join(objects, fan), from, (n) => (n.length === 38 || n.length === 62) && HEX.test(n))) {
      const holds = looseHolds(path, fan + path.slice(path.lastIndexOf("/") + 1));
      if (holds === false) lines.push(moveAside(path, `${LIES} git now finds it missing instead (git fsck names what needs it).`, roots));
      else {
        if (holds === null && st.size > 0) notChecked(path, "it could not be read whole");
        checked.set(path, identityOfStats(st));
      }
    }
  }
  return lines;
}

function notChecked(path: string, why: string): void {
  toUser.hear(`deerflow did not check ${path} (${why}): run git fsck there before you trust what git checks out.`);
}

/** Packs the run wrote or changed whose index does not match their objects; the lines saying what was moved aside. */
function checkPacks(objects: string, from: number, roots: readonly string[]): string[] {
  const lines: string[] = [];
  const dir = join(objects, "pack");
  // git reads every `*.idx` with a `.pack` beside it, whatever the name (A38c-1: `zz.idx`)
  const changed = changedIn(dir, from, (n) => /\.(idx|pack)$/.test(n));
  const packs = new Set(changed.map(({ path }) => path.replace(/\.(idx|pack)$/, "")));
  for (const base of packs) {
    const pack = lstatSync(`${base}.pack`, { throwIfNoEntry: false });
    const idx = lstatSync(`${base}.idx`, { throwIfNoEntry: false });
    if (!pack?.isFile() || !idx?.isFile()) continue; // git reads a pack only through its index, and both must be there
    const format = objectFormatOf([join(objects, "..", "config")]);
    const holds = pack.size > objectCheckLimits.packBytes ? null : packHolds(`${base}.pack`, format);
    if (holds === false) {
      lines.push(rebuildIndex(base, format, roots));
      continue;
    }
    if (holds === null) notChecked(`${base}.pack`, pack.size > objectCheckLimits.packBytes ? `it is larger than ${objectCheckLimits.packBytes} bytes` : "git index-pack did not finish");
    checked.set(`${base}.pack`, identityOfStats(pack));
    checked.set(`${base}.idx`, identityOfStats(idx));
  }
  return lines;
}

/**
 * A pack index that names objects by another's content is moved aside and written again from the pack by git's
 * index-pack, which names each object by its own hash: nothing the pack holds is lost, and none is under a false name.
 * A pack git cannot index is moved aside too.
 */
function rebuildIndex(base: string, format: "sha1" | "sha256", roots: readonly string[]): string {
  const moved = moveAside(`${base}.idx`, INDEX_LIES, roots);
  if (moved.startsWith("deerflow could not")) return moved;
  try {
    plainGit(["index-pack", `--object-format=${format}`, "-o", `${base}.idx`, `${base}.pack`], { bare: format, timeoutMs: objectCheckLimits.packSeconds * 1000 });
    return `${moved} deerflow wrote its index again from the pack.`;
  } catch {
    return `${moved} ${moveAside(`${base}.pack`, "git could not index it either.", roots)}`;
  }
}

/**
 * Whether git's own index-pack, run in deerflow's empty repository, finds the pack's index true to its objects; null
 * when it did not finish (killed at the time limit, or no git): a pack is moved aside only on git's word.
 */
function packHolds(pack: string, format: "sha1" | "sha256"): boolean | null {
  try {
    plainGit(["index-pack", "--verify", `--object-format=${format}`, pack], { bare: format, timeoutMs: objectCheckLimits.packSeconds * 1000 });
    return true;
  } catch (err) {
    const { status, signal } = err as { status?: number | null; signal?: string | null };
    return typeof status === "number" && status !== 0 && !signal ? false : null;
  }
}

/**
 * After a command: objects of `gitDir` the run wrote that lie are moved aside; the lines saying so. `whole`: a git dir
 * first seen during the run is checked whole (a commondir a command pointed a checkout of yours at, a submodule's git
 * dir planted under `.git/modules`: the thirty-eighth pass's A38c-2 and A38c-6); each object once.
 */
export function checkObjectStore(gitDir: string, roots: readonly string[], whole = false): string[] {
  const from = since.get(gitDir) ?? (whole ? 0 : undefined);
  if (from === undefined) return [];
  const objects = join(gitDir, "objects");
  return [...checkLoose(objects, from, roots), ...checkPacks(objects, from, roots)];
}

/**
 * The submodules' git dirs under `<gitDir>/modules` (at any depth up to 6: `modules/vendor/lib`), each checked as a
 * git dir of yours: `git submodule update --init` checks out the commit a planted one holds under the recorded id.
 */
export function checkModuleStores(gitDir: string, roots: readonly string[]): string[] {
  const lines: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = listForGuard(dir);
    } catch {
      return;
    }
    // A git dir is checked and only its own `modules/` searched further (its refs and logs hold no git dir); any
    // other folder is a part of a module's name (`modules/vendor/lib`).
    if (names.includes("objects") && names.includes("HEAD")) {
      lines.push(...checkObjectStore(dir, roots, true));
      if (depth < 6) walk(join(dir, "modules"), depth + 1);
      return;
    }
    if (depth < 6) for (const n of names) if (lstatSync(join(dir, n), { throwIfNoEntry: false })?.isDirectory()) walk(join(dir, n), depth + 1);
  };
  walk(join(gitDir, "modules"), 0);
  return lines;
}

/** The end of a chat or run: forget. */
export function forgetObjectStore(): void {
  since.clear();
  checked.clear();
}
