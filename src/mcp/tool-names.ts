// Names and descriptions of MCP tools as the model sees them. Names are `mcp__<server>__<tool>` (Claude Code's
// form): they can never collide with a built-in tool, and they fit OpenAI's `^[A-Za-z0-9_-]{1,64}$`. A server's
// description is text from outside: escape sequences and control characters are dropped, its length capped.
import { createHash } from "node:crypto";
import { stripControl } from "../vocabulary/terminal-text.js";

export const MCP_TOOL_PREFIX = "mcp__";
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

function safePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/_{3,}/g, "__") || "_";
}

/** `mcp__server__tool`, cut to 64 characters with a short hash when longer. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${safePart(server)}__${safePart(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/** A description the model and the terminal can take: no control characters, whitespace collapsed, capped. */
export function cleanDescription(text: string | undefined, max = MAX_DESCRIPTION): string {
  const clean = stripControl(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The first sentence (or line) of a description, for the deferred listing. */
export function oneLine(description: string, max = 120): string {
  const first = description.split(/(?<=[.!?])\s/)[0] ?? description;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
