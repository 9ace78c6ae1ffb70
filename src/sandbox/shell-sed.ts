// GNU sed's script as the command audit needs it: the shell commands it runs (the `e` command, the `e` flag of
// `s///`) and the files it writes (the `w`/`W` commands, the `w` flag). A read-only `sed -n 1p` is the common case;
// `sed -n '1e rm -rf ~' f` runs `rm -rf ~`, so the audit judges that text like the command line itself.
import { type SimpleCommand, isFlag } from "./shell-command.js";
import { longOption } from "./option-table.js";

export interface SedScript {
  /** Literal command lines the script runs (audited recursively). */
  runs: string[];
  /** It runs something the audit cannot read: `e` on the pattern space, `s///e` on file data, a `-f` script file. */
  unknownRun: boolean;
  /** Files the script writes (`w file`, `s///w file`). */
  writes: string[];
}

/**
 * sed's scripts: every `-e`/`--expression` value, else the first operand; `-f`/`--file` is a script the audit cannot
 * read. GNU sed takes a long option by any unique prefix (`--e=`, `--exp`, `--fi=`: the thirty-eighth pass ran `e`
 * commands through each): `--e…` can only be --expression, `--fi…` --file, `--l…` --line-length.
 */
function scripts(c: SimpleCommand): { texts: string[]; fromFile: boolean } {
  const texts: string[] = [];
  let fromFile = false;
  let firstOperand: string | undefined;
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    const attached = a.includes("=") ? a.slice(a.indexOf("=") + 1) : undefined;
    if (a === "--") {
      if (firstOperand === undefined && c.args[i + 1] !== undefined) firstOperand = c.args[i + 1];
      break;
    }
    if (a === "-e" || longOption(a, "expression", 1)) texts.push(attached ?? c.args[++i] ?? "");
    else if (a === "-f" || longOption(a, "file", 2) || (/^-[a-zA-Z]*f/.test(a) && !a.startsWith("--"))) fromFile = true;
    else if (/^-[nrsuzE]*e./.test(a) && !a.startsWith("--")) texts.push(a.slice(a.indexOf("e") + 1));
    else if (/^-[nrsuzE]*e$/.test(a)) texts.push(c.args[++i] ?? "");
    else if (a === "-l" || (longOption(a, "line-length", 1) && attached === undefined)) i++;
    else if (!isFlag(a) && firstOperand === undefined) firstOperand = a;
  }
  if (texts.length === 0 && firstOperand !== undefined && !fromFile) texts.push(firstOperand);
  return { texts, fromFile };
}

/** `--in-place` by any prefix GNU sed takes (`--in`, `--in-pl=.bak`): the operands are edited in place. */
export const sedInPlace = (c: SimpleCommand) => /^g?sed$/.test(c.name) && c.args.some((a) => longOption(a, "in-place", 1));

/** Skips one address (`12`, `$`, `/re/`, `\cREc`, `first~step`, `+N`); returns the index after it. */
function skipAddress(s: string, i: number): number {
  if (s[i] === "/" || s[i] === "\\") {
    const delim = s[i] === "\\" ? s[i + 1] : "/";
    let j = s[i] === "\\" ? i + 2 : i + 1;
    while (j < s.length && s[j] !== delim) j += s[j] === "\\" ? 2 : 1;
    j++;
    while (/[IM]/.test(s[j] ?? "")) j++;
    return j;
  }
  const m = /^(?:\d+(?:~\d+)?|\$|[+~]\d+)/.exec(s.slice(i));
  return m ? i + m[0].length : i;
}
/** The text up to the end of the line (or of the script). */
const toEol = (s: string, i: number) => {
  const end = s.indexOf("\n", i);
  return { text: s.slice(i, end < 0 ? s.length : end), next: end < 0 ? s.length : end + 1 };
};

/** One `s` command from its delimiter on: the regex, the replacement, the flags and where it ends. */
function substitution(s: string, i: number): { regex: string; replacement: string; flags: string; write?: string; next: number } {
  const delim = s[i] ?? "/";
  const parts: string[] = [];
  let j = i + 1;
  for (let n = 0; n < 2; n++) {
    let part = "";
    while (j < s.length && s[j] !== delim) {
      if (s[j] === "\\") part += s[j++] ?? "";
      part += s[j++] ?? "";
    }
    parts.push(part);
    j++;
  }
  let flags = "";
  while (j < s.length && /[gpiImMe0-9]/.test(s[j]!)) flags += s[j++];
  let write: string | undefined;
  if (s[j] === "w") {
    const rest = toEol(s, j + 1);
    write = rest.text.trim();
    j = rest.next;
  }
  return { regex: parts[0] ?? "", replacement: parts[1] ?? "", flags, write, next: j };
}

/** What one sed script runs and writes. */
function readScript(s: string, out: SedScript): void {
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /[\s;{}!]/.test(s[i]!)) i++;
    if (i >= s.length) return;
    i = skipAddress(s, i);
    if (s[i] === ",") i = skipAddress(s, i + 1);
    while (i < s.length && /[\s!]/.test(s[i]!)) i++;
    const cmd = s[i++];
    if (cmd === undefined) return;
    if (cmd === "s") {
      const sub = substitution(s, i);
      if (sub.write !== undefined) out.writes.push(sub.write);
      if (sub.flags.includes("e")) {
        // The pattern space after the substitution runs: it is the replacement alone only when the regex takes the whole line.
        const whole = /^\^?\.\*\$?$/.test(sub.regex) && !/&|\\[0-9]/.test(sub.replacement);
        if (whole) out.runs.push(sub.replacement.replace(/\\(.)/g, "$1"));
        else out.unknownRun = true;
      }
      i = sub.next;
    } else if (cmd === "y") i = substitution(s, i).next;
    else if (cmd === "e") {
      const rest = toEol(s, i);
      if (rest.text.trim()) out.runs.push(rest.text.trim());
      else out.unknownRun = true;
      i = rest.next;
    } else if (cmd === "w" || cmd === "W") {
      const rest = toEol(s, i);
      out.writes.push(rest.text.trim());
      i = rest.next;
    } else if (/[aicrR#]/.test(cmd)) {
      // Text to append, insert or change, a file to read, a comment: the rest of the line (a text line ending in `\`
      // goes on to the next one).
      let rest = toEol(s, i);
      while (/[aic]/.test(cmd) && /(?:^|[^\\])(?:\\\\)*\\$/.test(rest.text) && rest.next < s.length) rest = toEol(s, rest.next);
      i = rest.next;
    } else if (/[:btTqQlLv]/.test(cmd)) i = label(s, i); // a label, an exit code, a line length or a version
  }
}

/**
 * GNU sed 4.9 ends a label (`:a`, `b a`) at a blank, `;` or `}`, and `q`/`Q`/`l`/`L`/`v` take one short argument at
 * most, ended the same way: `:a;e cmd`, `v;e cmd`, `l 5;e cmd` run `cmd` (checked against /bin/sed; the thirty-first
 * pass ran each unread when these took the rest of the line). Returns where the next command may start.
 */
function label(s: string, i: number): number {
  while (s[i] === " " || s[i] === "\t") i++;
  while (i < s.length && !/[\s;}]/.test(s[i]!)) i++;
  return i;
}

/** What `sed …` runs and writes (empty for any other program). */
export function sedScript(c: SimpleCommand): SedScript {
  const out: SedScript = { runs: [], unknownRun: false, writes: [] };
  if (c.name !== "sed" && c.name !== "gsed") return out;
  const { texts, fromFile } = scripts(c);
  if (fromFile) out.unknownRun = true;
  for (const t of texts) readScript(t, out);
  return out;
}
