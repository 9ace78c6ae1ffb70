// A deerflow tool call as an editor shows it: ACP's kind, a one-line title and the locations the editor follows.
// The arguments come from the model, so they are data: a title is stripped of control characters and bounded, and a
// location is given only when the path lies inside the thread's workspace, links followed (a hostile
// `../../etc/passwd`, `/home/me/.ssh/id_rsa` or a link to them never makes the editor open that file).
import { basename, dirname, isAbsolute, join, normalize, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { isInside } from "../sandbox/paths.js";
import { realOrSelf } from "../sandbox/real-path.js";
import { hostPathOf } from "../vocabulary/presented-files.js";
import { VIRTUAL_ROOT } from "../vocabulary/workspace-path.js";
import { stripControl } from "../vocabulary/terminal-text.js";

/** deerflow's tools by what they do (MCP tools and unknown names are "other"). */
const KINDS: Record<string, ToolKind> = {
  read_file: "read",
  ls: "read",
  view_image: "read",
  read_history: "read",
  skill: "read",
  write_file: "edit",
  str_replace: "edit",
  bash: "execute",
  bash_jobs: "execute",
  grep: "search",
  glob: "search",
  tool_search: "search",
  task: "think",
  write_todos: "think",
  write_notes: "think",
  web_fetch: "fetch",
  web_search: "fetch",
};

/** The longest title sent: an editor shows it on one line. */
const MAX_TITLE = 160;

export function toolKindOf(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

function arg(args: unknown, key: string): string | undefined {
  const v = args && typeof args === "object" ? (args as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : undefined;
}

function bounded(text: string): string {
  const line = stripControl(text).replace(/\s+/g, " ").trim();
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1)}…` : line;
}

/** The host path a model-supplied path names, or undefined when it is outside the workspace. */
export function workspacePathOf(path: string | undefined, workspace: string): string | undefined {
  if (!path || path.includes("\0")) return undefined;
  const host = path.startsWith(`${VIRTUAL_ROOT}/`) || path === VIRTUAL_ROOT ? hostPathOf(normalize(path), { workspace_path: workspace }) : path;
  const abs = isAbsolute(host) ? normalize(host) : resolve(workspace, host);
  if (!isInside(abs, workspace)) return undefined;
  // Followed through links too: a link in the workspace to /etc offers nothing of /etc (a new file: its folder's links).
  const resolved = realOrSelf(abs);
  const real = resolved === abs ? join(realOrSelf(dirname(abs)), basename(abs)) : resolved;
  return isInside(real, realOrSelf(workspace)) ? abs : undefined;
}

/** "Read src/a.ts", "Run `npm test`", "Search TODO": what the call does, from its arguments. */
export function toolTitleOf(name: string, args: unknown): string {
  const path = arg(args, "path");
  const command = arg(args, "command");
  const pattern = arg(args, "pattern");
  const description = arg(args, "description");
  switch (toolKindOf(name)) {
    case "read":
      return bounded(path ? `Read ${path}` : (description ?? name));
    case "edit":
      return bounded(path ? `Edit ${path}` : name);
    case "execute":
      return bounded(command ? `Run ${command}` : (description ?? name));
    case "search":
      return bounded(pattern ? `Search ${pattern}${path ? ` in ${path}` : ""}` : name);
    default:
      return bounded(description ? `${name}: ${description}` : name);
  }
}

/** Where the call works, as real paths inside the workspace (with the first line asked for, when it names one). */
export function toolLocationsOf(args: unknown, workspace: string | undefined): ToolCallLocation[] {
  if (!workspace) return [];
  const path = workspacePathOf(arg(args, "path"), workspace);
  if (!path) return [];
  const line = args && typeof args === "object" ? (args as Record<string, unknown>).start_line : undefined;
  return [typeof line === "number" && Number.isInteger(line) && line > 0 ? { path, line } : { path }];
}
