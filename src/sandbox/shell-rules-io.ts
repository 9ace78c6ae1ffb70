// Helpers for the command audit's rules about programs that read or write on their own terms: tar's
// --remove-files, sqlite3 databases, editor scripts (ed/ex/vim), network commands fed run-time text, and variables
// whose value is a command line. The table itself is SHELL_RULES in shell-audit.ts.
import { codeEnvVar } from "./code-env.js";
import { type SimpleCommand, isFlag } from "./shell-command.js";
import { walkDown } from "./shell-cwd.js";
import { longOption } from "./option-table.js";

/** tar's `-C dir` / `--directory=dir` (`--dir=`: any prefix tar takes; where it reads and deletes), or undefined. */
export function tarDir(c: SimpleCommand): string | undefined {
  let dir: string | undefined;
  c.args.forEach((a, i) => {
    if (a === "-C" || (longOption(a, "directory", 3) && !a.includes("="))) dir = c.args[i + 1];
    else if (longOption(a, "directory", 3)) dir = a.slice(a.indexOf("=") + 1);
    else if (/^-C./.test(a)) dir = a.slice(2);
  });
  return dir;
}
/** find's starting points: the arguments before its first expression (`-name`, `(`, `!`). */
export function findStarts(c: SimpleCommand): string[] {
  const end = c.args.findIndex((a) => a.startsWith("-") || a === "(" || a === "!");
  return end < 0 ? c.args : c.args.slice(0, end);
}
/** find deletes what it matches (`-delete`, `-exec rm`). */
export function findDeletes(c: SimpleCommand): boolean {
  return c.args.includes("-delete") || c.args.some((a, i) => /^-(?:exec|execdir|ok|okdir)$/.test(a) && /^(?:\S*\/)?(?:rm|unlink|shred|rmdir)$/.test(c.args[i + 1] ?? ""));
}
/** tar's --remove-files, also as GNU's abbreviations (`--rem`, `--remove-f`: the twelfth pass deleted a home with one). */
export const tarRemovesFiles = (c: SimpleCommand) => /^(?:tar|bsdtar)$/.test(c.name) && c.args.some((a) => a.length >= 5 && "--remove-files".startsWith(a));
/** zip -m / --move deletes the files once they are in the archive. */
export const zipMoves = (c: SimpleCommand) => c.name === "zip" && c.args.some((a) => /^-[\w#]*m/.test(a) || (a.length >= 4 && "--move".startsWith(a)));

/** The code in variables whose value is a command line (`GIT_SSH_COMMAND='…' git fetch`): judged like the command. */
export function assignedCode(c: SimpleCommand): string[] {
  return c.assigns.filter((a) => !a.dynamic && codeEnvVar(a.name)?.shell === true).map((a) => a.value);
}

const NETWORK = /^(?:curl|wget|aria2c|fetch|http|https|xh|dig|nslookup|host|drill|whois|ping6?|traceroute6?|tracepath|nc|ncat|netcat|socat|telnet|ssh|scp|sftp|ftp|tftp|openssl)$/;
/** A network command whose arguments or input hold `$(…)` or `$VAR`: what it sends is known only at run time. */
export const runsNetworkWithRuntimeText = (c: SimpleCommand) => NETWORK.test(c.name) && (c.dynamicArgs.some(Boolean) || c.stdinDynamic === true);

/**
 * vim by every name it is installed under: its aliases (`view`, `vimdiff`, `rview`, `gvim`, `evim`), Debian's builds
 * (`vim.basic`, `vim.tiny`, `vim.nox`) and the `editor` alternative (sensible-editor runs it). Each runs `-c '!cmd'` and
 * `+!cmd` like vim: the thirty-eighth pass ran them unread under the names the rules did not know.
 */
export const VIM = /^(?:[gr]?vim?|[gr]?view|rg(?:vim|view)|[eg]?vimdiff|evim|eview|nvim|vimx|gvimx|vim\.[\w-]+|editor|sensible-editor)$/;

/** Editor commands given on the command line: vim's `-c cmd`/`--cmd cmd`/`+cmd`. */
export function editorScripts(c: SimpleCommand): string[] {
  return c.args.flatMap((a, i) => (/^(?:-c|--cmd)$/.test(a) ? [c.args[i + 1] ?? ""] : /^\+./.test(a) ? [a.slice(1)] : []));
}
/** ed/ex/vim told to run a shell command: `!cmd` in a script or on stdin, `ed '!cmd'`, vim's system()/:terminal. */
export function editorRunsShell(c: SimpleCommand): boolean {
  if (/^(?:ed|red|ex)$/.test(c.name)) return /(?:^|\n)\s*(?:[.$,;\d]*\s*)?(?:r|w|e)?\s*!/.test(c.stdinText ?? "") || c.args.some((a) => a.startsWith("!")) || editorScripts(c).some(shellInVim);
  if (VIM.test(c.name)) return editorScripts(c).some(shellInVim) || shellInVim(c.stdinText ?? "");
  return false;
}
const shellInVim = (s: string) => /!|system\s*\(|\bterm(?:inal)?\b|\bpy(?:thon)?3?\b|\blua\b|\bperl\b|\bruby\b/.test(s);

const SQLITE_VALUED = /^--?(?:cmd|init|separator|newline|nullvalue|vfs|maxsize|mmap|pagecache|lookaside|heap|escape)$/;
const SQL_WRITE = /\b(?:insert|update|delete|replace|create|drop|alter|attach|detach|vacuum|reindex)\b|\bpragma\s+\w+\s*=/i;
const SQL_SHELL = /\bload_extension\s*\(|\bedit\s*\(/i;
/**
 * sqlite3's dot-commands the audit judges, each with the shortest prefix sqlite3 3.40 takes for it (`.sh`/`.sy` run
 * a shell command, `.i` imports, `.o` is .output, `.on` .once, `.rea` .read: checked against the real sqlite3; the
 * thirty-first pass ran `.sy`, `.she` and `.import '|cmd'` unread).
 */
const DOT_COMMANDS: Record<string, number> = { shell: 2, system: 2, load: 1, excel: 2, import: 1, output: 1, once: 2, read: 3, restore: 3, save: 3, backup: 3, clone: 1 };
/** Dot-commands that read or write a file, which may be `|cmd`: a command sqlite3 runs through the shell. */
const DOT_FILES = /^(?:import|output|once|read|restore|save|backup|clone)$/;

/** sqlite3's words for one dot-command line: `'…'` literal, `"…"` with backslash escapes, else up to a blank. */
function dotWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'?|"((?:\\.|[^"\\])*)"?|(\S+)/g)) words.push(m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[3]!);
  return words;
}
/** Each dot-command in sqlite3's input: the one it abbreviates, its arguments and the raw rest of its line. */
function dotCommands(text: string): { name: string; args: string[]; rest: string }[] {
  // A dot-command takes its whole line; other lines are SQL, where a `;` may precede one (more read, never less).
  const lines = text.split("\n").flatMap((l) => (/^\s*\./.test(l) ? [l] : l.split(";")));
  return lines.flatMap((l) => {
    const m = /^\s*\.(\w+)(.*)$/s.exec(l);
    if (!m) return [];
    const typed = m[1]!.toLowerCase();
    const name = Object.keys(DOT_COMMANDS).find((n) => typed.length >= DOT_COMMANDS[n]! && n.startsWith(typed));
    return name ? [{ name, args: dotWords(m[2]!), rest: m[2]!.trim() }] : [];
  });
}
/** The shell commands a sqlite3 script runs: `.shell`/`.system` lines and a `|cmd` given as a file (`.import '|cmd' t`). */
function sqliteShell(text: string): string[] {
  return dotCommands(text).flatMap((d) => {
    if (d.name === "shell" || d.name === "system") return [d.rest];
    const file = d.args.find((a) => !isFlag(a));
    return DOT_FILES.test(d.name) && file?.startsWith("|") ? [file.slice(1)] : [];
  });
}
/** The text sqlite3 reads as commands: `-cmd`/`-init` values, the arguments after the database, stdin. */
function sqliteInput(c: SimpleCommand): { db?: string; text: string; init: boolean } {
  const words: string[] = [];
  const cmds: string[] = [];
  let init = false;
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    if (SQLITE_VALUED.test(a)) {
      init ||= /init$/.test(a);
      (/(?:cmd|init)$/.test(a) ? cmds : []).push(c.args[++i] ?? "");
    } else if (!isFlag(a)) words.push(a);
  }
  const [db, ...sql] = words;
  return { db, text: [...cmds, ...sql, c.stdinText ?? ""].join("\n"), init };
}
/**
 * sqlite3: "ask" on a database outside the workspace (an absolute path, `~`, `..`, the data home), a script it reads
 * from a file (-init), or a dot-command that runs a shell command, a program or an extension (`.shell`, `.sy`, `.load`,
 * `.excel`, `.once -x`, a `|cmd` file); "edit" for a write statement or a dot-command that writes (or SQL it reads
 * from a pipe); else "allow".
 */
export function sqliteRisk(c: SimpleCommand): "ask" | "edit" | "allow" {
  const { db, text, init } = sqliteInput(c);
  const outside = db !== undefined && db !== ":memory:" && (/^(?:\/|~|\$)/.test(db) || /(?:^|\/)\.deerflow(?:\/|$)/.test(db) || c.cwd.at !== "workspace" || walkDown(c.cwd, db).at !== "workspace");
  const dots = dotCommands(text);
  const runs = dots.some((d) => /^(?:shell|system|load|excel)$/.test(d.name) || (/^(?:output|once)$/.test(d.name) && d.args.some((a) => /^-[a-z]*[xe]/.test(a))));
  if (outside || init || runs || SQL_SHELL.test(text) || sqliteShell(text).length > 0) return "ask";
  if (SQL_WRITE.test(text) || dots.some((d) => DOT_FILES.test(d.name)) || (db !== undefined && text.trim() === "")) return "edit";
  return "allow";
}

/**
 * A pipeline's command with what a literal `echo`/`printf` before it sends as its stdin text, so the rules that read
 * stdin (sqlite3's `.system`, an interpreter's code) see `echo '.system …' | sqlite3` too (the twenty-fifth pass's A25-3).
 */
export function withPipedLiteral(c: SimpleCommand, before: SimpleCommand | undefined): SimpleCommand {
  if (before === undefined || c.stdinText !== undefined) return c;
  const literal = /^(?:echo|printf)$/.test(before.name) && before.via.length === 0 && !before.dynamicArgs.some(Boolean);
  const args = before.name === "echo" ? before.args.filter((a, i) => !(i === 0 && /^-[neE]+$/.test(a))) : before.args;
  return literal ? { ...c, stdinPiped: true, stdinText: args.join(" ").replace(/\\n/g, "\n") } : { ...c, stdinPiped: true };
}

/** sqlite3 reading commands from a pipe the audit cannot read: its `.system`/`.shell` lines would run unjudged. */
export const sqliteReadsUnseenPipe = (c: SimpleCommand): boolean => /^sqlite3?$/.test(c.name) && c.stdinPiped === true && c.stdinText === undefined;

/** The shell commands an editor or sqlite3 script names (`!cmd`, `.shell cmd`): judged like the command itself. */
export function embeddedShell(c: SimpleCommand): string[] {
  let lines: string[] = [];
  if (/^(?:ed|red|ex)$/.test(c.name) || VIM.test(c.name)) lines = [...editorScripts(c), ...(c.stdinText ?? "").split("\n"), ...(c.name === "ed" ? c.args : [])];
  else if (/^sqlite3?$/.test(c.name)) return sqliteShell(sqliteInput(c).text);
  else if (/^(?:tar|zip)$/.test(c.name)) return optionCommands(c);
  return lines.flatMap((l) => {
    const m = /^\s*(?::|[.$,;\d]*\s*(?:r|w|e)?\s*)!(.+)$/.exec(l);
    return m ? [m[1]!] : [];
  });
}

/**
 * tar's options that run a command line, with the shortest prefix GNU tar takes for each (`--use-c=`, `--to-c=`,
 * `--inf=`, `--rs=`: the thirty-eighth pass ran `--use-compress-prog=`, `--to-comm=` unread); `--checkpoint-action`
 * runs one only as `exec=…`.
 */
const TAR_RUNS: [string, number][] = [
  ["use-compress-program", 3],
  ["to-command", 4],
  ["info-script", 3],
  ["new-volume-script", 4],
  ["rsh-command", 2],
  ["rmt-command", 2],
  ["checkpoint-action", 11],
];
/** The command lines tar's or zip's options name (tar `-I cmd`, `--to-command=cmd`, `--checkpoint-action=exec=cmd`; zip
 *  `-TT cmd`, `--unzip-command=cmd`, by zip's prefix `--unz=`), each judged like the command line; "" when unknown. */
function optionCommands(c: SimpleCommand): string[] {
  const out: string[] = [];
  const value = (i: number, attached: string | undefined) => (attached !== undefined ? attached : c.dynamicArgs[i + 1] ? "" : (c.args[i + 1] ?? ""));
  c.args.forEach((a, i) => {
    if (a === "--") return;
    const eq = a.includes("=") ? a.slice(a.indexOf("=") + 1) : undefined;
    if (c.name === "zip") {
      if (a.startsWith("-TT")) out.push(a.length > 3 ? a.slice(a[3] === "=" ? 4 : 3) : value(i, undefined));
      else if (longOption(a, "unzip-command", 3)) out.push(value(i, eq));
      return;
    }
    const long = TAR_RUNS.find(([n, min]) => longOption(a, n, min))?.[0];
    if (long === "checkpoint-action") {
      const v = value(i, eq);
      if (/^exec=/.test(v)) out.push(v.slice(5));
    } else if (long) out.push(value(i, eq));
    else if (/^-[a-zA-Z]*[IF]/.test(a) || (i === 0 && /^[a-zA-Z]*[IF]/.test(a))) {
      // a short cluster: the letter's value is the rest of the cluster, or the next word (old style: a later word)
      const at = a.search(/[IF]/);
      out.push(at < a.length - 1 ? a.slice(at + 1) : a.startsWith("-") ? value(i, undefined) : "");
    }
  });
  return out.map((s) => s.trim());
}

/** Options that make a program run a command: tar's --to-command, zip -TT, git submodule foreach, aliases. */
export const RUNS_OPTION_COMMAND = (c: SimpleCommand): boolean =>
  (/^(?:tar|zip)$/.test(c.name) && optionCommands(c).length > 0) ||
  (c.name === "git" && c.args.includes("submodule") && c.args.includes("foreach")) ||
  (c.name === "alias" && c.args.length > 0) ||
  /^(?:parallel|sem|rush)$/.test(c.name) ||
  (c.name === "shopt" && c.args.includes("expand_aliases"));
