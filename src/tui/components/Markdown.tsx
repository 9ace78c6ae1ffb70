// A committed answer rendered from Markdown (marked's lexer, highlight.js for fenced code; both loaded after the first
// frame — until then, or when they failed to load, the text is shown as typed). Headings, emphasis, inline code,
// lists, links, block quotes, rules, tables and code blocks; code keeps its text exactly (no trimming or re-flowing,
// only the terminal's wrap of a line longer than the screen). Colours follow the theme (NO_COLOR: none; bold, italic
// and the list and table marks still carry the structure).
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { markdownLib } from "../markdown/load.js";
import type { Token, Tokens } from "../markdown/lib.js";
import { type Align, tableLines } from "../markdown/table.js";
import { syntaxColor, theme } from "../theme.js";

export interface MarkdownProps {
  text: string;
  /** Columns available. */
  width: number;
}

type Lib = NonNullable<ReturnType<typeof markdownLib>>;

/**
 * Quotes and lists nested deeper than this are shown as their Markdown text: every level is a few more layout boxes,
 * and a hostile answer of a few hundred bytes (">>>>…" a thousand deep) would overflow the layout engine and crash
 * the chat, on every resume too.
 */
export const MAX_NESTING = 8;
/** The narrowest column a nested block is laid out in. */
const MIN_WIDTH = 10;

/** The plain text of inline tokens (table cells, link text compared with its href). */
function plain(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((t) => ("tokens" in t && t.tokens ? plain(t.tokens) : "text" in t ? String(t.text) : t.raw)).join("");
}

function inline(tokens: Token[] | undefined): ReactNode[] {
  return (tokens ?? []).map((t, i) => {
    switch (t.type) {
      case "strong":
        return (
          <Text key={i} bold>
            {inline(t.tokens)}
          </Text>
        );
      case "em":
        return (
          <Text key={i} italic>
            {inline(t.tokens)}
          </Text>
        );
      case "del":
        return (
          <Text key={i} strikethrough>
            {inline(t.tokens)}
          </Text>
        );
      case "codespan":
        return (
          <Text key={i} color={theme.accent}>
            {t.text}
          </Text>
        );
      case "link": {
        const text = plain(t.tokens);
        return (
          <Text key={i}>
            <Text underline color={theme.user}>
              {inline(t.tokens)}
            </Text>
            {text !== t.href ? <Text dimColor> ({t.href})</Text> : null}
          </Text>
        );
      }
      case "image":
        return (
          <Text key={i} dimColor>
            [image: {t.text || t.href}]
          </Text>
        );
      case "br":
        return "\n";
      case "checkbox":
        return t.checked ? "[x] " : "[ ] ";
      case "text":
        return "tokens" in t && t.tokens ? <Text key={i}>{inline(t.tokens)}</Text> : t.text;
      case "escape":
      case "html":
        return t.text;
      default:
        return t.raw;
    }
  });
}

function CodeBlock({ token, lib }: { token: Tokens.Code; lib: Lib }) {
  const lines = lib.highlightLines(token.text, token.lang?.trim().split(/\s+/)[0]?.toLowerCase());
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lines.map((segs, i) => (
        <Text key={i} wrap="wrap">
          {segs.length === 0
            ? " "
            : segs.map((s, j) => (
                <Text key={j} color={syntaxColor(s.scope)}>
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

function Table({ token, width }: { token: Tokens.Table; width: number }) {
  const t = tableLines(
    token.header.map((c) => plain(c.tokens)),
    token.rows.map((r) => r.map((c) => plain(c.tokens))),
    token.align as Align[],
    width,
  );
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {t.header}
      </Text>
      <Text dimColor wrap="truncate-end">
        {t.rule}
      </Text>
      {t.rows.map((r, i) => (
        <Text key={i} wrap="truncate-end">
          {r}
        </Text>
      ))}
    </Box>
  );
}

function List({ token, width, lib, depth }: { token: Tokens.List; width: number; lib: Lib; depth: number }) {
  const start = typeof token.start === "number" ? token.start : 1;
  const markers = token.items.map((item, i) => (item.task ? (item.checked ? "[x]" : "[ ]") : token.ordered ? `${start + i}.` : "•"));
  const mw = Math.max(...markers.map((m) => m.length)) + 1;
  return (
    <Box flexDirection="column">
      {token.items.map((item, i) => (
        <Box key={i} marginTop={token.loose && i > 0 ? 1 : 0}>
          <Box width={mw} flexShrink={0}>
            <Text color={theme.accent}>{markers[i]}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            {blocks(
              item.tokens.filter((t) => t.type !== "checkbox"),
              width - mw,
              lib,
              token.loose,
              depth + 1,
            )}
          </Box>
        </Box>
      ))}
    </Box>
  );
}

function block(t: Token, width: number, lib: Lib, depth: number): ReactNode {
  if (depth > MAX_NESTING && (t.type === "list" || t.type === "blockquote")) return <Text wrap="wrap">{t.raw.replace(/\n+$/, "")}</Text>;
  switch (t.type) {
    case "heading":
      return (
        <Text bold underline={t.depth === 1} color={theme.accent} wrap="wrap">
          {inline(t.tokens)}
        </Text>
      );
    case "paragraph":
      return <Text wrap="wrap">{inline(t.tokens)}</Text>;
    case "text":
      return <Text wrap="wrap">{"tokens" in t && t.tokens ? inline(t.tokens) : t.text}</Text>;
    case "code":
      return <CodeBlock token={t as Tokens.Code} lib={lib} />;
    case "list":
      return <List token={t as Tokens.List} width={width} lib={lib} depth={depth} />;
    case "table":
      return <Table token={t as Tokens.Table} width={width} />;
    case "blockquote":
      return (
        <Box>
          <Box width={2} flexShrink={0}>
            <Text dimColor>│</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            {blocks(t.tokens ?? [], width - 2, lib, true, depth + 1)}
          </Box>
        </Box>
      );
    case "hr":
      return <Text dimColor>{"─".repeat(Math.max(1, Math.min(width, 40)))}</Text>;
    case "html":
      return <Text wrap="wrap">{t.text.replace(/\n+$/, "")}</Text>;
    default:
      return null;
  }
}

/** Blocks one under the other; `spaced`: a blank line between them (paragraphs), else tight (a tight list item). */
function blocks(tokens: Token[], width: number, lib: Lib, spaced = true, depth = 0): ReactNode[] {
  const shown = tokens.filter((t) => t.type !== "space" && t.type !== "def");
  const w = Math.max(MIN_WIDTH, width);
  return shown.map((t, i) => (
    <Box key={i} flexDirection="column" marginTop={spaced && i > 0 ? 1 : 0}>
      {block(t, w, lib, depth)}
    </Box>
  ));
}

export function Markdown({ text, width }: MarkdownProps) {
  const lib = markdownLib();
  const trimmed = text.replace(/\s+$/, "");
  if (!lib) return <Text>{trimmed}</Text>;
  let tokens: Token[];
  try {
    tokens = lib.lex(trimmed);
  } catch {
    return <Text>{trimmed}</Text>;
  }
  return <Box flexDirection="column">{blocks(tokens, width, lib)}</Box>;
}
