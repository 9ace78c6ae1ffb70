// The TUI's one width function is the one Ink lays text out with: every wrap and cut the chat makes must give lines
// Ink measures as fitting (else Ink wraps or cuts them again and the live region's height is miscounted).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { padEnd, truncate, wrapLine } from "../../src/tui/format.js";
import { textWidth } from "../../src/tui/text-width.js";

/** The string-width Ink itself resolves (what its measure-text and output use), wherever npm placed it. */
const inkStringWidth = createRequire(join(process.cwd(), "node_modules/ink/package.json")).resolve("string-width");
const inkWidth: (s: string) => number = (await import(pathToFileURL(inkStringWidth).href)).default;

const SAMPLES: [string, number][] = [
  ["✅", 2],
  ["🚀", 2],
  ["✔️", 2], // VS16: emoji presentation
  ["✔", 1],
  ["👨‍👩‍👧", 2], // ZWJ sequence
  ["🇯🇵", 2], // flag
  ["👍🏽", 2], // skin tone
  ["中文", 4],
  ["한국어", 6],
  ["e\u0301", 1], // combining mark
  ["·±→…", 4], // ambiguous width: narrow, as Ink counts it
  ["⏳⌚", 4],
  ["plain text", 10],
];

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const graphemes = (s: string) => [...segmenter.segment(s)].map((g) => g.segment);

describe("textWidth", () => {
  it.each(SAMPLES)("%s is %i columns, as Ink counts it", (s, w) => {
    expect(textWidth(s)).toBe(w);
    expect(inkWidth(s)).toBe(w);
  });
});

describe("wrapLine / truncate / padEnd with emoji and CJK", () => {
  const line = "Status ✅ done, deploy 🚀 shipped, checks ✔️ green, family 👨‍👩‍👧 flag 🇯🇵 thumbs 👍🏽 中文の説明 café";

  it("every wrapped line fits by Ink's count, no grapheme is split, nothing but break spaces is lost", () => {
    for (let w = 2; w <= 70; w++) {
      const out = wrapLine(line, w);
      for (const l of out) expect(inkWidth(l), `${w}: ${JSON.stringify(l)}`).toBeLessThanOrEqual(w);
      expect(out.flatMap(graphemes).filter((g) => g !== " ")).toEqual(graphemes(line).filter((g) => g !== " "));
    }
  });

  it("a word ending on the last column does not make the next line start with a space", () => {
    expect(wrapLine("abcd efgh", 4)).toEqual(["abcd", "efgh"]);
    expect(wrapLine("done ✅ next", 7)).toEqual(["done ✅", "next"]);
    // Spaces inside a line and a line's own indentation stay; a run of spaces (indentation, alignment) is kept.
    expect(wrapLine("  ab cd", 10)).toEqual(["  ab cd"]);
    expect(wrapLine("ab      cd", 4)).toEqual(["ab  ", "    ", "cd"]);
    expect(wrapLine("✅b      cd", 4)).toEqual(["✅b ", "    ", " cd"]);
  });

  it("wide characters move whole to the next line instead of overflowing", () => {
    expect(wrapLine("ab✅cd", 3)).toEqual(["ab", "✅c", "d"]);
    expect(wrapLine("中文中文", 3)).toEqual(["中", "文", "中", "文"]);
  });

  it("truncate and padEnd give exactly the width by Ink's count", () => {
    for (let w = 1; w <= 40; w++) {
      expect(inkWidth(truncate(line, w))).toBeLessThanOrEqual(w);
      expect(inkWidth(padEnd(line, w))).toBe(w);
    }
    expect(truncate("✅✅✅", 4)).toBe("✅…");
    expect(truncate("👨‍👩‍👧 family", 4)).toBe("👨‍👩‍👧 …");
  });

  it("any text: wrapped lines always fit Ink's measure", () => {
    const pieces = ["a", " ", "✅", "🚀", "✔️", "👨‍👩‍👧", "🇯🇵", "👍🏽", "中", "e\u0301", "·", "→", "ｱ"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 80 }), fc.integer({ min: 1, max: 50 }), (parts, w) => {
        const out = wrapLine(parts.join(""), w);
        // A lone wide grapheme still takes its own line at width 1.
        return out.every((l) => inkWidth(l) <= Math.max(w, 2));
      }),
    );
  });
});
