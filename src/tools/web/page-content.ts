// A fetched body as text the model can read, by its content type:
// - HTML: the main content (Readability, Firefox's reader view, run on linkedom's DOM) as Markdown (turndown).
//   linkedom over jsdom: a DOM without layout or scripts, enough for Readability at a fraction of the load time and
//   memory; a page whose main content Readability cannot find is converted whole (scripts and styles dropped);
// - text/* and XML as they are; JSON pretty-printed (as sent when it does not parse, e.g. cut at the size cap);
// - PDF: its text (unpdf, pdf.js without a canvas);
// - anything else (images, archives, binaries) is refused with its type.
// HTML and PDF are converted in a worker thread (page-converter.ts), within a heap and a time limit; what falls back
// to tag-stripped text is stripped here, on the main thread, so that must stay linear on any input.
import type { FetchedPage } from "./fetch-page.js";
import { WebFetchError } from "./fetch-page.js";
import { type ConvertLimits, convertInWorker } from "./page-converter.js";

/** Longest text kept from one page (the cut is stated); web_fetch hands it out in framed windows. */
export const MAX_PAGE_CHARS = 100_000;

export interface PageText {
  /** "Markdown from HTML", "text", "JSON", "PDF text". */
  form: string;
  title?: string;
  text: string;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const isJson = (t: string) => t === "application/json" || t.endsWith("+json");
const isText = (t: string) => t.startsWith("text/") || t === "application/xml" || t.endsWith("+xml") || t === "application/javascript";

function decode(page: FetchedPage): string {
  try {
    return new TextDecoder(page.charset || "utf-8").decode(page.body);
  } catch {
    return new TextDecoder("utf-8").decode(page.body);
  }
}

/** The page as text, or a WebFetchError naming a type that is not converted. */
export async function pageText(page: FetchedPage, limits: ConvertLimits = {}): Promise<PageText> {
  const type = page.contentType || sniff(page.body);
  if (HTML_TYPES.has(type)) return await htmlToMarkdown(decode(page), limits);
  if (isJson(type)) return { form: "JSON", text: prettyJson(decode(page)) };
  if (type === "application/pdf") return pdfText(page, limits);
  if (isText(type)) return { form: "text", text: decode(page) };
  throw new WebFetchError(`${page.url} is ${type || "binary data"} (${page.body.length} bytes): web_fetch reads HTML, text, JSON and PDF only.`);
}

/** A body sent without a type: text when it has no NUL byte in its first 8 KB (as `file` and git decide). */
function sniff(body: Buffer): string {
  if (body.subarray(0, 5).toString("latin1") === "%PDF-") return "application/pdf";
  return body.subarray(0, 8192).includes(0) ? "" : "text/plain";
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A fast path before the worker: a page past any bound is read as tag-stripped text at once, instead of after the
 * worker's whole time limit (450 000 nested divs in 7 KB gzipped: the thirteenth pass's W1). The scan only estimates
 * what an HTML parser builds; the worker's limits (page-converter.ts) are what guarantee deerflow never hangs.
 */
const HTML_LIMITS = { chars: 1_500_000, elements: 30_000, depth: 200 };
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
/** Elements a parser closes when the same one opens again (`<p>a<p>b` are siblings, not nested). */
const SIBLING_CLOSED = new Set(["p", "li", "dt", "dd", "option", "tr", "td", "th"]);

/** Whether `html` is within HTML_LIMITS: one linear scan of its tags, nesting followed as a parser does. */
function convertible(html: string): boolean {
  if (html.length > HTML_LIMITS.chars) return false;
  const open: string[] = [];
  let elements = 0;
  // [^<>] not [^>]: a `<` never closed must not make every later `<` rescan to the end (quadratic).
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^<>]*>/g)) {
    const name = m[2]!.toLowerCase();
    if (++elements > HTML_LIMITS.elements) return false;
    if (m[1]) {
      // An end tag closes the innermost open element of its name; a stray one (`</span>` with no span open) is
      // ignored, as the parser ignores it.
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
    } else if (!VOID.has(name)) {
      // `<div/>` opens a div: the `/` counts only on void elements (and in SVG/MathML, which a parser nests no deeper).
      if (SIBLING_CLOSED.has(name) && open.at(-1) === name) open.pop();
      open.push(name);
      if (open.length > HTML_LIMITS.depth) return false;
    }
  }
  return true;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
const HIDDEN = /<(script|style|noscript|template)\b/gi;

/** `html` without its scripts, styles, noscripts and templates; one forward pass (an unclosed one hides the rest). */
function withoutHidden(html: string): string {
  let out = "";
  let from = 0;
  for (HIDDEN.lastIndex = 0; ; ) {
    const m = HIDDEN.exec(html);
    if (!m) return out + html.slice(from);
    out += `${html.slice(from, m.index)} `;
    const end = new RegExp(`</${m[1]}[^<>]*>`, "gi");
    end.lastIndex = HIDDEN.lastIndex;
    if (!end.exec(html)) return out;
    from = HIDDEN.lastIndex = end.lastIndex;
  }
}

/** The page's text without its tags, scripts and styles: linear (it runs on the main thread, on any page). */
function strippedText(html: string): string {
  return (
    withoutHidden(html)
      .replace(/<br\s*\/?>|<\/(?:p|div|li|h[1-6]|tr|section|article)\s*>/gi, "\n")
      .replace(/<[^<>]*>/g, " ")
      .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (e, n: string) =>
        n[0] === "#" ? String.fromCodePoint(Number.parseInt(n.slice(n[1] === "x" || n[1] === "X" ? 2 : 1), n[1] === "x" || n[1] === "X" ? 16 : 10) || 32) : (ENTITIES[n.toLowerCase()] ?? e),
      )
      // Every blank but the newline first (no-break spaces included): `\s*\n\s*` over a long run of blanks without a
      // newline would otherwise retry from each of them (quadratic).
      .replace(/[^\S\n]+/g, " ")
      .replace(/\s*\n\s*/g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}

/** The page as Markdown (in the worker), or as tag-stripped text when it is past HTML_LIMITS or the worker's limits. */
export async function htmlToMarkdown(html: string, limits: ConvertLimits = {}): Promise<PageText> {
  if (!convertible(html)) return { form: "text from HTML (too large or too deeply nested to convert)", text: strippedText(html) };
  const outcome = await convertInWorker({ kind: "html", html }, limits);
  if ("page" in outcome) return outcome.page;
  if ("stopped" in outcome && outcome.stopped === "cancelled") throw new WebFetchError("The page was fetched but not converted: the turn was cancelled.");
  const why = "stopped" in outcome ? outcome.detail : `it failed: ${outcome.error}`;
  return { form: `text from HTML (not converted to Markdown: ${why})`, text: strippedText(html) };
}

async function pdfText(page: FetchedPage, limits: ConvertLimits): Promise<PageText> {
  if (page.truncated) throw new WebFetchError(`${page.url} is a PDF larger than the size cap; a cut PDF cannot be read.`);
  const outcome = await convertInWorker({ kind: "pdf", bytes: page.body }, limits);
  if ("page" in outcome) return outcome.page;
  if ("error" in outcome) throw new WebFetchError(`${page.url} is a PDF whose text could not be read (${outcome.error}).`);
  if (outcome.stopped === "cancelled") throw new WebFetchError("The PDF was fetched but not read: the turn was cancelled.");
  throw new WebFetchError(`${page.url} is a PDF whose text was not read: ${outcome.detail}.`);
}

/** `text` within MAX_PAGE_CHARS, with the cut stated. */
export function capPage(text: string, max = MAX_PAGE_CHARS): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: `${text.slice(0, max)}\n[... cut: the page's text goes on for ${text.length - max} more characters ...]`, cut: true };
}
