// The page conversion that runs in a worker thread (page-converter.ts starts it): HTML → Markdown (linkedom's DOM,
// Readability, turndown) and PDF → text (unpdf, pdf.js). These libraries parse and walk recursively and
// synchronously; on the main thread a hostile page (3 000 `<div/>`, which a parser nests; a PDF whose 200 pages share
// one huge content stream) blocked every timer, abort and Ctrl-C for minutes. In a worker the main thread can stop it.
// Protocol, one job at a time:
//   → {id, kind: "html", html} | {id, kind: "pdf", bytes}
//   ← {id, started: true}     the job's libraries are loaded: its time limit starts now
//   ← {id, page}              {form, title?, text}
//   ← {id, error}             the libraries threw (a PDF pdf.js cannot read)
// Plain JavaScript in a string, as sandbox/supervisor-source.ts does, so the same text runs from src (vitest) and from
// the runtime bundle, with no file to find at run time. The libraries are required by the absolute paths the main
// thread resolved (workerData): a bare require() here would resolve from the user's working directory, that is, from a
// cloned repository's node_modules.
export const CONVERT_WORKER_SOURCE = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const paths = workerData.paths;
// pdf.js warns through the console, which a worker forwards to deerflow's stdout: it would tear the TUI's screen and
// break stream-json. (Piping the worker's stdout instead would keep the process alive after the run.)
for (const name of ["log", "info", "warn", "error", "debug", "trace"]) console[name] = () => {};
let html;
let pdf;
function htmlLibraries() {
  html ??= {
    parseHTML: require(paths.linkedom).parseHTML,
    Readability: require(paths.readability).Readability,
    TurndownService: require(paths.turndown),
  };
  return html;
}
function toMarkdown(source) {
  const { parseHTML, Readability, TurndownService } = htmlLibraries();
  const { document } = parseHTML(source);
  for (const el of document.querySelectorAll("script, style, noscript, template")) el.remove();
  const title = (document.title || "").trim() || undefined;
  // Readability changes the document it reads: the whole body is kept first, for a page it finds no article in.
  const whole = document.body ? document.body.innerHTML : source;
  let content;
  try {
    const article = new Readability(document).parse();
    content = (article && article.content) || "";
  } catch {
    content = "";
  }
  if (!content.trim()) content = whole;
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "iframe", "form"]);
  const markdown = turndown.turndown(content).replace(/\n{3,}/g, "\n\n").trim();
  return { form: "Markdown from HTML", title, text: markdown };
}
async function pdfText(bytes, limits) {
  pdf ??= require(paths.unpdf);
  const doc = await pdf.getDocumentProxy(bytes);
  if (doc.numPages <= limits.pages) {
    const { text } = await pdf.extractText(doc, { mergePages: true });
    return { form: "PDF text", text: String(text).trim() };
  }
  // Past limits.pages only the first pages are read, page by page, within a time budget (a PDF of thousands of pages
  // ran for minutes at 1.7 GB: the thirteenth pass).
  const parts = [];
  const started = Date.now();
  for (let i = 1; i <= limits.pages && Date.now() - started < limits.ms; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    parts.push(content.items.map((it) => ("str" in it ? it.str : "")).join(" "));
  }
  return { form: "PDF text (the first " + parts.length + " of " + doc.numPages + " pages)", text: parts.join("\n").trim() };
}
parentPort.on("message", async (job) => {
  try {
    if (job.kind === "html") {
      htmlLibraries();
      parentPort.postMessage({ id: job.id, started: true });
      parentPort.postMessage({ id: job.id, page: toMarkdown(job.html) });
    } else {
      pdf ??= require(paths.unpdf);
      parentPort.postMessage({ id: job.id, started: true });
      parentPort.postMessage({ id: job.id, page: await pdfText(job.bytes, workerData.pdfLimits) });
    }
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String((err && err.message) || err).split("\n")[0].slice(0, 300) });
  }
});
`;
