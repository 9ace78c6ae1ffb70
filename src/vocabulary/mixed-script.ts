// A word written with letters of several scripts: `cuгl` (Cyrillic ghe), `.ssհ` (Armenian ho), `ꮯurl` (Cherokee).
// Each letter looks Latin on screen and no fold table lists them all (the thirtieth pass's A30c-1 found a dozen
// outside ours). Unicode's answer (UTS #39, "highly restrictive") is to judge the mix, not the letters: one script per
// word, or Latin with the scripts written beside it in Chinese, Japanese and Korean (`使用pnpm`). The scripts come
// from the regex engine's own Unicode tables (`\p{Script=…}`), not from a list kept here.

/** Scripts told apart by name; any other letter counts as a script of its own ("other"). */
const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Lisu",
  "Coptic",
  "Canadian_Aboriginal",
  "Tifinagh",
  "Hebrew",
  "Arabic",
  "Han",
  "Hiragana",
  "Katakana",
  "Bopomofo",
  "Hangul",
].map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, "u")] as const);

/** The scripts UTS #39 lets Latin share a word with (each set with Han: Japanese, Chinese with Bopomofo, Korean). */
const ALLOWED_MIXES = [
  ["Latin", "Han", "Hiragana", "Katakana"],
  ["Latin", "Han", "Bopomofo"],
  ["Latin", "Han", "Hangul"],
];

function scriptOf(letter: string): string {
  return SCRIPTS.find(([, re]) => re.test(letter))?.[0] ?? "other";
}

/**
 * Scripts whose letters draw as Latin capitals or small capitals nearly one for one: a word wholly in one of them spells
 * a Latin word to the eye (`ꮪꮪꮋ`, `ꓚꓴꓣꓡ`: the thirty-sixth pass's A36b-1; Coptic `ⲨⲞⲖⲞ`, Canadian syllabics `ᑕᑌᖇᒪ`,
 * Tifinagh `ⵙⵙⵀ`: A37b-1), and is judged as a mixed one. Scripts people write notes in (Armenian, Georgian…) are not here.
 */
const LATIN_LOOKING = new Set(["Cherokee", "Lisu", "Coptic", "Canadian_Aboriginal", "Tifinagh"]);

/** The first word of `text` whose letters mix scripts in a way no writing system does (or imitate Latin), or undefined. */
export function mixedScriptWord(text: string): string | undefined {
  for (const word of text.split(/[\s\p{P}\p{S}]+/u)) {
    // Letters of no one script (the Japanese prolonged-sound mark is Common) belong to every word they sit in.
    const scripts = new Set([...word].filter((c) => /(?![\p{Script=Common}\p{Script=Inherited}])\p{L}/u.test(c)).map(scriptOf));
    if (scripts.size === 1 && LATIN_LOOKING.has([...scripts][0]!)) return word;
    if (scripts.size < 2) continue;
    if (scripts.has("other") || !ALLOWED_MIXES.some((allowed) => [...scripts].every((s) => allowed.includes(s)))) return word;
  }
  return undefined;
}
