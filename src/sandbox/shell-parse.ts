// Shell parsing for the audit: a small lexer that honours quotes, escapes, comments and heredoc bodies, splits
// a command line into pipelines of simple commands, and pulls out every piece of code that will also run
// (substitutions, `bash -c` scripts, `eval`, `find -exec`). The policy over its result is in shell-audit.ts.

export const isFlag = (a: string) => a.startsWith("-") && a !== "-";
/** Programs whose `-c` argument (or stdin) is code. */
export const SHELLS = /^(?:sh|bash|zsh|dash|ksh|fish|ash|csh|tcsh|python[\d.]*|perl|ruby|node|php)$/;
export interface Redirect {
  op: string;
  target: string;
}
/** One simple command after normalisation. */
export interface SimpleCommand {
  /** Program name (basename), "" for a bare redirection. */
  name: string;
  /** Arguments after the program name, quotes removed. */
  args: string[];
  redirects: Redirect[];
  /** Code this command runs besides itself: substitutions, `bash -c` scripts, `eval`, `find -exec`. */
  subs: string[];
}
export interface Pipeline {
  commands: SimpleCommand[];
}


type Token = { kind: "word"; value: string } | { kind: "op"; value: string } | { kind: "redir"; op: string; target: string };

const OPS = ["&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"];
const REDIRS = ["&>>", "&>", "<<<", "<<-", "<<", "<>", ">>", ">|", ">&", "<&", ">", "<"];

/** Index just after the `)` closing the `(` at `open`, honouring quotes and nesting. */
function closeParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\") i++;
    else if (ch === "'") i = s.indexOf("'", i + 1) < 0 ? s.length : s.indexOf("'", i + 1);
    else if (ch === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === "\\") i++;
    } else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i + 1;
  }
  return s.length;
}

function lex(s: string): { tokens: Token[]; subs: string[] } {
  const tokens: Token[] = [];
  const subs: string[] = [];
  const heredocs: { delim: string; strip: boolean }[] = [];
  let i = 0;

  /** Reads `$(…)`, `` `…` `` or `<(…)` at i; returns the text to append to the word, records the code. */
  const readSub = (): string | undefined => {
    if (s.startsWith("$((", i)) {
      const end = closeParen(s, i + 1);
      const text = s.slice(i, end);
      i = end;
      return text;
    }
    if (s.startsWith("$(", i) || s.startsWith("<(", i) || s.startsWith(">(", i)) {
      const end = closeParen(s, i + 1);
      subs.push(s.slice(i + 2, end - 1));
      const text = s.slice(i, end);
      i = end;
      return text;
    }
    if (s[i] === "`") {
      let j = i + 1;
      for (; j < s.length && s[j] !== "`"; j++) if (s[j] === "\\") j++;
      subs.push(s.slice(i + 1, j));
      const text = s.slice(i, j + 1);
      i = j + 1;
      return text;
    }
    return undefined;
  };

  const isBreak = (k: number) => /[\s;&|()<>]/.test(s[k] ?? " ");

  const readWord = (): string | undefined => {
    let word = "";
    let any = false;
    while (i < s.length) {
      const ch = s[i]!;
      if (ch === "\\") {
        if (s[i + 1] === "\n") i += 2;
        else {
          word += s[i + 1] ?? "";
          i += 2;
          any = true;
        }
        continue;
      }
      if (ch === "'") {
        const end = s.indexOf("'", i + 1);
        word += s.slice(i + 1, end < 0 ? s.length : end);
        i = end < 0 ? s.length : end + 1;
        any = true;
        continue;
      }
      if (ch === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === "\\" && i + 1 < s.length) {
            word += s[i + 1];
            i += 2;
          } else if (s[i] === "`" || s.startsWith("$(", i)) word += readSub()!;
          else word += s[i++];
        }
        i++;
        any = true;
        continue;
      }
      if (ch === "$" || ch === "`") {
        const sub = readSub();
        if (sub !== undefined) {
          word += sub;
          any = true;
          continue;
        }
      }
      if ((ch === "<" || ch === ">") && s[i + 1] === "(" && word === "") {
        word += readSub()!;
        any = true;
        continue;
      }
      if (isBreak(i)) break;
      word += ch;
      i++;
      any = true;
    }
    return any ? word : undefined;
  };

  const skipBlanks = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t" || (s[i] === "\\" && s[i + 1] === "\n"))) i += s[i] === "\\" ? 2 : 1;
  };

  while (i < s.length) {
    skipBlanks();
    if (i >= s.length) break;
    const ch = s[i]!;
    if (ch === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    if (ch === "\n") {
      tokens.push({ kind: "op", value: "\n" });
      i++;
      // heredoc bodies are data: skip them
      for (const h of heredocs.splice(0)) {
        while (i < s.length) {
          let eol = s.indexOf("\n", i);
          if (eol < 0) eol = s.length;
          const line = s.slice(i, eol);
          i = eol + 1;
          if ((h.strip ? line.replace(/^\t+/, "") : line) === h.delim) break;
        }
      }
      continue;
    }
    const redir = (ch === "<" || ch === ">" || (ch === "&" && s[i + 1] === ">")) && !(s[i + 1] === "(" && ch !== "&") ? REDIRS.find((r) => s.startsWith(r, i)) : undefined;
    if (redir) {
      i += redir.length;
      skipBlanks();
      const target = readWord() ?? "";
      if (redir === "<<" || redir === "<<-") heredocs.push({ delim: target, strip: redir === "<<-" });
      tokens.push({ kind: "redir", op: redir, target });
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (op) {
      tokens.push({ kind: "op", value: op });
      i += op.length;
      continue;
    }
    const start = i;
    const word = readWord();
    if (word === undefined) {
      i = start + 1; // unknown character: skip it
      continue;
    }
    // `2>file`: a word of digits glued to a redirection is its fd
    if (/^\d+$/.test(word) && (s[i] === ">" || s[i] === "<") && i === start + word.length) continue;
    tokens.push({ kind: "word", value: word });
  }
  return { tokens, subs };
}

const KEYWORDS = new Set(["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "coproc"]);
/** Wrappers that run their arguments as a command; value: options that take an argument. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-D", "-R", "-T"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--delimiter"]),
  watch: new Set(["-n", "-d", "--interval"]),
  unbuffer: new Set(),
};

function basename(p: string): string {
  const b = p.replace(/\/+$/, "");
  return b.slice(b.lastIndexOf("/") + 1) || p;
}

function toSimple(words: string[], redirects: Redirect[]): SimpleCommand {
  let k = 0;
  for (;;) {
    const w = words[k];
    if (w === undefined) break;
    if (KEYWORDS.has(w) || /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(w)) {
      k++;
      continue;
    }
    const opts = WRAPPERS[basename(w)];
    if (!opts) break;
    const wrapper = basename(w);
    k++;
    while (k < words.length) {
      const a = words[k]!;
      if (a === "--") {
        k++;
        break;
      }
      if (wrapper === "env" && /^[A-Za-z_]\w*=/.test(a)) k++;
      else if (isFlag(a)) k += opts.has(a) ? 2 : 1;
      else break;
    }
    if (wrapper === "timeout" && k < words.length) k++; // the duration
  }
  const name = words[k] === undefined ? "" : basename(words[k]!);
  const args = words.slice(k + 1);
  const subs: string[] = [];
  if (SHELLS.test(name) || name === "su") {
    // bash -c 'script', bash -lc 'script', su -c 'script'
    const ci = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command");
    if (ci >= 0 && args[ci + 1] !== undefined && !/^python|^perl|^ruby|^node|^php/.test(name)) subs.push(args[ci + 1]!);
  }
  if (name === "eval") subs.push(args.join(" "));
  if (name === "find") {
    for (let j = 0; j < args.length; j++) {
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[j]!)) continue;
      const end = args.findIndex((a, n) => n > j && (a === ";" || a === "+"));
      subs.push(args.slice(j + 1, end < 0 ? undefined : end).map((a) => (a === "{}" ? "./x" : a)).join(" "));
    }
  }
  return { name, args, redirects, subs };
}

export function parse(command: string): { pipelines: Pipeline[]; subs: string[] } {
  const { tokens, subs } = lex(command);
  const pipelines: Pipeline[] = [];
  let current: Pipeline = { commands: [] };
  let words: string[] = [];
  let redirects: Redirect[] = [];
  const endCommand = () => {
    if (words.length || redirects.length) current.commands.push(toSimple(words, redirects));
    words = [];
    redirects = [];
  };
  const endPipeline = () => {
    endCommand();
    if (current.commands.length) pipelines.push(current);
    current = { commands: [] };
  };
  for (const t of tokens) {
    if (t.kind === "word") words.push(t.value);
    else if (t.kind === "redir") redirects.push({ op: t.op, target: t.target });
    else if (t.value === "|" || t.value === "|&") endCommand();
    else endPipeline();
  }
  endPipeline();
  return { pipelines, subs };
}
