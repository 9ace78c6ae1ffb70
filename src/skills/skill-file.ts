// One SKILL.md: the format Claude Code, Codex and Gemini CLI share (agentskills.io): a folder holding SKILL.md,
// whose YAML front matter names the skill (`name`: lowercase letters, digits, hyphens, ≤64) and says what it is for
// (`description`, ≤1024 characters), followed by the instructions; other files of the folder are its resources.
//
// The front matter is YAML (config/front-matter.ts, shared with subagent files). Unlike subagent files, skills written
// for other tools carry keys we do not use (`license`, `allowed-tools`, nested `metadata:` maps): only `name` and
// `description` are read; every other key, nested or not, is ignored.
//
// Hostile input: the file is read at most SKILL_MAX_BYTES (a bigger file is refused, not cut); control characters
// and escape sequences are removed from name and description (they reach the terminal and the model).

import { scalarText, splitFrontMatter } from "../config/front-matter.js";
import { stripControl } from "../vocabulary/terminal-text.js";

export const SKILL_FILE = "SKILL.md";
/** A SKILL.md larger than this is refused (its text goes into the model's context whole). */
export const SKILL_MAX_BYTES = 64 * 1024;
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
const NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export interface ParsedSkill {
  name: string;
  description: string;
  /** The instructions after the front matter. */
  body: string;
}

/** Parse SKILL.md text; `folder` is the directory name (the name when front matter has none). Throws a one-line reason. */
export function parseSkillFile(text: string, folder: string): ParsedSkill {
  const { data, body: rawBody } = splitFrontMatter(text);
  // A name is also a slash command and a mount point: anything but the allowed characters is refused, not cleaned.
  const name = (scalarText(data.name) ?? folder).trim();
  if (!NAME_RE.test(name)) {
    throw new Error(`invalid skill name ${JSON.stringify(stripControl(name).slice(0, 80))} (lowercase letters, digits and hyphens, at most ${SKILL_NAME_MAX})`);
  }
  const description = stripControl(scalarText(data.description) ?? "")
    .replace(/\s+/g, " ")
    .trim();
  if (!description) throw new Error('front matter needs a "description" (what the skill does and when to use it)');
  const body = stripControl(rawBody).trim();
  if (!body) throw new Error("the instructions after the front matter are empty");
  return { name, description: description.length > SKILL_DESCRIPTION_MAX ? `${description.slice(0, SKILL_DESCRIPTION_MAX - 1)}…` : description, body };
}
