// One custom command file: Markdown with optional `---` YAML front matter (config/front-matter.ts), in Claude Code's
// format so a user's `.claude/commands/*.md` works when copied: `description`, `argument-hint`, `model`,
// `allowed-tools`; the body is the prompt. Other keys (`disable-model-invocation`…) are ignored.
//
// Hostile input (a cloned repository ships these files): at most COMMAND_MAX_BYTES (a bigger file is refused, not
// cut); control characters and escape sequences are removed from every text shown on the terminal or sent.
import { type FrontMatterValue, scalarText, splitFrontMatter } from "../config/front-matter.js";
import { oneLine, stripControl } from "../vocabulary/terminal-text.js";

/** A command file larger than this is refused (its text goes into the conversation whole). */
export const COMMAND_MAX_BYTES = 64 * 1024;
const DESCRIPTION_MAX = 200;

export interface CommandFile {
  description: string;
  argumentHint?: string;
  model?: string;
  /** `allowed-tools` as written (`Bash(git status:*)`, `Read`…): gates the body's `!` lines. */
  allowedTools: string[];
  body: string;
}

function toolList(v: FrontMatterValue | undefined): string[] {
  if (v === undefined || v === null) return [];
  // Claude Code accepts a list or one comma-separated string; a comma inside parentheses belongs to the rule.
  const items = Array.isArray(v) ? v.map((x) => scalarText(x) ?? "") : (scalarText(v) ?? "").split(/,(?![^(]*\))/);
  return items.map((s) => oneLine(s)).filter(Boolean);
}

/**
 * Claude Code's documented examples write `argument-hint: [pr-number] [priority]` unquoted, which YAML refuses (and
 * reads `[message]` alone as a list): that one key's value is taken as written.
 */
const HINT_LINE = /^(argument-hint:[ \t]*)(\[.*?)[ \t]*$/m;

function splitCommandFile(text: string): { data: Record<string, FrontMatterValue>; body: string } {
  if (!/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { data: {}, body: text.trim() };
  const end = text.search(/\n---[ \t]*(\r?\n|$)/);
  const head = end === -1 ? text : text.slice(0, end);
  return splitFrontMatter(head.replace(HINT_LINE, (_m, key: string, v: string) => `${key}${JSON.stringify(v)}`) + text.slice(head.length));
}

/** Parse a command file's text. Throws a one-line reason. */
export function parseCommandFile(text: string): CommandFile {
  const { data, body: rawBody } = splitCommandFile(text);
  const body = stripControl(rawBody).trim();
  if (!body) throw new Error("the prompt after the front matter is empty");
  // Claude Code's default description: the body's first line.
  let description = oneLine(scalarText(data.description) ?? body.split("\n").find((l) => l.trim()) ?? "");
  if (description.length > DESCRIPTION_MAX) description = `${description.slice(0, DESCRIPTION_MAX - 1)}…`;
  const hint = scalarText(data["argument-hint"]);
  const model = scalarText(data.model);
  return {
    description,
    ...(hint ? { argumentHint: oneLine(hint) } : {}),
    ...(model ? { model: oneLine(model) } : {}),
    allowedTools: toolList(data["allowed-tools"]),
    body,
  };
}
