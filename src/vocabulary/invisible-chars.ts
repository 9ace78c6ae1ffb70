// Characters a terminal draws as nothing (no width, no mark): the Unicode format characters (Cf: zero-width space and
// joiners, bidi controls, the soft hyphen, tag characters), the combining grapheme joiner, variation selectors (both
// blocks), Mongolian free variation selectors, Khmer inherent vowels and the zero-width Hangul fillers. One inside a
// key or a word breaks what a pattern sees while the screen shows it whole: the twenty-eighth pass used Cf characters,
// the twenty-ninth (A29c-1/2/8) the others. The one list for "the text as shown" (secret shapes, the fact policy).
export const DRAWS_AS_NOTHING = "\\p{Cf}\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}";

/** One such character (global: for replace and matchAll). */
export const INVISIBLE = new RegExp(`[${DRAWS_AS_NOTHING}]`, "gu");
/** A run of characters that are all shown. */
export const SHOWN_RUN = new RegExp(`[^${DRAWS_AS_NOTHING}]+`, "gu");

/** `text` as a terminal shows it: without the characters that draw as nothing. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}
