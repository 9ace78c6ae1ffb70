// Pure text helpers for the TUI. Widths are terminal columns (wide CJK/emoji count 2), so pre-wrapped text never
// gets re-wrapped by Ink — that is what keeps the live region's height exactly what the App budgeted.

import { forTerminal } from "../vocabulary/terminal-text.js";
import { userPath } from "../vocabulary/workspace-path.js";
import type { StatusView } from "./state/types.js";

/** Removes ANSI escapes and control characters (and masks URL credentials), expands tabs; keeps newlines. */
export function cleanText(text: string): string {
  return forTerminal(text).replace(/\t/g, "    ");
}

/** Collapses any whitespace run (newlines included) to one space: for one-line summaries. */
export function oneLine(text: string): string {
  return cleanText(text).replace(/\s+/g, " ").trim();
}

/** Terminal column width of one code point (0 for combining marks, 2 for wide East Asian and emoji). */
export function charWidth(cp: number): number {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Column width of a (single-line, already clean) string. */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Cuts one line to `width` columns, ending with "…" when cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  let out = "";
  let w = 0;
  for (const ch of text) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + "…";
}

/** Hard-wraps one line at `width` columns (an empty line stays one empty line). */
export function wrapLine(line: string, width: number): string[] {
  const w = Math.max(1, Math.floor(width));
  const out: string[] = [];
  let cur = "";
  let cw = 0;
  for (const ch of line) {
    const chw = charWidth(ch.codePointAt(0)!);
    if (cw + chw > w && cur !== "") {
      out.push(cur);
      cur = "";
      cw = 0;
    }
    cur += ch;
    cw += chw;
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
      s = Array.isArray(a.filepaths) ? a.filepaths.filter((f): f is string => typeof f === "string").map(basename).join(", ") : undefined;
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
