// The simple command as the audit judges it (shell-grammar.ts builds it from the bash grammar's tree): its program
// seen through wrappers (`sudo`, `env`, `xargs`, `timeout`…), its words, its redirections, the literal code it also
// runs, and the directory it runs in — with how `cd` moves that directory.
import { type Cwd, cdTarget } from "./shell-cwd.js";
import { longOption } from "./option-table.js";
import { CMAKE_FILE_TOOLS, CMAKE_RUNNERS, SKIPS_OPERAND, WRAPPERS, WRITES_OPERAND, attachesByPid, clusterParts, ownsOperand, shellCodeAt, wrapperValue } from "./shell-wrappers.js";

export const isFlag = (a: string) => a.startsWith("-") && a !== "-";
/** Programs whose `-c`/`-e` argument, heredoc or piped stdin is code. */
export const SHELLS = /^(?:sh|bash|rbash|zsh|dash|ksh|mksh|yash|posh|fish|ash|csh|tcsh|python[\d.]*|perl|ruby|node|php)$/;
export const INTERPRETERS = /^(?:python[\d.]*|perl|ruby|node|php|lua(?:jit|[\d.]+)?|Rscript|julia|bun|deno)$/;
/** Top-level system directories: deleting one (or everything in one) is as bad as deleting the root. */

export interface Redirect {
  op: string;
  target: string;
}

/** One simple command after normalisation. */
export interface SimpleCommand {
  /** Program name (basename), "" for a bare redirection. */
  name: string;
  /** The program name is an expansion (`$x`, `$(…)`): the audit cannot know what runs. */
  dynamicName: boolean;
  /** The program as written when it was a path (`./cat`, `/usr/bin/cat`): `name` is its basename. */
  programPath?: string;
  /** Arguments after the program name: quotes removed, expansions as written. */
  args: string[];
  /** Per argument: it contains an expansion or substitution (its value is known only at run time). */
  dynamicArgs: boolean[];
  /** Per argument: its literal text holds code (`'a[$(…)]'`), see Word. */
  heldCode?: boolean[];
  /** Per argument: an unquoted glob (its words are file names, known only at run time), see Word. */
  globArgs?: boolean[];
  redirects: Redirect[];
  /** Wrappers in front of the program (`sudo`, `xargs`, `env`…), by basename. */
  via: string[];
  /** Variables this command sets: `VAR=… cmd`, `env VAR=… cmd`, `export VAR=…`, a bare `VAR=…`. */
  assigns: Assignment[];
  /** Literal code this command runs besides itself: `bash -c` scripts, `eval`, `find -exec`, a heredoc to a shell. */
  code: string[];
  /** Text fed to its stdin by a heredoc or here-string (code, when the program is an interpreter). */
  stdinText?: string;
  /** The heredoc or here-string expands variables or substitutions. */
  stdinDynamic?: boolean;
  /** Its stdin is the previous command of a pipeline (stdinText then holds what a literal echo/printf sends). */
  stdinPiped?: boolean;
  cwd: Cwd;
}

export interface Pipeline {
  commands: SimpleCommand[];
}

export interface Assignment {
  name: string;
  value: string;
  /** The value holds an expansion (known only at run time). */
  dynamic: boolean;
  /** The value's literal text holds `$(`, `${` or a backtick (see Word). */
  heldCode?: boolean;
}

/** `NAME=value` (or `NAME+=value`) as an assignment, else undefined. */
export function assignmentOf(w: Word): Assignment | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=(.*)$/s.exec(w.text);
  return m ? { name: m[1]!, value: m[2]!, dynamic: w.dynamic, heldCode: w.heldCode } : undefined;
}

/** One word as bash will pass it: quotes removed, expansions as written; `dynamic` when it holds an expansion. */
export interface Word {
  text: string;
  dynamic: boolean;
  /** Literal text (quoted or escaped) that holds `$(`, `${` or a backtick: code if bash evaluates the value later. */
  heldCode?: boolean;
  /** An unquoted `*`, `?` or `[`: bash replaces the word by the file names it matches, which the repository chose. */
  glob?: boolean;
}
/** Code-shaped text in a literal string: arithmetic or an array subscript that reads the value would run it. */
export const HELD_CODE = /\$\(|\$\{|`/;

const MAX_BRACE_WORDS = 64;
/** Brace expansion as bash does it (`{a,b}c` → `ac bc`), capped. */
export function expandBraces(text: string): string[] {
  const m = /\{([^{}]*,[^{}]*)\}/.exec(text) ?? /\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?\}/.exec(text);
  if (!m) return [text];
  const out: string[] = [];
  for (const alt of m[2] === undefined ? m[1]!.split(",") : sequence(m[1]!, m[2])) {
    for (const rest of expandBraces(text.slice(0, m.index) + alt + text.slice(m.index + m[0].length))) {
      if (out.length >= MAX_BRACE_WORDS) return out;
      out.push(rest);
    }
  }
  return out;
}

/** `{a..e}`, `{1..3}`, `{3..1}`: bash's sequence expression (letters by code point), bounded like the lists. */
function sequence(from: string, to: string): string[] {
  const num = /\d/.test(from);
  const [a, b] = num ? [Number(from), Number(to)] : [from.charCodeAt(0), to.charCodeAt(0)];
  const step = a <= b ? 1 : -1;
  const out: string[] = [];
  for (let v = a; out.length < MAX_BRACE_WORDS; v += step) {
    out.push(num ? String(v) : String.fromCharCode(v));
    if (v === b) break;
  }
  return out;
}

/**
 * An interpreter by its plain name: Debian installs versioned and arch-suffixed copies (`perl5.36.0`,
 * `perl5.36-x86_64-linux-gnu`, `python3.11`, `ruby3.1`, `php8.2`, `lua5.4`) and node as `nodejs`; each runs inline
 * code like the plain one, and the thirty-eighth pass ran `system` through them unread. python keeps its major version.
 */
export function interpreterName(name: string): string {
  if (name === "nodejs") return "node";
  const m = /^(python|pypy|perl|ruby|php|lua|node)(\d*)(?:\.[\d.]*)?[dmu]*(?:-(?:x86_64|x86-64|aarch64|arm\w*|i[3-6]86|powerpc\w*|ppc64\w*|s390x|riscv64|mips\w*|loongarch64)-linux-gnu\w*)?$/.exec(
    name,
  );
  if (!m) return name;
  return /^(?:python|pypy)$/.test(m[1]!) ? `python${m[2]!.slice(0, 1)}` : m[1]!;
}

export function basename(p: string): string {
  const b = p.replace(/\/+$/, "");
  return b.slice(b.lastIndexOf("/") + 1) || p;
}

/** A wrapper's output file as the redirect it amounts to (one the audit cannot read: a write to a place it cannot know). */
function outputOf(value: Word | undefined): Redirect {
  return !value || value.dynamic ? { op: ">", target: "$(unknown)" } : { op: ">", target: value.text };
}

/** `cmake -E chdir|env|time …` at `k`: what it adds (a cd, assignments into `assigns`) and where its command starts. */
function cmakeRunner(words: Word[], k: number, assigns: Assignment[]): { via: string; chdir?: Word; next: number } | undefined {
  const tool = words[k + 2];
  if (basename(words[k]!.text) !== "cmake" || words[k + 1]?.text !== "-E" || !tool || tool.dynamic || !CMAKE_RUNNERS.test(tool.text)) return undefined;
  let next = k + 3;
  const chdir = tool.text === "chdir" ? (words[next++] ?? { text: "", dynamic: true }) : undefined;
  for (let a = words[next]; tool.text === "env" && a !== undefined; a = words[next]) {
    const assigned = assignmentOf(a);
    if (assigned) assigns.push(assigned);
    else if (!/^--(?:unset=|modify=)/.test(a.text) && a.text !== "--") break;
    next++;
  }
  return { via: `cmake -E ${tool.text}`, chdir, next };
}

/** `cmake -E <file tool> …` at `k` as the words of the program it stands for, or undefined. */
function cmakeFileTool(words: Word[], k: number): Word[] | undefined {
  const name = words[k + 2]?.text ?? "";
  if (basename(words[k]?.text ?? "") !== "cmake" || words[k + 1]?.text !== "-E" || words[k + 2]?.dynamic || !Object.hasOwn(CMAKE_FILE_TOOLS, name)) return undefined;
  return [...CMAKE_FILE_TOOLS[name]!.map((text) => ({ text, dynamic: false })), ...words.slice(k + 3)];
}

type Seen = { next: number; chdir?: Word; code: string[]; outputs: Redirect[]; dynamic: boolean; rest?: boolean; shell?: string };

/** What one special option says (wrapperValue), with its value. */
function record(seen: Seen, kind: string, value: Word | undefined): void {
  if (kind === "chdir") seen.chdir = value ?? { text: "", dynamic: true };
  else if (kind === "rest") seen.rest = true;
  else if (kind === "shell") seen.shell = value && !value.dynamic ? value.text : "$(unknown)";
  else if (kind === "output" && /^[|!]/.test(value?.text ?? ""))
    seen.dynamic = true; // strace -o '|cmd': its output piped into a command
  else if (kind === "output") seen.outputs.push(outputOf(value));
  else if (value?.dynamic) seen.dynamic = true;
  else if (value) seen.code.push(value.text);
}

/** `part` takes the next word as its value: listed, or a GNU abbreviation of a listed long option (`--sig`, A25-13). */
const takesValue = (part: string, opts: Set<string>) =>
  opts.has(part) || (part.startsWith("--") && !part.includes("=") && [...opts].some((o) => o.startsWith("--") && longOption(part, o.slice(2), 1)));

/** One option word of a wrapper at `k` (a cluster letter by letter, A25-2): records it; returns the index after it. */
function wrapperOption(words: Word[], k: number, wrapper: string, opts: Set<string>, seen: Seen): number {
  const word = words[k]!;
  const parts = clusterParts(wrapper, word.text, opts);
  let next = k + 1;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const special = wrapperValue(wrapper, part);
    if (!special) {
      if (last && takesValue(part, opts)) next = k + 2;
      return;
    }
    const needsNext = special.attached === undefined && special.kind !== "rest";
    const value: Word | undefined = special.attached !== undefined ? { text: special.attached, dynamic: word.dynamic } : needsNext && last ? words[k + 1] : undefined;
    if (needsNext && last) next = k + 2;
    record(seen, special.kind, value);
  });
  return next;
}

/** What a wrapper's options (from `k`) say: where its command starts, a cd, code it runs, files it writes. */
function wrapperOptions(words: Word[], k: number, wrapper: string, opts: Set<string>, assigns: Assignment[]): Seen {
  const seen: Seen = { next: k, code: [], outputs: [], dynamic: false };
  let skipped = false;
  let shell: string | undefined;
  while (k < words.length && !seen.rest) {
    const a = words[k]!.text;
    if (a === "--") {
      k++;
      // capsh runs bash (or its --shell=) with the words after `--` (A25-1).
      if (wrapper === "capsh") shell = seen.shell ?? "bash";
      break;
    }
    const envAssigned = wrapper === "env" ? assignmentOf(words[k]!) : undefined;
    if (envAssigned) {
      assigns.push(envAssigned);
      k++;
    } else if (isFlag(a)) k = wrapperOption(words, k, wrapper, opts, seen);
    else if (SKIPS_OPERAND.test(wrapper) && !skipped && ownsOperand(wrapper, words[k]!)) {
      skipped = true; // flock's file, taskset's mask… (options may follow it: `flock f -c '…'`)
      if (wrapper === "setarch" && words[k]!.dynamic) seen.dynamic = true;
      if (WRITES_OPERAND.test(wrapper)) seen.outputs.push(outputOf(words[k])); // logsave's log
      k++;
    } else break;
  }
  seen.next = k;
  seen.shell = shell;
  return seen;
}

export function normalise(words: Word[], redirects: Pick<SimpleCommand, "redirects" | "stdinText" | "stdinDynamic">, cwd: Cwd, assigns: Assignment[] = []): SimpleCommand {
  const via: string[] = [];
  assigns = [...assigns];
  const wrapped: string[] = []; // code a wrapper option holds (`env -S`, `flock -c`)
  const outputs: Redirect[] = []; // files a wrapper option writes (`time -o f`): judged as `> f`
  let dynamicWrapped = false;
  let chdir: Word | undefined;
  let k = 0;
  for (;;) {
    const w = words[k];
    if (w === undefined || w.dynamic) break;
    const assigned = assignmentOf(w);
    // `time` is bash's keyword first on the line; after a wrapper (`env time -o f …`) it is the program /usr/bin/time.
    if (/^(?:!|coproc)$/.test(w.text) || (w.text === "time" && via.length === 0) || assigned) {
      if (assigned) assigns.push(assigned);
      k++;
      continue;
    }
    const wrapper = basename(w.text);
    const runner = cmakeRunner(words, k, assigns);
    if (runner) {
      via.push(runner.via);
      chdir = runner.chdir ?? chdir;
      k = runner.next;
      continue;
    }
    const opts = WRAPPERS[wrapper];
    if (!opts) break;
    // Attached to a running process by its pid (`strace -p 1`, `prlimit --pid 1`), it can kill or stop that process
    // (the twenty-ninth pass's A29a-4): named so in `via` (`strace -p`), and what it wraps is still judged.
    via.push(attachesByPid(wrapper, words.slice(k + 1)) ? `${wrapper} -p` : wrapper);
    const seen = wrapperOptions(words, k + 1, wrapper, opts, assigns);
    k = seen.next;
    if (seen.shell !== undefined) words = [...words.slice(0, k), { text: seen.shell, dynamic: seen.shell.startsWith("$") }, ...words.slice(k)];
    chdir = seen.chdir ?? chdir;
    wrapped.push(...seen.code);
    outputs.push(...seen.outputs);
    dynamicWrapped ||= seen.dynamic;
  }
  const tool = cmakeFileTool(words, k);
  if (tool) {
    via.push("cmake -E");
    words = tool;
    k = 0;
  }
  const first = words[k];
  const name = first === undefined ? "" : interpreterName(basename(first.text));
  const rest = words.slice(k + 1);
  const args = rest.map((w) => w.text);
  const simple: SimpleCommand = {
    name,
    ...(first?.text.includes("/") ? { programPath: first.text } : {}),
    dynamicName: (first?.dynamic ?? false) || globbed(first) || dynamicWrapped,
    args,
    dynamicArgs: rest.map((w) => w.dynamic),
    heldCode: rest.map((w) => w.heldCode === true),
    globArgs: rest.map((w) => w.glob === true),
    via,
    assigns,
    code: [],
    ...redirects,
    redirects: [...redirects.redirects, ...outputs],
    cwd: chdir === undefined ? { ...cwd } : cdTarget(cwd, { args: [chdir.text], dynamicArgs: [chdir.dynamic] }),
  };
  simple.code = [...wrapped, ...literalCode(simple)];
  return simple;
}

/** A program named by a pattern (`/usr/bin/s[h]`, `/bin/b*sh`): bash runs whatever it matches (A27-9); a lone `[` is literal. */
const globbed = (w: Word | undefined) => w?.glob === true && /[*?]|\[.+\]/.test(w.text);

const PLAIN_SHELL = /^(?:sh|bash|rbash|zsh|dash|ksh|fish|ash|csh|tcsh|mksh|yash|posh)$/;

const quoteWord = (a: string, dynamic: boolean) => (dynamic ? '"$(unknown)"' : `'${a.replace(/'/g, "'\\''")}'`);

/**
 * A shell with `-c` among another program's arguments (`logsave f sh -c '…'`, `somewrapper --opt v bash -c '…'`): the
 * program may well run it, whatever its options mean, so the words from the shell on are judged as the command line
 * they would be. WHY: a list of wrappers is never complete (six passes each found new ones) and an option the table
 * does not know shifts where the command starts (A25-13); this catches the common shape whatever runs it.
 */
function shellInArgs(c: SimpleCommand): string[] {
  if (PLAIN_SHELL.test(c.name) || INTERPRETERS.test(c.name) || c.name === "su" || c.name === "newgrp") return [];
  const j = c.args.findIndex((a, i) => !c.dynamicArgs[i] && PLAIN_SHELL.test(basename(a)) && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(c.args[i + 1] ?? ""));
  return j < 0
    ? []
    : [
        c.args
          .slice(j)
          .map((a, i) => quoteWord(a, c.dynamicArgs[j + i] === true))
          .join(" "),
      ];
}

/** The literal code a command runs besides itself (the audit parses and audits it like the command line). */
function literalCode(c: SimpleCommand): string[] {
  const { name, args } = c;
  const code: string[] = [];
  if ((SHELLS.test(name) && !INTERPRETERS.test(name)) || name === "su" || name === "newgrp") {
    const ci = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command");
    const at = ci < 0 ? -1 : shellCodeAt(args, ci);
    if (ci >= 0 && args[at] !== undefined && !c.dynamicArgs[at]) code.push(args[at]!);
    if (ci < 0 && c.stdinText !== undefined && !c.stdinDynamic) code.push(c.stdinText);
  }
  if (name === "eval" && !c.dynamicArgs.some(Boolean)) code.push(args.join(" "));
  // `trap '<code>' EXIT|DEBUG|…`: bash runs the code later (`trap - SIG`, `trap -p`, `trap -l` run nothing).
  if (name === "trap") {
    const i = args.findIndex((a) => a !== "--");
    if (i >= 0 && args.length > i + 1 && !isFlag(args[i]!) && !c.dynamicArgs[i]) code.push(args[i]!);
  }
  // `watch 'cmd'` and `script -c 'cmd'` hand their command to `sh -c`.
  if (name === "watch") {
    let j = 0;
    while (j < args.length && isFlag(args[j]!)) j += /^(?:-n|--interval|-q|--equexit)$/.test(args[j]!) ? 2 : 1;
    if (j < args.length && !c.dynamicArgs.slice(j).some(Boolean)) code.push(args.slice(j).join(" "));
  }
  // script takes --command by any prefix (`--comm=`, `--c=`: the thirty-eighth pass).
  if (name === "script") {
    const ci = args.findIndex((a) => /^-[a-zA-Z]*c$/.test(a) || (longOption(a, "command", 1) && !a.includes("=")));
    const eq = args.find((a) => longOption(a, "command", 1) && a.includes("="));
    if (ci >= 0 && args[ci + 1] !== undefined && !c.dynamicArgs[ci + 1]) code.push(args[ci + 1]!);
    if (eq !== undefined) code.push(eq.slice(eq.indexOf("=") + 1));
  }
  code.push(...shellInArgs(c));
  if (name === "find") {
    for (let j = 0; j < args.length; j++) {
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[j]!)) continue;
      const end = args.findIndex((a, n) => n > j && (a === ";" || a === "+"));
      // Each word quoted back as the single word find passes on; `{}` stands for a matched path below here.
      code.push(
        args
          .slice(j + 1, end < 0 ? undefined : end)
          .map((a) => (a === "{}" ? "./x" : `'${a.replace(/'/g, "'\\''")}'`))
          .join(" "),
      );
    }
  }
  return code;
}
