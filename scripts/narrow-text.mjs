// Text whose width in a terminal is its length: printable ASCII and the Latin-1, punctuation, arrow, box-drawing,
// block, shape, check-mark and braille characters deerflow's screens are made of, none of them an emoji, a combining
// or joining mark, or East Asian wide. `string-width` finds that out per grapheme with Intl.Segmenter and an
// \p{RGI_Emoji} regex, whose first use costs ~30 ms of the first frame (the regex compiles on first use); a string
// made only of these characters is answered at once (scripts/bundle-tui.mjs). test/tui/narrow-text.test.ts checks
// every code point of the set against string-width itself.
export const NARROW_TEXT_SOURCE =
  "^[\\u0020-\\u007E\\u00A0-\\u00A8\\u00AA-\\u00AC\\u00AF-\\u00FF\\u2010-\\u2027\\u2190-\\u2193\\u2212\\u2500-\\u259F\\u25CB\\u25CF\\u25D0\\u2713\\u2717\\u276F\\u2800-\\u28FF]*$";

/**
 * The same characters plus ESC and BEL (the bytes around colour codes and links): in such a string every UTF-16
 * code unit is a grapheme of its own (no combining or joining marks, no surrogate pairs, no CR LF), so Ink's
 * per-line tokenizer (@alcalzone/ansi-tokenize) can walk it without Intl.Segmenter, whose first use loads ICU's data.
 */
export const ONE_UNIT_GRAPHEMES_SOURCE = NARROW_TEXT_SOURCE.replace("^[", "^[\\u0007\\u001B");
