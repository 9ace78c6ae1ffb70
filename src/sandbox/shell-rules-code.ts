// The command audit's rules about code bash or a program runs later, out of the audit's sight: a value holding a
// command substitution that arithmetic would run, traps and completion callbacks, sed's `e`, code runners whose
// script the audit cannot read (gdb, Tcl, make from stdin, less/man commands), and variables set by a name the audit
// cannot read. The table they join is SHELL_RULES in shell-audit.ts; literal code (`trap '…'`, `env -S '…'`,
// `flock -c '…'`, `watch '…'`, `script -c '…'`, `sed '1e …'`) is extracted in shell-command.ts/shell-sed.ts and
// audited recursively, so `rm -rf ~` in there is blocked.
import { longOption } from "./option-table.js";
import { codeEnvVar } from "./code-env.js";
import { type SimpleCommand, isFlag } from "./shell-command.js";
import { sedScript } from "./shell-sed.js";

interface CodeRule {
  verdict: "ask";
  reason: string;
  test: (c: SimpleCommand) => boolean;
}

const DECLARES = /^(?:declare|typeset|local|export|readonly)$/;
/** The value after an option (`printf -v NAME`, `test -v NAME`), or undefined. */
const after = (c: SimpleCommand, flag: RegExp): number => c.args.findIndex((a) => flag.test(a)) + 1 || -1;

/** Words bash may evaluate as arithmetic or a subscript: variable names given to declare/read/unset/let/test -v. */
function nameWords(c: SimpleCommand): number[] {
  const all = c.args.map((_a, i) => i);
  if (DECLARES.test(c.name) || /^(?:read|unset|let|mapfile|readarray)$/.test(c.name)) return all;
  if (c.name === "printf") return [after(c, /^-v$/)].filter((i) => i > 0);
  if (c.name === "test" || c.name === "[") return [after(c, /^-[vR]$/)].filter((i) => i > 0);
  return [];
}
const holdsCode = (c: SimpleCommand) => c.assigns.some((a) => a.heldCode === true) || nameWords(c).some((i) => c.heldCode?.[i] === true);

/** `export $x=…`, `declare -x "$n"`, `printf -v "$v"`, `read "$v"`: a variable the audit cannot name is set. */
function setsUnnamed(c: SimpleCommand): boolean {
  if (DECLARES.test(c.name)) return c.args.some((a, i) => c.dynamicArgs[i] === true && !isFlag(a));
  if (c.name === "printf") return ((i) => i > 0 && c.dynamicArgs[i] === true)(after(c, /^-v$/));
  if (c.name === "read") return c.args.some((a, i) => c.dynamicArgs[i] === true && !isFlag(a));
  return false;
}
/** The names `read`, `printf -v`, `mapfile` and a nameref (`declare -n r=PAGER`) set. */
function namesSet(c: SimpleCommand): string[] {
  if (c.name === "printf") return ((i) => (i > 0 ? [c.args[i]!] : []))(after(c, /^-v$/));
  if (/^(?:read|mapfile|readarray)$/.test(c.name)) return c.args.filter((a, i) => !isFlag(a) && !/^-[a-zA-Z]*[dnNptu]$/.test(c.args[i - 1] ?? ""));
  if (DECLARES.test(c.name) && c.args.some((a) => /^-[a-zA-Z]*n/.test(a))) return c.assigns.map((a) => a.value);
  return [];
}

/** gdb commands that reach a shell or a script language. */
const GDB_SHELL = /^\s*(?:shell|!|pipe|\||python|py|pi|python-interactive|guile|gu|source|call|print|p)\b|^\s*!/;
function gdbRunsCode(c: SimpleCommand): boolean {
  if (c.name !== "gdb" && c.name !== "gdb-multiarch") return false;
  return (
    c.stdinText !== undefined ||
    c.args.some(
      (a, i) =>
        /^-{1,2}(?:x|ix|command|init-command)$/.test(a) ||
        /^--(?:command|init-command)=/.test(a) ||
        (/^-{1,2}(?:ex|iex|eval-command|init-eval-command)$/.test(a) && GDB_SHELL.test(c.args[i + 1] ?? "")) ||
        (/^--(?:eval-command|init-eval-command)=/.test(a) && GDB_SHELL.test(a.slice(a.indexOf("=") + 1))),
    )
  );
}
/** make reading its makefile from stdin (`-f -`, `-f /dev/stdin`, a heredoc or here-string with -f). */
function makeFromStdin(c: SimpleCommand): boolean {
  if (!/^(?:make|gmake|bmake)$/.test(c.name)) return false;
  const files = c.args.flatMap((a, i) =>
    a === "-f" || ((longOption(a, "file", 1) || longOption(a, "makefile", 3)) && !a.includes("="))
      ? [c.args[i + 1] ?? ""]
      : longOption(a, "file", 1) || longOption(a, "makefile", 3)
        ? [a.slice(a.indexOf("=") + 1)]
        : /^-f./.test(a)
          ? [a.slice(2)]
          : [],
  );
  return files.some((f) => f === "-" || /^\/(?:dev\/stdin|proc\/self\/fd\/0|dev\/fd\/0)$/.test(f) || /^[<>]\(/.test(f) || c.dynamicArgs[c.args.indexOf(f)] === true);
}

export const CODE_RULES: readonly CodeRule[] = [
  { verdict: "ask", reason: "a value holding a command substitution that arithmetic or an array subscript would run", test: holdsCode },
  { verdict: "ask", reason: 'sets a variable whose name is computed at run time (export $x=…, printf -v "$v", read "$v")', test: setsUnnamed },
  {
    verdict: "ask",
    reason: "sets an environment variable that makes programs run code (read, printf -v or a nameref into PAGER, PS4 …)",
    test: (c) => namesSet(c).some((n) => codeEnvVar(n.replace(/\[.*$/s, "")) !== undefined),
  },
  { verdict: "ask", reason: "a trap, watch or script runs code built at run time", test: (c) => /^(?:trap|watch|script)$/.test(c.name) && c.code.length === 0 && c.dynamicArgs.some(Boolean) },
  {
    verdict: "ask",
    reason: "a shell callback runs code later (mapfile -C, complete -C/-F, fc re-running history)",
    test: (c) =>
      (/^(?:mapfile|readarray)$/.test(c.name) && c.args.some((a) => /^-[a-zA-Z]*C/.test(a))) ||
      (/^(?:complete|compgen)$/.test(c.name) && c.args.some((a) => /^-[a-zA-Z]*[CF]/.test(a))) ||
      (c.name === "fc" && !c.args.some((a) => /^-[a-zA-Z]*l/.test(a))),
  },
  { verdict: "ask", reason: "sed runs commands the audit cannot read (e on file data, s///e, a -f script)", test: (c) => sedScript(c).unknownRun },
  { verdict: "ask", reason: "gdb runs shell or script commands", test: gdbRunsCode },
  { verdict: "ask", reason: "a Tcl/expect script can run any command (exec, spawn)", test: (c) => /^(?:tclsh[\d.]*|wish[\d.]*|expect|expectk)$/.test(c.name) },
  { verdict: "ask", reason: "make runs a makefile given on stdin (its recipes are shell commands)", test: makeFromStdin },
  {
    verdict: "ask",
    reason: "python -m timeit runs the Python statements it is given (the audit does not read them)",
    test: (c) => /^python[\d.]*$/.test(c.name) && c.args[0] === "-m" && c.args[1] === "timeit" && c.args.length > 2,
  },
  {
    verdict: "ask",
    reason: "make runs makefile code given on its command line (--eval: $(shell …), recipes)",
    test: (c) => /^(?:make|gmake)$/.test(c.name) && c.args.some((a) => /^-E/.test(a) || longOption(a, "eval", 2)),
  },
  {
    verdict: "ask",
    reason: "less runs a command given on its command line (+!cmd, a lesskey file)",
    test: (c) => /^(?:less|more|most)$/.test(c.name) && c.args.some((a) => (/^\+/.test(a) && /[!|]/.test(a)) || /^(?:-k|--lesskey-file|--lesskey-src)/.test(a)),
  },
  {
    verdict: "ask",
    reason: "man runs the pager or browser it is given (-P, --pager, -H)",
    test: (c) => c.name === "man" && c.args.some((a) => /^(?:-P|--pager|-H|--html)/.test(a) || /^-[a-zA-Z]*[PH]/.test(a)),
  },
];

/** The files sed's script writes (`w file`, `s///w file`): an edit, judged like any write target. */
export const sedWrites = (c: SimpleCommand) => sedScript(c).writes;
/** The commands sed's script runs (`1e cmd`, `s/.*\/cmd/e`): audited like the command line. */
export const sedRuns = (c: SimpleCommand) => sedScript(c).runs;
