// The one width function of the TUI: terminal columns as Ink counts them. Ink lays a line out by its measured width
// (measure-text → widest-line → string-width 8) and cuts it with cli-truncate (string-width 8); a line the chat
// pre-wraps or cuts with any other count is re-wrapped or cut again by Ink, and the live region's height no longer
// matches what the App budgeted. So every wrap, cut and layout budget here asks string-width, pinned in package.json
// to the version Ink 6.8 resolves (8.3.0; test/tui/text-width.test.ts checks it against Ink's own copy). Emoji (ZWJ
// sequences, VS16, flags, skin tones), CJK, combining marks: string-width's rules, by grapheme.
import stringWidth from "string-width";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Column width of one line of text (no newlines; escape codes do not count). */
export function textWidth(text: string): number {
  return stringWidth(text);
}

/** The line's grapheme clusters with their widths: what a terminal draws as one character. */
export function* graphemeWidths(text: string): Generator<[string, number]> {
  // A printable ASCII character is one column: asked of string-width, it would be segmented again.
  for (const { segment } of segmenter.segment(text)) yield [segment, segment.length === 1 && segment >= " " && segment <= "~" ? 1 : stringWidth(segment)];
}
