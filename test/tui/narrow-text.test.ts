// The TUI bundle's string-width fast path (scripts/narrow-text.mjs, applied by scripts/bundle-tui.mjs) answers a
// string made only of its characters (once its colours are stripped) with the string's length. That is only right if string-width itself says
// so: every code point of the set, in every copy of string-width the bundle contains, and strings mixing them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
// @ts-expect-error a build script in plain JavaScript
import { NARROW_TEXT_SOURCE, ONE_UNIT_GRAPHEMES_SOURCE } from "../../scripts/narrow-text.mjs";

const narrow = new RegExp(NARROW_TEXT_SOURCE as string);

/** The string-width copies the TUI bundle contains (Ink's, wrap-ansi's, cli-truncate's, widest-line's, ours), wherever npm put each. */
const resolveFrom = (pkg: string) => dirname(createRequire(join(process.cwd(), "node_modules", pkg, "package.json")).resolve("string-width"));
const COPIES = [
  ...new Set([...["ink", "ink/node_modules/wrap-ansi", "cli-truncate", "widest-line"].map(resolveFrom), dirname(createRequire(join(process.cwd(), "package.json")).resolve("string-width"))]),
];

async function stringWidths(): Promise<Map<string, (s: string, o?: object) => number>> {
  const found = new Map<string, (s: string, o?: object) => number>();
  for (const dir of COPIES) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
    found.set(`${dir}: string-width ${pkg.version}`, (await import(pathToFileURL(join(dir, "index.js")).href)).default);
  }
  return found;
}

const setChars: string[] = [];
for (let c = 0; c <= 0xffff; c++) if (narrow.test(String.fromCharCode(c))) setChars.push(String.fromCharCode(c));

describe("narrow text fast path", () => {
  it("every character of the set is one column wide for every string-width copy in the bundle", async () => {
    const widths = await stringWidths();
    expect(widths.size).toBe(COPIES.length);
    expect(widths.size).toBeGreaterThanOrEqual(2);
    expect(setChars.length).toBeGreaterThan(500);
    for (const [name, width] of widths) {
      const wrong = setChars.filter((ch) => width(ch) !== 1).map((ch) => `U+${ch.charCodeAt(0).toString(16)}`);
      expect(wrong, name).toEqual([]);
    }
  });

  it("a string of them is as wide as it is long; anything else is left to string-width", async () => {
    const widths = [...(await stringWidths()).values()];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...setChars), { maxLength: 80 }), (chars) => {
        const s = chars.join("");
        expect(narrow.test(s)).toBe(true);
        for (const width of widths) expect(width(s)).toBe(s.length);
      }),
      { numRuns: 300 },
    );
    // Coloured as Ink colours text: string-width strips the escapes, so the width is the plain text's length.
    const stripAnsi = (await import("strip-ansi")).default as (s: string) => string;
    const colour = fc.constantFrom("\u001b[31m", "\u001b[39m", "\u001b[1m", "\u001b[22m", "\u001b[38;2;10;20;30m", "\u001b]8;;https://x.test\u0007", "\u001b]8;;\u0007");
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...setChars), colour), { maxLength: 60 }), (parts) => {
        const s = parts.join("");
        const plain = stripAnsi(s);
        expect(narrow.test(plain)).toBe(true);
        for (const width of widths) expect(width(s)).toBe(plain.length);
      }),
      { numRuns: 300 },
    );
    for (const other of ["\u001b[31mred\u001b[39m", "tab\there", "e\u0301", "👍", "中文", "a\u200db", "\u00ad", "©", "❤️", "↔", "\r\n"]) {
      expect(narrow.test(other), JSON.stringify(other)).toBe(false);
    }
  });

  it("Ink's tokenizer may walk such text by code unit: Intl.Segmenter finds one grapheme per code unit, colours and links included", () => {
    const oneUnit = new RegExp(ONE_UNIT_GRAPHEMES_SOURCE as string);
    const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
    const escape = fc.constantFrom("\u001b[31m", "\u001b[39m", "\u001b[1;4m", "\u001b[38;5;200m", "\u001b]8;;https://x.test\u0007", "\u001b]8;;\u0007", "\u001b]8;;https://y.test\u001b\\");
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...setChars), escape), { maxLength: 60 }), (parts) => {
        const s = parts.join("");
        expect(oneUnit.test(s)).toBe(true);
        expect(Array.from(segmenter.segment(s), ({ segment, index }) => [segment, index])).toEqual(Array.from(s, (c, i) => [c, i]));
      }),
      { numRuns: 500 },
    );
    for (const other of ["e\u0301", "👍", "a\r\nb", "\u200d", "🇫🇷"]) expect(oneUnit.test(other), JSON.stringify(other)).toBe(false);
  });
});
