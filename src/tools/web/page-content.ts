// A fetched body as text the model can read, by its content type:
// - HTML: the main content (Readability, Firefox's reader view, run on linkedom's DOM) as Markdown (turndown).
//   linkedom over jsdom: a DOM without layout or scripts, enough for Readability at a fraction of the load time and
//   memory; a page whose main content Readability cannot find is converted whole (scripts and styles dropped);
// - text/* and XML as they are; JSON pretty-printed (as sent when it does not parse, e.g. cut at the size cap);
// - PDF: its text (unpdf, pdf.js without a canvas);
// - anything else (images, archives, binaries) is refused with its type.
import { createRequire } from "node:module";
import type { Readability as ReadabilityClass } from "@mozilla/readability";
import type { parseHTML as ParseHTML } from "linkedom";
import type TurndownService from "turndown";
import type { FetchedPage } from "./fetch-page.js";
import { WebFetchError } from "./fetch-page.js";

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
export async function pageText(page: FetchedPage): Promise<PageText> {
  const type = page.contentType || sniff(page.body);
  if (HTML_TYPES.has(type)) return await htmlToMarkdown(decode(page));
  if (isJson(type)) return { form: "JSON", text: prettyJson(decode(page)) };
  if (type === "application/pdf") return pdfText(page);
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
 * The conversion libraries, loaded on the first page (at start-up linkedom and turndown cost about 1.5 s). Through
 * require, not import(): a dynamic import() is not available inside the code-cached runtime bundle's vm.Script (as
 * sandbox/shell-grammar.ts found), and the bundle keeps these packages external.
 */
function libraries() {
  const require = createRequire(import.meta.url);
  return {
    parseHTML: (require("linkedom") as { parseHTML: typeof ParseHTML }).parseHTML,
    Readability: (require("@mozilla/readability") as { Readability: typeof ReadabilityClass }).Readability,
    TurndownService: require("turndown") as typeof TurndownService,
  };
}

/**
 * What the DOM libraries are given at most: they parse and walk recursively on the main thread, where no timer,
 * abort or Ctrl-C can stop them (a 7 KB gzipped page of 450 000 nested divs hung deerflow for minutes: the
 * thirteenth pass's W1). Past any bound the page is read as tag-stripped text instead, in one linear pass.
 */
const HTML_LIMITS = { chars: 1_500_000, elements: 30_000, depth: 200 };
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

/** Whether `html` is within HTML_LIMITS (elements counted and nesting followed by one scan of its tags). */
function convertible(html: string): boolean {
  if (html.length > HTML_LIMITS.chars) return false;
  let depth = 0;
  let elements = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^>]*?(\/?)>/g)) {
    const name = m[2]!.toLowerCase();
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (!m[3] && !VOID.has(name)) depth++;
    if (++elements > HTML_LIMITS.elements || depth > HTML_LIMITS.depth) return false;
  }
  return true;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** The page's text without its tags, scripts and styles: linear, for pages past HTML_LIMITS. */
function strippedText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<br\s*\/?>|<\/(?:p|div|li|h[1-6]|tr|section|article)\s*>/gi, "\n")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (e, n: string) =>
      n[0] === "#" ? String.fromCodePoint(Number.parseInt(n.slice(n[1] === "x" || n[1] === "X" ? 2 : 1), n[1] === "x" || n[1] === "X" ? 16 : 10) || 32) : (ENTITIES[n.toLowerCase()] ?? e),
    )
    .replace(/[ \t\r\f\v]+/g, " ")
    .replace(/\s*\n\s*/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export async function htmlToMarkdown(html: string): Promise<PageText> {
  if (!convertible(html)) return { form: "text from HTML (too large or too deeply nested to convert)", text: strippedText(html) };
  const { parseHTML, Readability, TurndownService } = libraries();
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll("script, style, noscript, template")) el.remove();
  const title = document.title?.trim() || undefined;
  // Readability changes the document it reads: the whole body is kept first, for a page it finds no article in.
  const whole = document.body?.innerHTML ?? html;
  let content: string;
  try {
    content = new Readability(document as unknown as Document).parse()?.content || "";
  } catch {
    content = "";
  }
  if (!content.trim()) content = whole;
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "iframe", "form"] as never);
  const markdown = turndown
    .turndown(content)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { form: "Markdown from HTML", title, text: markdown };
}

/** Past this many pages only the first ones are read, within a time budget. */
const PDF_LIMITS = { pages: 200, ms: 10_000 };

async function pdfText(page: FetchedPage): Promise<PageText> {
  if (page.truncated) throw new WebFetchError(`${page.url} is a PDF larger than the size cap; a cut PDF cannot be read.`);
  try {
    const { extractText, getDocumentProxy } = createRequire(import.meta.url)("unpdf") as typeof import("unpdf");
    const pdf = await getDocumentProxy(new Uint8Array(page.body));
    if (pdf.numPages <= PDF_LIMITS.pages) {
      const { text } = await extractText(pdf, { mergePages: true });
      return { form: "PDF text", text: String(text).trim() };
    }
    // A PDF of thousands of pages ran for minutes at 1.7 GB (the thirteenth pass): its first pages, page by page (so
    // the run can be stopped between them), within a time budget.
    const parts: string[] = [];
    const started = Date.now();
    for (let i = 1; i <= PDF_LIMITS.pages && Date.now() - started < PDF_LIMITS.ms; i++) {
      const content = await (await pdf.getPage(i)).getTextContent();
      parts.push(content.items.map((it) => ("str" in it ? it.str : "")).join(" "));
    }
    return { form: `PDF text (the first ${parts.length} of ${pdf.numPages} pages)`, text: parts.join("\n").trim() };
  } catch (err) {
    throw new WebFetchError(`${page.url} is a PDF whose text could not be read (${(err as Error).message}).`);
  }
}

/** `text` within MAX_PAGE_CHARS, with the cut stated. */
export function capPage(text: string, max = MAX_PAGE_CHARS): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: `${text.slice(0, max)}\n[... cut: the page's text goes on for ${text.length - max} more characters ...]`, cut: true };
}
