// The words of a command as bash makes them, from the grammar's nodes (shell-grammar.ts walks the tree): quotes
// removed, `$'…'` decoded, unquoted braces expanded, and for each word whether its value is known only at run time
// (an expansion or substitution), whether its literal text holds code, and whether bash globs it (an unquoted `*`,
// `?` or `[`: its words are then file names the repository chose).
import type { Node } from "web-tree-sitter";
import { decodeAnsiC } from "./shell-ansi-c.js";
import { HELD_CODE, type Word, expandBraces } from "./shell-command.js";

const EXPANSIONS = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution"]);

const unescape = (s: string) => s.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");

export function hasExpansion(node: Node): boolean {
  if (EXPANSIONS.has(node.type)) return true;
  return node.namedChildren.some((c) => c !== null && hasExpansion(c));
}

const held = (literal: string) => HELD_CODE.test(literal);

/** Unquoted source text with a `*`, `?` or `[` bash's pathname expansion reads (an escaped one is literal). */
const globIn = (source: string) => /[*?[]/.test(source.replace(/\\./gs, ""));

export function wordOf(node: Node): Word {
  switch (node.type) {
    case "word": {
      const text = unescape(node.text);
      return { text, dynamic: false, heldCode: held(text), glob: globIn(node.text) };
    }
    case "raw_string":
      return { text: node.text.slice(1, -1), dynamic: false, heldCode: held(node.text) };
    case "ansi_c_string": {
      // bash decodes `$'\x2dexec'` to `-exec` before the program sees it: every rule judges the decoded word (the
      // eighth adversarial pass hid `-exec` and `../.aws` this way).
      const text = decodeAnsiC(node.text.slice(2, -1));
      return { text, dynamic: false, heldCode: held(text) };
    }
    case "string": {
      // children: `"`, string_content, expansions, `"`
      let text = "";
      let literal = "";
      for (const c of node.children) {
        if (!c || c.type === '"') continue;
        const piece = c.type === "string_content" ? c.text.replace(/\\([$`"\\\n])/g, "$1") : c.text;
        if (c.type === "string_content") literal += piece;
        text += piece;
      }
      return { text, dynamic: hasExpansion(node), heldCode: held(literal) };
    }
    case "concatenation": {
      const parts = node.namedChildren.filter((c): c is Node => c !== null).map(wordOf);
      // A bare `$` or glob piece of a concatenation has no named node: fall back to the source for those.
      const text = parts.length ? parts.map((p) => p.text).join("") : unescape(node.text);
      const heldCode = parts.some((p) => p.heldCode) || (!parts.some((p) => p.dynamic) && held(text));
      // Unnamed pieces (a bare glob character) are unquoted source; named ones say for themselves.
      const glob = node.children.some((c) => c !== null && (c.isNamed ? wordOf(c).glob === true : globIn(c.text)));
      return { text: parts.length === node.children.length ? text : unescape(node.text), dynamic: parts.some((p) => p.dynamic), heldCode, glob };
    }
    default:
      return { text: node.text, dynamic: hasExpansion(node) || EXPANSIONS.has(node.type) };
  }
}

/** An unquoted word with brace expansion (`{rm,-rf,/}`) is the words bash makes of it. */
export function braced(...nodes: Node[]): Word[] {
  const words = nodes.map(wordOf);
  const w: Word = { text: words.map((x) => x.text).join(""), dynamic: words.some((x) => x.dynamic), heldCode: words.some((x) => x.heldCode), glob: words.some((x) => x.glob) };
  if (nodes.some((n) => n.type !== "word" && n.type !== "concatenation")) return nodes.length === 1 ? [words[0]!] : [w];
  // Bash expands a brace whose `{`, `,` and `}` are unquoted and unescaped, whatever quoting its elements have
  // (`{'-exec',sh}`, `{\.\.,x}`: the tenth pass). Quoted and escaped braces and commas are kept apart as private
  // characters while the word is expanded, then put back.
  const pieces = nodes.flatMap((n) => (n.type === "concatenation" ? n.children.filter((c): c is Node => c !== null) : [n]));
  const marked = pieces
    .map((c) => {
      if (c.type === "word" || c.type === "brace_expression")
        return c.text
          .replace(/\\([{},])/g, (_m, ch: string) => PROTECT[ch]!)
          .replace(/\\\n/g, "")
          .replace(/\\(.)/gs, "$1");
      return wordOf(c).text.replace(/[{},]/g, (ch) => PROTECT[ch]!);
    })
    .join("");
  if (!/\{[^{}]*(?:,|\.\.)[^{}]*\}/.test(marked)) return [w];
  return expandBraces(marked).map((text) => ({ text: text.replace(/[\uE000-\uE002]/g, (ch) => RESTORE[ch]!), dynamic: w.dynamic, glob: w.glob }));
}
const PROTECT: Record<string, string> = { "{": "\uE000", ",": "\uE001", "}": "\uE002" };
const RESTORE: Record<string, string> = { "\uE000": "{", "\uE001": ",", "\uE002": "}" };

/** Argument nodes bash reads as one word: the grammar splits `{\.\.,x}/n` after its `{`, bash does not. */
export function adjacentGroups(nodes: Node[]): Node[][] {
  const groups: Node[][] = [];
  for (const n of nodes) {
    const last = groups.at(-1)?.at(-1);
    if (last && last.endIndex === n.startIndex) groups.at(-1)!.push(n);
    else groups.push([n]);
  }
  return groups;
}
