// What activating a skill puts in the conversation, whoever asks (the model through the `skill` tool, the user by
// typing `/<name>`, SkillActivation after a compaction): the skill's full instructions with where its files are,
// marked with SKILL_MARKER so SkillActivation can tell whether the text is still in the history; and the
// `skill_context` entry (a reference, never the body) that survives compaction.
import { readdirSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import type { SkillContextEntry } from "../state/types.js";
import { HIDDEN_MARKER, SKILL_KIND, SKILL_MARKER } from "../vocabulary/message-markers.js";
import { type Skill, loadSkillBody, readInside, skillVirtualDir } from "./catalog.js";

/** A resource file read through the `skill` tool or read_file, at most this big. */
export const SKILL_RESOURCE_MAX_BYTES = 200 * 1024;
const LISTED_FILES = 40;

/** Files of the skill's folder besides SKILL.md (two levels, no dot files), as paths relative to it. */
export function skillFiles(skill: Skill): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= LISTED_FILES || e.name.startsWith(".")) continue;
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 2) walk(p, depth + 1);
      else if (e.isFile() && !(depth === 0 && e.name === "SKILL.md")) out.push(relative(skill.dir, p).split("\\").join("/"));
    }
  };
  walk(skill.dir, 0);
  return out;
}

/** The skill's instructions as the model reads them. */
export function skillText(skill: Skill, body = loadSkillBody(skill)): string {
  const base = skillVirtualDir(skill.name);
  const files = skillFiles(skill);
  const lines = [`<skill name="${skill.name}" base="${base}">`, body, "</skill>"];
  lines.push(files.length ? `Files of this skill (read-only, under ${base}/; read them with read_file or in bash): ${files.join(", ")}` : `This skill has no other files.`);
  return lines.join("\n");
}

export function skillContextEntry(skill: Skill, loadedAt: number): SkillContextEntry {
  return { name: skill.name, path: skill.virtualPath, description: skill.description, loaded_at: loadedAt };
}

/** A hidden user-role message with the skill's text: `why` says how it got there. */
export function skillMessage(skill: Skill, why: "user" | "restored", body?: string): HumanMessage {
  const intro =
    why === "user"
      ? `The user activated the skill "${skill.name}": follow its instructions for this request.`
      : `The skill "${skill.name}" was activated earlier in this conversation (its text was compacted away): its instructions still apply.`;
  return new HumanMessage({
    content: `<system-reminder>\n${intro}\n${skillText(skill, body)}\n</system-reminder>`,
    additional_kwargs: { [HIDDEN_MARKER]: SKILL_KIND, [SKILL_MARKER]: skill.name },
  });
}

/** A file of the skill by its path relative to the folder (or under /mnt/skills/<name>/), confined to the folder. */
export function readSkillResource(skill: Skill, file: string): string {
  const base = skillVirtualDir(skill.name);
  const rel = file.startsWith(`${base}/`) ? file.slice(base.length + 1) : file;
  const norm = posix.normalize(rel);
  if (!rel || norm.startsWith("..") || posix.isAbsolute(norm) || rel.includes("\0")) {
    throw new Error(`${JSON.stringify(file)} is not a file of the skill "${skill.name}" (give a path inside ${base}/).`);
  }
  try {
    return readInside(skill.dir, join(skill.dir, ...norm.split("/")), SKILL_RESOURCE_MAX_BYTES, { project: skill.scope === "project" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`${base}/${norm} does not exist.`);
    throw new Error(`${base}/${norm} cannot be read: ${code ?? (err as Error).message}.`);
  }
}

/** A model-given path under /mnt/skills/<name>/… read from the skill's folder (read-only, confined to it). */
export function readSkillPath(path: string, skillDirs: Record<string, string> | undefined): { data: Buffer; virtualPath: string } {
  const m = /^\/mnt\/skills\/([^/]+)\/(.+)$/.exec(posix.normalize(path));
  const dir = m ? skillDirs?.[m[1]!] : undefined;
  if (!m || !dir) throw new Error(`${JSON.stringify(path)} is not a file of an installed skill (skills live under /mnt/skills/<name>/).`);
  const rel = m[2]!;
  if (rel.split("/").includes("..")) throw new Error(`${JSON.stringify(path)} leaves the skill's folder.`);
  try {
    return { data: Buffer.from(readInside(dir, join(dir, ...rel.split("/")), SKILL_RESOURCE_MAX_BYTES), "utf8"), virtualPath: `/mnt/skills/${m[1]}/${rel}` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`/mnt/skills/${m[1]}/${rel} ${code === "ENOENT" ? "does not exist" : `cannot be read: ${code ?? (err as Error).message}`}.`);
  }
}
