// Without a sandbox, a command runs unasked only when bash would read it exactly as written: plain words, single-
// quoted strings, double-quoted strings with nothing bash expands, joined by `|`, `||`, `&&`, `;` or a newline, and
// the few redirections that only silence or join streams (`2>/dev/null`, `2>&1`, `>&2`). No `$` of any kind, no
// backquote, backslash, glob, brace, tilde, other redirection, background `&` or subshell.
// WHY: ten adversarial passes found, each time, a spelling the audit had to emulate bash to read and read wrong —
// `$'\x{2d}exec'`, `$"…"` through a shipped message catalog, `{'-exec',sh}`, `-e[x]ec` matching a file named
// `-exec`, `rg -n TODO *` meeting a file named `--pre=sh`, backquotes in a heredoc or a `${x%…}` pattern, arithmetic
// in `[[ ]]`. A command line with none of those spellings is one the audit reads as bash does; everything else asks
// (inside bubblewrap the full audit still judges it: the sandbox bounds what a misreading can do).
const PLAIN = /[A-Za-z0-9_./:@%+,=-]/;
const IN_DOUBLE = /[$`\\!]/;
/** Redirections that write no file, as whole words. */
const QUIET = /^(?:[12]?>\/dev\/null|&>\/dev\/null|2>&1|>&2|1>&2)(?=\s|$|[;|&])/;

const NAMES: Record<string, string> = {
  $: "`$` (an expansion)",
  "`": "a backquote",
  "\\": "a backslash",
  "*": "a glob",
  "?": "a glob",
  "[": "a glob or test",
  "{": "a brace",
  "~": "a tilde",
  "<": "a redirection",
  ">": "a redirection",
  "&": "`&`",
  "(": "a subshell",
};

/**
 * Reserved words: a loop's variable is an assignment no simple command shows (`for PATH in tools; do ls; done` ran a
 * repository's `ls`, `for CDPATH in ..` sent `cd` out: the eleventh pass), and the rest open compound commands.
 * Judged where a command starts (`echo done` is plain).
 */
const RESERVED = /^(?:for|select|while|until|if|then|elif|else|fi|case|esac|do|done|function|coproc|in|time|!|\{|\}|\[\[|\]\])$/;

/** What in `command` bash reads otherwise than as written (a short description), or undefined when nothing does. */
export function notLiteral(command: string): string | undefined {
  const word = command
    .replace(/'[^']*'|"[^"]*"/g, "''")
    .split(/[;|&\n]+/)
    .map((statement) => statement.trim().split(/\s+/)[0] ?? "")
    .find((w) => RESERVED.test(w));
  if (word) return `\`${word}\` (a compound command or loop)`;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (IN_DOUBLE.test(ch)) return `${NAMES[ch] ?? `\`${ch}\``} inside double quotes`;
      continue;
    }
    const quiet = (i === 0 || /\s/.test(command[i - 1]!)) && QUIET.exec(command.slice(i));
    if (quiet) i += quiet[0].length - 1;
    else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === " " || ch === ";" || ch === "\n" || PLAIN.test(ch)) continue;
    else if (ch === "|") i += command[i + 1] === "|" ? 1 : 0;
    else if (ch === "&" && command[i + 1] === "&") i++;
    else return NAMES[ch] ?? `\`${ch}\``;
  }
  return quote ? "an unclosed quote" : undefined;
}
