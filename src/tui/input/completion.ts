// What the input is completing, as pure functions over the input buffer: `/` at the start of the input completes a
// command (built-ins and skills), `@` at the start of a word completes a workspace path. The menu's rows come from
// the caller (the controller knows the skills and the path index); this decides when a menu is open, what its query
// is, and what picking a row does to the text.
import { bestMatches } from "../../vocabulary/fuzzy-match.js";
import type { InputBuffer } from "./input-buffer.js";

export interface CompletionContext {
  kind: "slash" | "path";
  /** What was typed after the `/` or `@`. */
  query: string;
  /** The range of the text a pick replaces (the `/` or `@` included). */
  start: number;
  end: number;
}

export interface CompletionItem {
  /** What a pick puts in place of the typed word (`/compact`, `@src/app.ts`). */
  value: string;
  /** The row's name and, dimmed after it, what it is. */
  label: string;
  detail?: string;
  /** A command that needs arguments (`/title <text>`): enter completes it instead of sending it. */
  needsArgs?: boolean;
  /** A directory: a pick keeps completing inside it. */
  dir?: boolean;
}

export interface CompletionList {
  items: CompletionItem[];
  /** A dim row when there is nothing to pick (yet): "indexing…", "no match". */
  note?: string;
}

/** The completion the cursor is in, or undefined (no menu). */
export function completionContext(b: InputBuffer): CompletionContext | undefined {
  const before = b.text.slice(0, b.cursor);
  const after = b.text.slice(b.cursor);
  // A command: the input is `/word` so far, the cursor at its end (`/title my text` is past the menu).
  if (/^\/\S*$/.test(before) && after === "") return { kind: "slash", query: before.slice(1), start: 0, end: b.cursor };
  // A path: the word at the cursor starts with `@` (and the cursor is at the word's end).
  const word = /(?:^|\s)@(\S*)$/.exec(before);
  if (word && (after === "" || /^\s/.test(after))) return { kind: "path", query: word[1]!, start: b.cursor - word[1]!.length - 1, end: b.cursor };
  return undefined;
}

export interface CommandSpec {
  name: string;
  args?: string;
  description: string;
}

/** Commands whose name matches `query`: names starting with it first, then fuzzy matches. */
export function commandItems(commands: readonly CommandSpec[], query: string, limit: number): CompletionItem[] {
  const q = query.toLowerCase();
  const keyed = commands.map((c) => ({ c, text: c.name, lower: c.name.toLowerCase() }));
  const prefix = keyed.filter((k) => k.lower.startsWith(q));
  const rest = bestMatches(
    keyed.filter((k) => !k.lower.startsWith(q)),
    q,
    limit,
    (k) => k,
  );
  return [...prefix, ...rest]
    .slice(0, limit)
    .map(({ c }) => ({ value: `/${c.name}`, label: `/${c.name}${c.args ? ` ${c.args}` : ""}`, detail: c.description, needsArgs: c.args?.startsWith("<") === true }));
}

/** Workspace paths as rows (directories end with "/"). */
export function pathItems(paths: readonly string[]): CompletionItem[] {
  return paths.map((p) => ({ value: `@${p}`, label: p, dir: p.endsWith("/") }));
}

/**
 * The text after picking `item`: the typed word replaced, then a space (a directory gets none: the menu goes on
 * inside it).
 */
export function applyCompletion(b: InputBuffer, ctx: CompletionContext, item: CompletionItem): InputBuffer {
  const inserted = item.value + (item.dir ? "" : " ");
  const text = b.text.slice(0, ctx.start) + inserted + b.text.slice(ctx.end);
  return { text, cursor: ctx.start + inserted.length };
}
