// Pure text helpers for the TUI. Widths are terminal columns as Ink counts them (text-width.ts), so pre-wrapped text
// never gets re-wrapped by Ink — that is what keeps the live region's height exactly what the App budgeted.

import { forTerminal, oneLine } from "../vocabulary/terminal-text.js";

export { oneLine };
import { userPath } from "../vocabulary/workspace-path.js";
import type { StatusView } from "./state/types.js";
import { graphemeWidths, textWidth } from "./text-width.js";

/** Removes ANSI escapes and control characters (and masks URL credentials), expands tabs; keeps newlines. */
export function cleanText(text: string): string {
  return forTerminal(text).replace(/\t/g, "    ");
}

/** Cuts one line to `width` columns, ending with "…" when cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  let out = "";
  let w = 0;
  for (const [g, gw] of graphemeWidths(text)) {
    if (w + gw > width - 1) break;
    out += g;
    w += gw;
  }
  return out + "…";
}

/** Cuts one line to `width` columns from the start, beginning with "…" when cut (a path keeps its file name). */
export function truncateStart(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  const kept: string[] = [];
  let w = 0;
  for (const [g, gw] of [...graphemeWidths(text)].reverse()) {
    if (w + gw > width - 1) break;
    kept.unshift(g);
    w += gw;
  }
  return `…${kept.join("")}`;
}

/** One column per character: the common case, wrapped without segmenting (a streamed answer is re-wrapped often). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function wrapAscii(line: string, w: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > w) {
    out.push(rest.slice(0, w));
    rest = rest.slice(rest[w] === " " && rest[w - 1] !== " " ? w + 1 : w);
  }
  out.push(rest);
  return out;
}

/**
 * Hard-wraps one line at `width` columns (an empty line stays one empty line). A space where the line breaks is
 * dropped, so a word ending on the last column never makes the next line start with a space.
 */
export function wrapLine(line: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  if (PRINTABLE_ASCII.test(line)) return wrapAscii(line, w);
  // A streamed answer is re-wrapped on every chunk, and only its last line changes: the others come from here.
  const key = `${w}\u0000${line}`;
  const known = wrapped.get(key);
  if (known) return known;
  const rows = wrapWide(line, w);
  if (wrapped.size >= WRAPPED_MAX) wrapped.delete(wrapped.keys().next().value!);
  wrapped.set(key, rows);
  return rows;
}

/** Wrapped lines with wide or combining characters, by width and text (oldest dropped first). */
const wrapped = new Map<string, string[]>();
const WRAPPED_MAX = 4000;

function wrapWide(line: string, w: number): string[] {
  if (textWidth(line) <= w) return [line];
  const out: string[] = [];
  let cur = "";
  let cw = 0;
  for (const [g, gw] of graphemeWidths(line)) {
    if (cw + gw > w && cur !== "") {
      const wordEnded = !cur.endsWith(" ");
      out.push(cur);
      cur = "";
      cw = 0;
      if (g === " " && wordEnded) continue;
    }
    cur += g;
    cw += gw;
  }
  out.push(cur);
  return out;
}

/** Text split into lines without the trailing empty ones (a final "\n" does not make a blank line). */
export function splitLines(text: string): string[] {
  const lines = cleanText(text).split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines;
}

/** The last `maxLines` visual lines of `text` hard-wrapped at `width`; `hidden` counts the visual lines cut above. */
export function tailLines(text: string, maxLines: number, width: number): { lines: string[]; hidden: number } {
  const visual = splitLines(text).flatMap((l) => wrapLine(l, width));
  const keep = Math.max(0, Math.floor(maxLines));
  const lines = keep === 0 ? [] : visual.slice(-keep);
  return { lines, hidden: visual.length - lines.length };
}

/** The first `maxLines` source lines of `text` (Ink wraps them); `hidden` counts the lines cut below. */
export function headLines(text: string, maxLines: number): { lines: string[]; hidden: number } {
  const all = splitLines(text);
  const lines = all.slice(0, Math.max(0, Math.floor(maxLines)));
  return { lines, hidden: all.length - lines.length };
}

/** 950, 1.2k, 34k, 1.2M. */
export function formatTokens(n: number): string {
  const v = Math.max(0, Math.round(Number.isFinite(n) ? n : 0));
  const one = (x: number) => x.toFixed(1).replace(/\.0$/, "");
  if (v < 1000) return String(v);
  const k = v / 1000;
  if (k < 9.95) return `${one(k)}k`;
  if (Math.round(k) < 1000) return `${Math.round(k)}k`;
  const m = v / 1_000_000;
  return m < 9.95 ? `${one(m)}M` : `${Math.round(m)}M`;
}

/** 0.4s, 12s, 3m 05s, 1h 02m. Floors, so a ticking clock never runs backwards. */
export function formatElapsed(ms: number): string {
  const t = Math.max(0, Number.isFinite(ms) ? ms : 0);
  const tenths = Math.floor(t / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)}s`;
  const s = Math.floor(t / 1000);
  if (s < 60) return `${s}s`;
  const pad = (x: number) => String(x).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
}

/** Elapsed ms between two ISO timestamps, or undefined when either is missing or invalid. */
export function isoElapsed(from?: string, to?: string | number): number | undefined {
  if (!from || to === undefined) return undefined;
  const a = Date.parse(from);
  const b = typeof to === "number" ? to : Date.parse(to);
  return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, b - a) : undefined;
}

const SUMMARY_MAX = 300;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function basename(p: string): string {
  const parts = p.replace(/\/+$/, "").split("/");
  return parts[parts.length - 1] || p;
}

/** A path argument as the user reads it (relative to the workspace; the model's /mnt/user-data view stays its own). */
function shownPath(p: string | undefined): string | undefined {
  return p === undefined ? undefined : userPath(p);
}

/** One short line describing a tool call's arguments (the command, the path, the pattern…). */
export function summarizeArgs(toolName: string, args: unknown): string {
  const a: Record<string, unknown> = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  let s: string | undefined;
  switch (toolName) {
    case "bash":
      s = str(a.command);
      break;
    case "read_file":
    case "write_file":
    case "str_replace":
    case "ls":
    case "view_image":
      s = shownPath(str(a.path) ?? str(a.image_path) ?? str(a.file_path));
      break;
    case "glob":
    case "grep": {
      const pattern = str(a.pattern);
      const path = shownPath(str(a.path));
      s = pattern && path ? `${pattern} in ${path}` : pattern;
      break;
    }
    case "web_fetch":
      s = str(a.url);
      break;
    case "web_search":
      s = str(a.query);
      break;
    case "task": {
      const d = str(a.description);
      const t = str(a.subagent_type);
      s = d && t ? `${d} (${t})` : (d ?? t);
      break;
    }
    case "write_todos": {
      const n = Array.isArray(a.todos) ? a.todos.length : 0;
      s = `${n} ${n === 1 ? "item" : "items"}`;
      break;
    }
    case "present_files":
      s = Array.isArray(a.filepaths)
        ? a.filepaths
            .filter((f): f is string => typeof f === "string")
            .map(basename)
            .join(", ")
        : undefined;
      break;
  }
  if (s === undefined) {
    if (args === undefined || args === null) return "";
    if (typeof args !== "object") return truncate(oneLine(String(args)), SUMMARY_MAX);
    let json: string;
    try {
      json = JSON.stringify(args) ?? "";
    } catch {
      json = "";
    }
    s = json === "{}" || json === "[]" ? "" : json;
  }
  return truncate(oneLine(s), SUMMARY_MAX);
}

/** "YYYY-MM-DD HH:MM" in local time; the raw text (cut to 16) when it does not parse. */
export function formatDateTime(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso.slice(0, 16);
  const d = new Date(t);
  const p = (x: number) => String(x).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Pads one line with spaces to `width` columns (cutting with "…" when longer). */
export function padEnd(text: string, width: number): string {
  const t = truncate(text, width);
  return t + " ".repeat(Math.max(0, width - textWidth(t)));
}

/** The input's placeholder until the runtime is ready: what start-up is loading. */
export function loadingText(resuming: StatusView["resuming"]): string {
  if (!resuming) return "Starting…";
  return resuming.threadId ? `Loading thread ${resuming.threadId}…` : "Loading the latest thread…";
}
