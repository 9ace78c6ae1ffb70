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
export const DELETE_CODE =
  /rmtree|rm_rf|Deno\.remove|removeSync|rimraf|rmSync|rmdirSync|remove_tree|\brmdir|\bunlink|os\.remove|\.rm\(|\bfs\.rm|FileUtils\.rm|File\.delete|Dir\.delete|\brm\(.*recursive/;
export const DYNAMIC_CODE =
  /getattr|__import__|importlib|\beval\b|&\s*[{$]|\bdo\s*[('"$q]|->\s*\(|\bsyscall\b|\bexec\s*\(|\bcompile\s*\(|new\s+Function|\bFunction\s*\(|require\s*\(\s*[^'"`\s)]|\.send\s*\(|constantize|\bglobals\s*\(\s*\)\s*\[/;
/**
 * Inline code that writes, renames, truncates, links, copies or unpacks files: an edit whichever interpreter makes it
 * (ask mode asks). Python's `os.rename`/`os.truncate`, node's `fs.*Sync` and promise forms whatever the object is
 * called (`require("fs").renameSync`, a destructured `copyFileSync(`, `fsp.rename(`), an open for writing (`"w"`,
 * `"r+"`, `O_WRONLY`), perl's builtins without parentheses (`truncate $f, 0`, `symlink "a", "b"`), pathlib's links
 * and an archive unpacked (`extractall`): the thirty-eighth pass ran each in ask mode with no edit prompt.
 */
export const WRITE_CODE = new RegExp(
  [
    /\b(?:truncate|ftruncate|rename|copyFile|cp|link|symlink|mkdir|mkdtemp|writeFile|appendFile)(?:Sync)?\s*\(/.source,
    // a mode after the path (`open(p, "w")`, `openSync(p, "r+")`), pathlib's `.open("w")`, flags, `mode="a"`
    /open(?:Sync)?\s*\([^)]*,\s*['"]MODE['"]|\.open\s*\(\s*['"]MODE['"]\s*[,)]|\bO_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND)\b|\bmode\s*=\s*['"][wax]/.source.replace(
      /MODE/g,
      /(?:[rbt]?[wax][bt+xs]*|[rbt]+\+[bt]*)/.source,
    ),
    /write_(?:text|bytes)|\bwriteFile|appendFile|createWriteStream|\bfs\.(?:write|copy|cp|rename|mkdir|rm|unlink|truncate|link|symlink)|shutil\./.source,
    /os\.(?:rename|replace|remove|unlink|mkdir|makedirs|rmdir|link|symlink|truncate)|\.(?:touch|mkdir|unlink|rename|symlink_to|hardlink_to|link_to)\s*\(/.source,
    /(?:tarfile|zipfile|TarFile|ZipFile)[\s\S]*\.extract(?:all)?\s*\(/.source,
    /\b(?:truncate|rename|link|symlink|mkdir)\s*\(?\s*(?:['"$]|q[qw]?\s*[({/])/.source,
    /File\.(?:write|open\s*\([^)]*['"][wa])|open\s*\(?[^;]*['"]\s*\+?>/.source,
  ].join("|"),
);

/** Inline code that names the home directory: a write there can plant code the user's own tools run later. */
export const HOME_CODE =
  /\bnetrc\b|\bkeyring\b|expanduser|homedir\s*\(|Path\.home|process\.env\.HOME\b|process\.env\[\s*['"]HOME|environ(?:\.get)?\s*[[(]\s*['"]HOME|getenv\s*\(\s*['"]HOME|ENV\s*\[\s*['"]HOME|\$ENV\{\s*['"]?HOME|Deno\.env\.get\s*\(\s*['"]HOME|posix_getpwuid|Dir\.home|File\.expand_path|['"]~\/|\$\{?HOME\b/;
/** A string literal naming a path outside the workspace (an absolute one but /tmp and the null device, or `../`). */
export const OUTSIDE_PATH_CODE =
  /['"`](?:\/(?!tmp\/|dev\/(?:null|stdout|stderr)['"`])|\.\.\/)|dirname\s*\(\s*(?:os\.getcwd|process\.cwd|Deno\.cwd|Dir\.pwd|getcwd)|\bcwd\(\)\.parent|\bpardir\b|\bchdir\s*\(\s*['"]\.\.['"]/;
/** Inline code that opens network connections. */
export const NET_CODE =
  /urllib|\brequests\.|http\.client|httplib|\bsocket\b|\bfetch\s*\(|\bhttps?\.(?:request|get)\b|\bnet\.(?:connect|createConnection|Socket)|\btls\.connect|\bdgram\b|require\s*\(\s*['"](?:node:)?(?:https?|http2|net|tls|dgram)['"]|from\s+['"](?:node:)?(?:https?|http2|net|tls|dgram)['"]|Net::HTTP|open-uri|URI\.open|LWP|IO::Socket|HTTP::Tiny|\baxios\b|\bundici\b|XMLHttpRequest|WebSocket|aiohttp|\bhttpx\b|smtplib|ftplib|telnetlib|paramiko|pycurl|curl_exec|fsockopen|file_get_contents\s*\(\s*['"]https?:/;
/**
 * Inline code that starts a process, in any of the languages' spellings: perl/ruby `system "…"`, `exec qw(…)`, `qx{}`,
 * a pipe open (`open(F, "|-", …)`), lua `os.execute`/`io.popen`, python `from os import system`, `os.spawn*`,
 * `posix_spawn`, R `system2`/`shell`, perl `readpipe`, `IPC::Open3`, `open(F, q(cmd|))`, `fork`. Broad on purpose: the
 * audit cannot follow the code, so any spelling asks (and without a sandbox any interpreter asks: shell-unconfined.ts).
 */
export const SHELL_OUT_CODE =
  /\bsystem2?\b|Deno\.(?:run|Command)\b|\bexec(?:[lv]p?e?)?\b|\bqx\b|\bspawn\w*|popen|os\.execute|posix_spawn|subprocess|child_process|execSync|spawnSync|%x[({[]|`[^`]+`|IO\.popen|Open3|proc_open|shell_exec|passthru|['"]\|-['"]|['"]-\|['"]|\bopen\b[^;]*\||\bshell\s*\(|\bpipe\s*\(|readpipe|IPC::|\bOpen[23]\b|\bfork\b/;
/** Signals from inline code (`os.kill(-1, 9)`, `process.kill(-1)`, perl's `kill 9, -1`): without a PID namespace, any of the user's processes. */
export const SIGNAL_CODE =
  /\b(?:os\.killpg?|process\._?kill|Process\.kill|killpg|posix_kill|Deno\.kill|pidfd_send_signal|pthread_kill|t?gkill)\s*\(|process\s*\[\s*['"`]_?kill|\bimport\s+(?:\w+\s*,\s*)*kill\b|\bkill\s*\(?\s*['"]?(?:-?\d|KILL|TERM|HUP|SIG)/;

/** Inline interpreter code: the `-c`/`-e` argument or a heredoc/here-string on stdin, and the modules it loads
 *  from the command line (perl `-MIPC::Open3`, ruby `-ropen3`), which the code then calls by a short name. */
export function inlineCode(c: SimpleCommand): string {
  if (!INTERPRETERS.test(c.name)) return "";
  const i = codeArg(c);
  // A module run as a script counts too (`python3 -m netrc` prints the file: the thirtieth pass's A30a-10).
  const modules = c.args.flatMap((a, k) => (/^-[mMr]./.test(a) ? [a] : /^-[A-Za-z]*[mMr]$/.test(a) ? [c.args[k + 1] ?? ""] : []));
  return [i >= 0 ? c.args[i]! : "", c.stdinText ?? "", ...modules, ...c.args.flatMap(gluedCode), ...c.args.flatMap(dataUrlCode)].join("\n");
}

/**
 * A `data:` URL is a module's whole source: node runs one given to `--import`, `--experimental-loader`/`--loader` or
 * `--require` (`node --import 'data:text/javascript,…'`), deno and bun one given as the script. Its code is inline
 * code, read like `node -e` (the thirty-eighth pass ran `child_process` and `fs.rmSync` through it unread), percent-
 * or base64-encoded as the URL says.
 */
function dataUrlCode(arg: string): string[] {
  const m = /^(?:--?[\w-]+=)?data:([^,]*),([\s\S]*)$/i.exec(arg);
  if (!m) return [];
  const [, type, body] = m as unknown as [string, string, string];
  try {
    return [/;base64$/i.test(type) ? Buffer.from(decodeURIComponent(body), "base64").toString("utf8") : decodeURIComponent(body)];
  } catch {
    return [body];
  }
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
