// Text on its way to a terminal, in every mode (TUI, headless run, threads, config, doctor, error lines): escape
// sequences and control characters removed (a model's answer or a thread title could clear the screen, retitle
// the window or write the clipboard with OSC 52), and credentials inside URLs masked (a password in
// OPENAI_BASE_URL must not reach the screen or a log). The one home for both; the TUI's sanitiser uses it too.
import { DRAWS_AS_NOTHING, ESCAPE_SEQUENCE } from "./invisible-chars.js";
import { maskUrlCredentials } from "./secret-shapes.js";

// CSI/OSC/other escape sequences: one list with the secret masker's view of what is shown (invisible-chars.ts).
const ANSI_RE = ESCAPE_SEQUENCE;
// C0 controls except tab and newline, DEL, and the C1 range (0x80-0x9f: 8-bit CSI/OSC on some terminals).
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// The rule for what draws as nothing: what the user reads is what is there.
// - U+2028/U+2029 (line/paragraph separator) ARE line breaks, which many terminals draw as nothing: shown as "\n", so
//   a line that looks like one line is one.
// - Characters that hide text instead of nothing (tag characters U+E0000-E007F encode invisible ASCII, "ASCII
//   smuggling"; interlinear annotations U+FFF9-FFFB; Hangul fillers that draw as blanks; a run of variation selectors,
//   which encode a byte each, "emoji smuggling": the forty-fourth pass's A44a-1) become "\uFFFD", so the user sees
//   that something is there.
// - Every other format or default-ignorable character (bidi controls: a U+202E in a file name reverses what follows,
//   "evil\u202Etxt.sh" reads "evilhs.txt", Trojan Source, CVE-2021-42574; zero-width space, word joiner, soft hyphen,
//   combining grapheme joiner…) is dropped: "yo\u200Blo" reads "yolo" and now is "yolo". One Unicode class, the one
//   JSON output escapes (invisible-chars.ts), not a hand list: passes 43 and 44 found the characters a list missed.
// Kept: ZWJ/ZWNJ (U+200C/U+200D) and a single variation selector, which shape visible text (emoji sequences, Indic
// and Persian scripts, an ideographic variant).
const LINE_SEPARATOR_RE = /[\u2028\u2029]/g;
const SELECTORS = "\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}";
const HIDING_RE = new RegExp(`[\\u{e0000}-\\u{e007f}\\ufff9-\\ufffb\\u115f\\u1160\\u3164\\uffa0]+|[${SELECTORS}]{2,}`, "gu");
const DRAWN_AS_NOTHING_RE = new RegExp(`(?![\\u200c\\u200d${SELECTORS}])[${DRAWS_AS_NOTHING}]`, "gu");

/**
 * Removes escape sequences, control, format and other characters that draw as nothing; keeps newlines and tabs;
 * \r\n, lone \r and U+2028/U+2029 become \n; a run of text-hiding characters becomes one U+FFFD.
 */
export function stripControl(text: string): string {
  return text.replace(ANSI_RE, "").replace(/\r\n?/g, "\n").replace(LINE_SEPARATOR_RE, "\n").replace(CONTROL_RE, "").replace(HIDING_RE, "\ufffd").replace(DRAWN_AS_NOTHING_RE, "");
}

export { maskUrlCredentials };

/** What every printed string goes through. */
export function forTerminal(text: string): string {
  return maskUrlCredentials(stripControl(text));
}

/** One line for a summary: printed as forTerminal prints it, every whitespace run (newlines included) one space. */
export function oneLine(text: string): string {
  return forTerminal(text).replace(/\s+/g, " ").trim();
}

/**
 * Characters that draw as nothing, as a plain space or not at all where they change what text means: bidi marks and
 * overrides, zero-width characters, no-break and other odd spaces, the soft hyphen, line separators, Hangul fillers,
 * tag characters; and (the twenty-fourth pass, A24-7) the braille blank, variation selectors, Khmer inherent vowels. In a command a user is asked to trust, `true \u200b# $(…)` reads as a comment and runs the `$(…)`
 * (the twenty-third pass's A23-4): such text is quoted, each of these escaped.
 */
const UNSEEN =
  "\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f\\u2800\\ufe00-\\ufe0f\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}";
/** What makes a string print as another one: controls, quotes, backslashes, and the unseen characters above. */
const UNPLAIN_RE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f"\\\\${UNSEEN}]`, "u");
const ESCAPED_RE = new RegExp(`[<\\u007f-\\u009f${UNSEEN}]`, "gu");

/**
 * `text` quoted so it reads as one string and nothing else: JSON-escaped, with C1 controls, bidi marks and `<` escaped
 * too (a file name holding "\n</system-reminder>…" forged reminder text in the next run's prompt: the eleventh pass).
 */
export function quotedText(text: string): string {
  return JSON.stringify(text).replace(ESCAPED_RE, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** `text` as it is when plain, else quotedText: a name is shown as the name it is, never stripped into another
 *  (a presented `r\e]0;…\u202eport.md` showed as `report.md`: the eleventh pass's L2). */
export function shownText(text: string): string {
  return UNPLAIN_RE.test(text) ? quotedText(text) : text;
}

// In JSON the same characters are kept, escaped: JSON.stringify escapes C0 controls only, so an 8-bit CSI/OSC
// (U+009B/U+009D), a bidi override, a zero-width or tag character in a model's answer or a title reached the terminal
// raw through `--output-format json` and `threads --json` (the forty-first pass's A41a-3). A parser reads the same data.
const JSON_UNSHOWN = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${DRAWS_AS_NOTHING}]`, "gu");
/** One code point as `\\uXXXX` (a surrogate pair for a tag character). */
const escaped = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

const SHOWN_ESCAPED_RE = new RegExp(`[${UNSEEN}${DRAWS_AS_NOTHING}]`, "gu");
/**
 * `text` with every character that draws as nothing or as a plain space written as its `\\u` escape, nothing dropped:
 * a command shown for approval, or as a tool call, reads as the command that runs (`true \u200b# $(…)` was shown as
 * `true # $(…)`, a comment, where the `$(…)` runs: the forty-fourth pass's A44a-5).
 */
export function unseenEscaped(text: string): string {
  return text.replace(SHOWN_ESCAPED_RE, escaped);
}

/** `value` as JSON text for stdout (a terminal, often): what a terminal would act on or not draw is escaped. */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSHOWN, escaped);
}
