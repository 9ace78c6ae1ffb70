// One SKILL.md: the format Claude Code, Codex and Gemini CLI share (agentskills.io): a folder holding SKILL.md,
// whose YAML front matter names the skill (`name`: lowercase letters, digits, hyphens, ≤64) and says what it is for
// (`description`, ≤1024 characters), followed by the instructions; other files of the folder are its resources.
//
// WHY not the subagents' front-matter parser: that one is strict on purpose (an unknown key in an agent file is a
// mistake), while skills written for other tools carry keys we do not use (`license`, `allowed-tools`, nested
// `metadata:` maps) and multi-line descriptions (`description: >`). Here only `name` and `description` are read,
// block scalars included; every other key, nested or not, is skipped.
//
// Hostile input: the file is read at most SKILL_MAX_BYTES (a bigger file is refused, not cut); control characters
// and escape sequences are removed from name and description (they reach the terminal and the model).

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

/** Control characters (C0 but tab/newline, DEL, C1) and ANSI/OSC escape sequences out. */
export function stripControls(text: string): string {
  return text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, "") // OSC … BEL/ST
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "") // CSI
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}

function unquote(raw: string): string {
  const t = raw.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      return JSON.parse(t) as string;
    } catch {
      return t.slice(1, -1);
    }
  }
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  return t.replace(/\s+#.*$/, ""); // a plain scalar's trailing comment
}

/** Top-level scalar keys of a YAML front matter (block scalars `|` / `>` folded to one string); nested keys skipped. */
function topLevelScalars(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const kv = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/.exec(lines[i]!);
    if (!kv) continue; // indented (nested map, list item), comment or blank
    const key = kv[1]!;
    const value = kv[2]!.trim();
    // Lines that belong to this key: indented ones (or blank) up to the next top-level line.
    const block: string[] = [];
    while (i + 1 < lines.length && (/^\s/.test(lines[i + 1]!) || lines[i + 1]!.trim() === "")) block.push(lines[++i]!);
    if (key in out) continue; // first wins, like most YAML readers would refuse; never the later (injected) one
    if (/^[|>][+-]?\d*$/.test(value)) {
      const body = block.map((l) => l.trim());
      out[key] = value.startsWith(">") ? body.filter(Boolean).join(" ") : body.join("\n").trim();
    } else if (value !== "") {
      // A plain scalar may continue on indented lines (folded with spaces).
      out[key] = [unquote(value), ...block.map((l) => l.trim()).filter(Boolean)].join(" ").trim();
    }
  }
  return out;
}

/** Parse SKILL.md text; `folder` is the directory name (the name when front matter has none). Throws a one-line reason. */
export function parseSkillFile(text: string, folder: string): ParsedSkill {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = src.split("\n");
  if (lines[0]?.trim() !== "---") throw new Error("missing front matter (SKILL.md must start with a \"---\" line)");
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (end === -1) throw new Error("front matter is not closed (no second \"---\" line)");
  const data = topLevelScalars(lines.slice(1, end));
  // A name is also a slash command and a mount point: anything but the allowed characters is refused, not cleaned.
  const name = (data.name ?? folder).trim();
  if (!NAME_RE.test(name)) {
    throw new Error(`invalid skill name ${JSON.stringify(stripControls(name).slice(0, 80))} (lowercase letters, digits and hyphens, at most ${SKILL_NAME_MAX})`);
  }
  const description = stripControls(data.description ?? "").replace(/\s+/g, " ").trim();
  if (!description) throw new Error('front matter needs a "description" (what the skill does and when to use it)');
  const body = stripControls(lines.slice(end + 1).join("\n")).trim();
  if (!body) throw new Error("the instructions after the front matter are empty");
  return { name, description: description.length > SKILL_DESCRIPTION_MAX ? `${description.slice(0, SKILL_DESCRIPTION_MAX - 1)}…` : description, body };
}
