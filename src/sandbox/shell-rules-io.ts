// Helpers for the command audit's rules about programs that read or write on their own terms: tar's
// --remove-files, sqlite3 databases, editor scripts (ed/ex/vim), network commands fed run-time text, and variables
// whose value is a command line. The table itself is SHELL_RULES in shell-audit.ts.
import { codeEnvVar } from "./code-env.js";
import { type SimpleCommand, isFlag } from "./shell-command.js";
import { walkDown } from "./shell-cwd.js";

/** tar's `-C dir` / `--directory=dir` (where it reads and deletes), or undefined. */
export function tarDir(c: SimpleCommand): string | undefined {
  let dir: string | undefined;
  c.args.forEach((a, i) => {
    if (a === "-C" || a === "--directory") dir = c.args[i + 1];
    else if (a.startsWith("--directory=")) dir = a.slice(12);
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

/** Editor commands given on the command line: vim's `-c cmd`/`--cmd cmd`/`+cmd`. */
export function editorScripts(c: SimpleCommand): string[] {
  return c.args.flatMap((a, i) => (/^(?:-c|--cmd)$/.test(a) ? [c.args[i + 1] ?? ""] : /^\+./.test(a) ? [a.slice(1)] : []));
}
/** ed/ex/vim told to run a shell command: `!cmd` in a script or on stdin, `ed '!cmd'`, vim's system()/:terminal. */
export function editorRunsShell(c: SimpleCommand): boolean {
  if (/^(?:ed|red|ex)$/.test(c.name)) return /(?:^|\n)\s*(?:[.$,;\d]*\s*)?(?:r|w|e)?\s*!/.test(c.stdinText ?? "") || c.args.some((a) => a.startsWith("!")) || editorScripts(c).some(shellInVim);
  if (/^(?:vim?|nvim|gvim)$/.test(c.name)) return editorScripts(c).some(shellInVim) || shellInVim(c.stdinText ?? "");
  return false;
}
const shellInVim = (s: string) => /!|system\s*\(|\bterm(?:inal)?\b|\bpy(?:thon)?3?\b|\blua\b|\bperl\b|\bruby\b/.test(s);

const SQLITE_VALUED = /^-(?:cmd|init|separator|newline|nullvalue|vfs|maxsize|mmap|pagecache|lookaside|heap|escape)$/;
const SQL_WRITE = /\b(?:insert|update|delete|replace|create|drop|alter|attach|detach|vacuum|reindex)\b|\bpragma\s+\w+\s*=|(?:^|\n)\s*\.(?:import|restore|read|save|backup|clone|output|once)\b/i;
const SQL_SHELL = /(?:^|\n|;)\s*\.(?:shell|system|load)\b|\.(?:read|output|once)\s+['"]?\||\bload_extension\s*\(|\bedit\s*\(/i;
/**
 * sqlite3: "ask" on a database outside the workspace (an absolute path, `~`, `..`, the data home) or SQL that runs
 * shell commands or loads an extension; "edit" for a write statement (or SQL it reads from a pipe); else "allow".
 */
export function sqliteRisk(c: SimpleCommand): "ask" | "edit" | "allow" {
  const words: string[] = [];
  const cmds: string[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!;
    if (SQLITE_VALUED.test(a)) (a === "-cmd" || a === "-init" ? cmds : []).push(c.args[++i] ?? "");
    else if (!isFlag(a)) words.push(a);
  }
  const [db, ...sql] = words;
  const text = [...cmds, ...sql, c.stdinText ?? ""].join("\n");
  const outside = db !== undefined && db !== ":memory:" && (/^(?:\/|~|\$)/.test(db) || /(?:^|\/)\.deerflow(?:\/|$)/.test(db) || c.cwd.at !== "workspace" || walkDown(c.cwd, db).at !== "workspace");
  if (outside || SQL_SHELL.test(text) || c.args.includes("-init")) return "ask";
  if (SQL_WRITE.test(text) || (db !== undefined && text.trim() === "")) return "edit";
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
  if (/^(?:ed|red|ex|vim?|nvim|gvim)$/.test(c.name)) lines = [...editorScripts(c), ...(c.stdinText ?? "").split("\n"), ...(c.name === "ed" ? c.args : [])];
  else if (/^sqlite3?$/.test(c.name)) lines = [...c.args, ...(c.stdinText ?? "").split("\n")].flatMap((a) => a.split(/\n|;/));
  return lines.flatMap((l) => {
    const m = /^\s*(?::|[.$,;\d]*\s*(?:r|w|e)?\s*)!(.+)$/.exec(l) ?? /^\s*\.(?:shell|system)\s+(.+)$/.exec(l);
    return m ? [m[1]!] : [];
  });
}

/** Options that make a program run a command: tar's --to-command, zip -TT, git submodule foreach, aliases. */
export const RUNS_OPTION_COMMAND = (c: SimpleCommand): boolean =>
  (c.name === "tar" && c.args.some((a) => /^--(?:checkpoint-action=exec|to-command|use-compress-program|info-script|new-volume-script|rsh-command)|^-[IF]$/.test(a))) ||
  (c.name === "zip" && c.args.some((a) => /^(?:-TT|--unzip-command)/.test(a))) ||
  (c.name === "git" && c.args.includes("submodule") && c.args.includes("foreach")) ||
  (c.name === "alias" && c.args.length > 0) ||
  /^(?:parallel|sem|rush)$/.test(c.name) ||
  (c.name === "shopt" && c.args.includes("expand_aliases"));
