// Where a shell or interpreter command line holds code of its own: the `-c`/`-e` argument, a heredoc on stdin, the
// modules it loads, or a program read from stdin. The audit's rules judge that code (shell-audit.ts).
import { INTERPRETERS, SHELLS, type SimpleCommand, isFlag } from "./shell-command.js";

/** The index of the argument holding a shell's or interpreter's inline code (`-c`, `-e`, `-r`), or -1. */
export function codeArg(c: SimpleCommand): number {
  // `deno eval CODE`, `bun eval`, `crystal eval`: a sub-command, then the code as its first operand.
  if (/^(?:deno|bun|crystal)$/.test(c.name) && c.args.includes("eval")) {
    const k = c.args.findIndex((a, j) => j > c.args.indexOf("eval") && !isFlag(a));
    return k;
  }
  // node -p/--print and perl -E run code too.
  const flag = INTERPRETERS.test(c.name) ? (c.name === "php" ? /^-[\w#]*r$/ : /^-[\w#]*[ceEp]$/) : /^-[\w#]*c[\w#]*$/;
  const i = c.args.findIndex((a) => flag.test(a) || a === "--command" || a === "--eval" || a === "--print");
  return i >= 0 && i + 1 < c.args.length ? i + 1 : -1;
}
/** Inline interpreter code: the `-c`/`-e` argument or a heredoc/here-string on stdin, and the modules it loads
 *  from the command line (perl `-MIPC::Open3`, ruby `-ropen3`), which the code then calls by a short name. */
export function inlineCode(c: SimpleCommand): string {
  if (!INTERPRETERS.test(c.name)) return "";
  const i = codeArg(c);
  // A module run as a script counts too (`python3 -m netrc` prints the file: the thirtieth pass's A30a-10).
  const modules = c.args.flatMap((a, k) => (/^-[mMr]./.test(a) ? [a] : /^-[A-Za-z]*[mMr]$/.test(a) ? [c.args[k + 1] ?? ""] : []));
  return [i >= 0 ? c.args[i]! : "", c.stdinText ?? "", ...modules, ...c.args.flatMap(gluedCode)].join("\n");
}

/**
 * Code glued to its option: `node --eval='…'`, `python3 -c'…'`, `python3 -Sc'…'`, `perl -wle'…'` (the twenty-ninth
 * pass's A29a-9 deleted a home folder through each, read as no code at all). A short option run is split at its first
 * code letter; a run that only looks like one (`-mpip`) adds a scrap no rule matches.
 */
function gluedCode(arg: string): string[] {
  const long = /^--(?:eval|print|command)=([\s\S]+)$/.exec(arg);
  const short = /^-[a-zA-Z]*?[ceEpr]([\s\S]+)$/.exec(arg);
  return long ? [long[1]!] : short ? [short[1]!] : [];
}
/** A shell or interpreter that reads its program from stdin (`… | bash`, `… | python3 -`). */
export function readsCodeFromStdin(c: SimpleCommand): boolean {
  // `… | deno run -`, `bun run -`: deno and bun take their script from stdin only when named `-`.
  if (/^(?:deno|bun)$/.test(c.name)) return c.args.includes("run") && c.args.includes("-");
  // newgrp's shell reads its commands from stdin; ed/ex run `!cmd` lines from it (the twenty-fourth pass's A24-1).
  if (/^(?:newgrp|ed|red|ex)$/.test(c.name)) return true;
  if (!SHELLS.test(c.name) || codeArg(c) >= 0) return false;
  const first = c.args.find((a) => !isFlag(a));
  return first === undefined || first === "-" || c.args.includes("-s");
}

/** Interpreters whose inline code the audit has no words for (elixir's `File.rm_rf!`, erl's `os:cmd`, raku's `run`):
 *  their `-e`/`--eval`/`-eval`/`-c` code or a program on stdin is a command line it does not read (the sixteenth pass). */
const UNREAD_EVALUATORS =
  /^(?:elixir|iex|mix|erl|escript|raku|perl6|rakudo|racket|guile|sbcl|clisp|ecl|clojure|clj|bb|groovy|scala|scala-cli|kotlin|kotlinc|crystal|osascript|ghc|ghci|runghc|runhaskell|tclsh|wish|jshell|octave|matlab|gnuplot|maxima|gp|sage)$/;
export const runsUnreadCode = (c: SimpleCommand): boolean =>
  UNREAD_EVALUATORS.test(c.name) && (c.stdinText !== undefined || c.args.some((a) => /^(?:-[\w#]*e|--eval(?:=.*)?|-eval|-c|--command(?:=.*)?|-x|eval|-)$/.test(a)));
