// Characters a terminal draws as nothing (no width, no mark): the Unicode format characters (Cf: zero-width space and
// joiners, bidi controls, the soft hyphen, tag characters) and every Default_Ignorable_Code_Point (the combining
// grapheme joiner, variation selectors, Mongolian free variation selectors, Khmer inherent vowels, Hangul fillers,
// U+2065 and the unassigned code points Unicode reserves as ignorable). One inside a key or a word breaks what a
// pattern sees while the screen shows it whole: the twenty-eighth pass used Cf characters, the twenty-ninth
// (A29c-1/2/8) and thirtieth (A30c-1) others. Unicode's own property, not a list kept here. The one home for "the text
// as shown" (secret shapes, the fact policy).
export const DRAWS_AS_NOTHING = "\\p{Cf}\\p{Default_Ignorable_Code_Point}";

/** One such character (global: for replace and matchAll). */
export const INVISIBLE = new RegExp(`[${DRAWS_AS_NOTHING}]`, "gu");

// Escape sequences (CSI, OSC, DCS/SOS/PM/APC, two-byte ESC, 8-bit CSI/OSC) and control characters: a terminal draws
// none of them either, and the terminal filter removes them before the text is shown (terminal-text.ts).
// eslint-disable-next-line no-control-regex
export const ESCAPE_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[P^_X][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u009c]*(?:\u0007|\u009c)?/g;
/**
 * What the screen does not show of a text: an escape sequence, a control character but tab and newline, or a
 * character that draws as nothing. A key split by one (`ghp_…\u001b[0m…`, a NUL, a combining grapheme joiner) shows
 * whole once the terminal filter takes it out (the thirtieth pass's A30c-3/7).
 */
export const HIDDEN = new RegExp(`${ESCAPE_SEQUENCE.source}|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${DRAWS_AS_NOTHING}]`, "gu");

/** `text` as a terminal shows it: without the characters that draw as nothing. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}
