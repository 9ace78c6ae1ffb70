// Skill discovery: SKILL.md folders in the project's `.deerflow/skills/` (the working directory and each ancestor,
// nearest first) and then in the data directory's `skills/` (~/.deerflow/skills, or $DEERFLOW_HOME/skills). The
// first skill of a name wins, so a project can override a personal skill. Read once per process (a chat's agent
// is compiled once: its `skill` tool lists what was found then); a broken skill is reported, never fatal.
//
// Each skill's folder is mounted read-only at /mnt/skills/<name> for commands, and its files are readable through
// the `skill` tool and read_file there. The folder may itself be a symlink (a shared checkout of skills); SKILL.md
// must be a regular file inside the folder (a SKILL.md symlinked elsewhere is refused), at most SKILL_MAX_BYTES.
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, sep } from "node:path";
import { OTHER_USERS_FILE, ownedByUserOrRoot, projectFoldersUp } from "../config/project-folders.js";
import { SKILLS_VIRTUAL_ROOT } from "../sandbox/paths.js";
import { pinFolder } from "../sandbox/pinned-folders.js";
import { readFileInsideSync } from "../sandbox/safe-fs-sync.js";
import { SKILL_FILE, SKILL_MAX_BYTES, parseSkillFile } from "./skill-file.js";

export { SKILLS_VIRTUAL_ROOT };
/** Skills listed to the model at most (the rest are reported as problems). */
export const MAX_SKILLS = 100;

export interface Skill {
  name: string;
  description: string;
  /** The real path of the skill's folder (what /mnt/skills/<name> shows). */
  dir: string;
  /** "project" (a .deerflow/skills of the working directory or an ancestor) or "user" (the data directory's). */
  scope: "project" | "user";
  /** /mnt/skills/<name>/SKILL.md */
  virtualPath: string;
}

export interface SkillCatalog {
  skills: Skill[];
  /** One line per skill that could not be used: path and reason. */
  problems: string[];
}

export const skillVirtualDir = (name: string) => `${SKILLS_VIRTUAL_ROOT}/${name}`;

/** The skills directories to scan, nearest first, each real path once. */
export function skillRoots(opts: { home: string; cwd: string }): { dir: string; scope: Skill["scope"] }[] {
  const out: { dir: string; scope: Skill["scope"] }[] = [];
  const userDir = join(opts.home, "skills");
  for (const dir of projectFoldersUp(opts.cwd)) {
    const candidate = join(dir, ".deerflow", "skills");
    if (candidate !== userDir && ownedByUserOrRoot(candidate)) out.push({ dir: candidate, scope: "project" });
  }
  out.push({ dir: userDir, scope: "user" });
  const seen = new Set<string>();
  return out.filter((r) => {
    let real: string;
    try {
      if (!statSync(r.dir).isDirectory()) return false;
      real = realpathSync(r.dir);
    } catch {
      return false;
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** The text of a file inside the folder whose real path is `realDir` (resolved once, before: see readFileInsideSync,
 *  which opens it once and judges what it opened), refused when it leads out of the folder or is too big, and a
 *  project's (`project`) when another user owns it. */
export function readInside(realDir: string, file: string, maxBytes: number, opts: { folder?: string; project?: boolean } = {}): string {
  const { data, realPath } = readFileInsideSync(realDir, file, maxBytes, { folder: opts.folder ?? "the skill's folder", project: opts.project });
  if (basename(realPath) === ".deerflowrc") throw new Error("it is a deerflow configuration file, which is never read");
  return data.toString("utf8");
}

/**
 * Why a skill folder must not be mounted: it is (or contains) the user's home, the data directory or the root (a
 * symlinked "skill" that would show ~/.ssh or the database at /mnt/skills/<name>, where no secret is hidden).
 */
function unsafeFolder(realDir: string, guard: { home: string; userHome?: string }): string | undefined {
  for (const [what, p] of [
    ["the data directory", guard.home],
    ["your home directory", guard.userHome],
  ] as const) {
    if (!p) continue;
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      continue;
    }
    if (inside(real, realDir)) return `its folder is ${realDir === real ? "" : "inside or above "}${what}; a skill folder must hold only the skill`;
  }
  return realDir === "/" ? "its folder is the root directory" : undefined;
}

function loadOne(folder: string, folderName: string, scope: Skill["scope"], guard: { home: string; userHome?: string }): Skill {
  // Another user's folder in the project's skills folder (group-writable in a shared repository) is not the project's.
  if (scope === "project" && !ownedByUserOrRoot(folder)) throw new Error(OTHER_USERS_FILE);
  // Resolved once: the folder checked, read and mounted is the same one even if a command swaps it for a link (the
  // sandbox checks its mount is this folder: pinned-folders.ts).
  const dir = realpathSync(folder);
  pinFolder(dir);
  const unsafe = unsafeFolder(dir, guard);
  if (unsafe) throw new Error(unsafe);
  const file = join(dir, SKILL_FILE);
  if (lstatSync(file, { throwIfNoEntry: false }) === undefined) throw new Error(`no ${SKILL_FILE} in it`);
  const parsed = parseSkillFile(readInside(dir, file, SKILL_MAX_BYTES, { project: scope === "project" }), folderName);
  return { name: parsed.name, description: parsed.description, dir, scope, virtualPath: `${skillVirtualDir(parsed.name)}/${SKILL_FILE}` };
}

/** Every usable skill under `home` and `cwd`, nearest first, one per name. */
export function discoverSkills(opts: { home: string; cwd: string; userHome?: string }): SkillCatalog {
  const skills: Skill[] = [];
  const problems: string[] = [];
  const byName = new Map<string, Skill>();
  for (const root of skillRoots(opts)) {
    let entries: string[];
    try {
      entries = readdirSync(root.dir).sort();
    } catch (err) {
      problems.push(`${root.dir}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      continue;
    }
    for (const entry of entries) {
      if (entry.startsWith(".")) continue;
      const folder = join(root.dir, entry);
      try {
        if (!statSync(folder).isDirectory()) continue;
      } catch {
        continue; // a dangling symlink: not a skill folder
      }
      let skill: Skill;
      try {
        skill = loadOne(folder, entry, root.scope, { home: opts.home, userHome: opts.userHome ?? process.env.HOME });
      } catch (err) {
        problems.push(`${join(folder, SKILL_FILE)}: ${(err as Error).message}`);
        continue;
      }
      if (byName.has(skill.name)) continue; // a nearer skill of that name wins
      if (skills.length >= MAX_SKILLS) {
        problems.push(`${folder}: skipped (more than ${MAX_SKILLS} skills)`);
        continue;
      }
      byName.set(skill.name, skill);
      skills.push(skill);
    }
  }
  return { skills, problems };
}

const catalogs = new Map<string, SkillCatalog>();

/** The catalog of this process for a data directory and working directory (discovered on first use). */
export function skillCatalogFor(opts: { home: string; cwd: string }): SkillCatalog {
  const key = `${opts.home}\0${opts.cwd}`;
  let c = catalogs.get(key);
  if (!c) catalogs.set(key, (c = discoverSkills(opts)));
  return c;
}

/** The full instructions of a skill (SKILL.md after its front matter), read now. */
export function loadSkillBody(skill: Skill): string {
  return parseSkillFile(readInside(skill.dir, join(skill.dir, SKILL_FILE), SKILL_MAX_BYTES, { project: skill.scope === "project" }), skill.name).body;
}

/** name → host folder, for the sandbox's read-only mounts. */
export function skillMounts(catalog: SkillCatalog): Record<string, string> {
  return Object.fromEntries(catalog.skills.map((s) => [s.name, s.dir]));
}

/** The skill a prompt starting with `/<name>` activates (an installed skill's name), else undefined. */
export function skillInvocation(text: string, catalog: SkillCatalog): Skill | undefined {
  const m = /^\/([a-z0-9][a-z0-9-]*)(?:\s|$)/.exec(text.trimStart());
  return m ? catalog.skills.find((s) => s.name === m[1]) : undefined;
}
