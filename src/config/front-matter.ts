// `---` YAML front matter and the Markdown body after it: SKILL.md files and subagent files (`.deerflow/agents/*.md`)
// read the same way, with the `yaml` library (YAML 1.2 core schema), as Claude Code and gemini-cli read theirs.
//
// Decided:
// - A duplicate key is refused, not "first wins": a file that says `name:` twice is ambiguous, and js-yaml (what the
//   peers use) refuses it too. Anchors and aliases are limited (maxAliasCount) so a small hostile file cannot expand.
// - Errors are one line naming the line number; callers prefix the file.
import { YAMLParseError, parse } from "yaml";

export type FrontMatterScalar = string | number | boolean | null;
export type FrontMatterValue = FrontMatterScalar | FrontMatterValue[] | { [key: string]: FrontMatterValue };

export class FrontMatterError extends Error {
  override name = "FrontMatterError";
}

/** The front matter's top-level mapping and the body after the closing `---` (trimmed). Throws FrontMatterError. */
export function splitFrontMatter(text: string): { data: Record<string, FrontMatterValue>; body: string } {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = src.split("\n");
  if (lines[0]?.trim() !== "---") throw new FrontMatterError('missing front matter (the file must start with a "---" line)');
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (end === -1) throw new FrontMatterError('front matter is not closed (no second "---" line)');
  let data: unknown;
  try {
    data = parse(lines.slice(1, end).join("\n"), { uniqueKeys: true, maxAliasCount: 10 });
  } catch (err) {
    // Everything `parse` throws is about the text (a syntax error, a duplicate key, too many aliases).
    // The YAML's line + 1 is the file's line (the opening "---").
    const line = err instanceof YAMLParseError ? err.linePos?.[0]?.line : undefined;
    const what = String((err as Error).message)
      .split("\n")[0]!
      .replace(/ at line \d+, column \d+:?$/, "");
    throw new FrontMatterError(`front matter is not valid YAML${line ? ` (line ${line + 1})` : ""}: ${what}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) throw new FrontMatterError("front matter must be `key: value` lines");
  return {
    data: data as Record<string, FrontMatterValue>,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** A scalar as text (`max_turns: 5` → "5"); undefined for a list or a mapping. */
export function scalarText(v: FrontMatterValue | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "object") return undefined;
  return String(v);
}
