// The Markdown libraries, loaded only through load.ts's dynamic import (a chunk of its own in the TUI bundle), so the
// first frame never waits for them: marked's lexer, and highlight.js's core with the languages answers usually use.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { type Token, lexer } from "marked";

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, python, ruby, rust, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

/** One run of code text and the highlight.js scope it belongs to (undefined: plain). */
export interface CodeSegment {
  text: string;
  scope?: string;
}

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };
const unescape = (s: string) => s.replace(/&(?:lt|gt|amp|quot|#x27|#39);/g, (e) => ENTITIES[e] ?? e);

/** The innermost named scope (a span may carry only sub-scope classes). */
function innermost(scopes: string[]): string | undefined {
  for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i]) return scopes[i];
  return undefined;
}

/**
 * `code` as lines of segments, highlighted when `lang` is known; the text of the segments joined is exactly `code`.
 * highlight.js answers with HTML spans (its only output format): read back into scopes here.
 */
export function highlightLines(code: string, lang: string | undefined): CodeSegment[][] {
  const language = lang && hljs.getLanguage(lang) ? lang : undefined;
  if (!language) return code.split("\n").map((text) => [{ text }]);
  let html: string;
  try {
    html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return code.split("\n").map((text) => [{ text }]);
  }
  const lines: CodeSegment[][] = [[]];
  const scopes: string[] = [];
  for (const part of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (part.startsWith("<span")) scopes.push(/class="hljs-([^" ]+)/.exec(part)?.[1] ?? "");
    else if (part === "</span>") scopes.pop();
    else if (part) {
      const pieces = unescape(part).split("\n");
      pieces.forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text) lines[lines.length - 1]!.push({ text, scope: innermost(scopes) });
      });
    }
  }
  return lines;
}

export function lex(markdown: string): Token[] {
  return lexer(markdown, { gfm: true });
}

export type { Token, Tokens } from "marked";
