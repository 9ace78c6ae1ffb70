// GNU sed's script as the command audit needs it: the shell commands it runs (the `e` command, the `e` flag of
// `s///`) and the files it writes (the `w`/`W` commands, the `w` flag). A read-only `sed -n 1p` is the common case;
// `sed -n '1e rm -rf ~' f` runs `rm -rf ~`, so the audit judges that text like the command line itself.
import { type SimpleCommand, isFlag } from "./shell-command.js";

export interface SedScript {
  /** Literal command lines the script runs (audited recursively). */
  runs: string[];
  /** It runs something the audit cannot read: `e` on the pattern space, `s///e` on file data, a `-f` script file. */
  unknownRun: boolean;
  /** Files the script writes (`w file`, `s///w file`). */
  writes: string[];
}

/** sed's scripts: every `-e`/`--expression` value, else the first operand; `-f`/`--file` is a script the audit cannot read. */
function scripts(c: SimpleCommand): { texts: string[]; fromFile: boolean } {
  const texts: string[] = [];
  let fromFile = false;
  let firstOperand: string | undefined;
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    if (a === "-e" || a === "--expression") texts.push(c.args[++i] ?? "");
    else if (a.startsWith("--expression=")) texts.push(a.slice(13));
    else if (a === "-f" || a === "--file" || a.startsWith("--file=") || (/^-[a-zA-Z]*f/.test(a) && !a.startsWith("--"))) fromFile = true;
    else if (/^-[nrsuzE]*e./.test(a) && !a.startsWith("--")) texts.push(a.slice(a.indexOf("e") + 1));
    else if (/^-[nrsuzE]*e$/.test(a)) texts.push(c.args[++i] ?? "");
    else if (a === "-l" || a === "--line-length") i++;
    else if (!isFlag(a) && firstOperand === undefined) firstOperand = a;
  }
  if (texts.length === 0 && firstOperand !== undefined && !fromFile) texts.push(firstOperand);
  return { texts, fromFile };
}

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
    } else if (/[aicrRbtT:qQlLv#]/.test(cmd)) {
      // Commands that take the rest of the line (text, a file to read, a label); GNU ends b/t/T labels at `;` too.
      const rest = toEol(s, i);
      const semi = /[btT]/.test(cmd) ? rest.text.indexOf(";") : -1;
      i = semi >= 0 ? i + semi + 1 : rest.next;
    }
  }
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
