// Pages the DOM libraries cannot take in bounded time are read as plain text instead (the thirteenth pass's W1: a
// 7 KB gzipped page of 450 000 nested divs hung deerflow past every cap, because the conversion runs synchronously).
import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../src/tools/web/page-content.js";
import { WAIT_MS } from "../support/wait.js";

describe("HTML that is too deep or too large to convert", () => {
  it("450 000 nested divs: tag-stripped text, at once", async () => {
    const html = `<html><body>${"<div>".repeat(450_000)}PAYLOAD-x${"</div>".repeat(450_000)}</body></html>`;
    const r = await htmlToMarkdown(html);
    expect(r.form).toMatch(/too large or too deeply nested/);
    expect(r.text).toBe("PAYLOAD-x");
  });
  it("500 000 small elements: the text, entities decoded, scripts left out", async () => {
    const html = `<p>Tom &amp; Jerry &#x41;</p><script>evil()</script>${"<em>a</em> ".repeat(500_000)}`;
    const r = await htmlToMarkdown(html);
    expect(r.form).toMatch(/too large/);
    expect(r.text.startsWith("Tom & Jerry A")).toBe(true);
    expect(r.text).not.toContain("evil");
  });
  it("markup that makes a backtracking pattern rescan to the end (unclosed <script>, `<` never closed, a run of no-break spaces): still at once", async () => {
    // The tag-stripped text runs on the main thread, so it must be linear on any page (the fourteenth pass's W3).
    const started = performance.now();
    const scripts = await htmlToMarkdown(`<p>PAYLOAD-before</p>${"<script>x".repeat(200_000)}`);
    const angles = await htmlToMarkdown(`<p>PAYLOAD-open</p>${"<a ".repeat(600_000)}`);
    const blanks = await htmlToMarkdown(`<p>PAYLOAD-blank</p>${"&nbsp;\u00a0".repeat(250_000)}<p>end</p>`);
    expect(scripts.form).toMatch(/too large/);
    expect(scripts.text).toBe("PAYLOAD-before");
    expect(angles.text.startsWith("PAYLOAD-open\n<a <a")).toBe(true);
    expect(blanks.text).toBe("PAYLOAD-blank\nend");
    // Linear, these take about a second quiet and ten on a loaded 2-core machine; a backtracking pattern on inputs this
    // size rescans for hours. So the bound only tells the two apart, with room for the busiest machine.
    expect(performance.now() - started).toBeLessThan(WAIT_MS);
  });
  it("an ordinary page is still Markdown", async () => {
    const r = await htmlToMarkdown("<html><head><title>T</title></head><body><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>");
    expect(r.form).toBe("Markdown from HTML");
    expect(r.text).toContain("**bold**");
  });
});
