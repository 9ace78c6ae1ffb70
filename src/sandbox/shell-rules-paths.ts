// The command audit's rules about WHERE a command writes, whatever shape the write takes: git's own configuration
// and hooks inside a repository, and the home directory outside the workspace. The table itself is SHELL_RULES in
// shell-audit.ts; these rules ask (never "edit"): both places hold code the user's own tools run later, on the host,
// outside any sandbox (`git status` runs core.fsmonitor, `git commit` runs .git/hooks/*, the shell runs ~/.bashrc,
// deerflow reads a trusted ~/.deerflowrc).
//
// Decided:
// - A command is judged by the words it is given, not by a per-program model of its output flags: a word naming such
//   a path (an operand, an option value `-o ~/x`, `--output=$HOME/x`, `-fprintf ~/x`, a sed script `w $HOME/x`,
//   inline interpreter code) asks unless the program is known to only read (shell-read-only.ts). Programs grow output
//   flags faster than a list of them can (split, csplit, cmake -E, xxd -r, ssh-keygen -f, openssl -out …).
// - Reading is allowed: `ls ~`, `cat ~/notes.txt`, `grep -r TODO ~/src`, `git -C ~/other log`.
// - The home directory is `~`, `~user`, `$HOME`, `${HOME}` and the literal path ($HOME at audit time). The audit sees
//   only the command, not the workspace; a literal path inside the directory deerflow was started in (the default
//   bound workspace) is not counted, so an absolute path into the project does not ask.
// - git's control files: `.git/config`, `.git/hooks/…`, `.git/info/…`, `.git/modules/…` (a submodule's config and
//   hooks), and a `.git` directory itself as a destination (`cp -r x .git`, `cd .git`). `.gitmodules` is not: it is
//   ordinary tracked content and git refuses its code-running `update = !cmd` keys.
import { homedir } from "node:os";
import { INTERPRETERS, SHELLS, type SimpleCommand } from "./shell-command.js";
import { readsOnly } from "./shell-read-only.js";

/** Output redirections (`>`, `>>`, `&>`…) of the command: these write whatever the program is. */
const writtenRedirects = (c: SimpleCommand) => c.redirects.filter((r) => /[>]/.test(r.op)).map((r) => r.target);
/** Inline code fed to a shell or interpreter on stdin (a heredoc or here-string). */
const stdinCode = (c: SimpleCommand) => (c.stdinText !== undefined && (SHELLS.test(c.name) || INTERPRETERS.test(c.name)) ? [c.stdinText] : []);

/** The words the rules look at: all of them for a program that may write, only its output redirections otherwise. */
function wordsThatMayWrite(c: SimpleCommand, cdWrites: boolean): string[] {
  if (readsOnly(c, { cdWrites })) return writtenRedirects(c).map(gitSpelled);
  return [...c.args, ...writtenRedirects(c), ...stdinCode(c)].map(gitSpelled);
}

/**
 * The word with each pattern segment that bash could expand to `.git` written as `.git`: `cp cfg .gi?/config` wrote
 * git's config unasked (A27-8). A segment must start with a literal dot to match a dot file, as in bash.
 */
const gitSpelled = (word: string) => (/[*?[]/.test(word) ? word.replace(/(?<=^|[\s/=:'"])\.[^\s/'"]*[*?[][^\s/'"]*/g, (seg) => (matchesName(seg, ".git") ? ".git" : seg)) : word);

/** Whether the glob `pattern` (`*`, `?`, `[…]`) matches `name`: linear in both, never a backtracking regex (the
 *  pattern is the model's). */
function matchesName(pattern: string, name: string): boolean {
  let reach = new Set([0]); // positions in `name` reachable after the pattern so far
  for (let i = 0; i < pattern.length && reach.size > 0; i++) {
    const c = pattern[i]!;
    const next = new Set<number>();
    if (c === "*") {
      for (let at = Math.min(...reach); at <= name.length; at++) next.add(at);
    } else {
      const close = c === "[" ? pattern.indexOf("]", i + 2) : -1;
      const one = close > 0 ? bracket(pattern.slice(i + 1, close)) : (ch: string) => c === "?" || ch === c;
      for (const at of reach) if (at < name.length && one(name[at]!)) next.add(at + 1);
      if (close > 0) i = close;
    }
    reach = next;
  }
  return reach.has(name.length);
}

/** A bracket expression's test (`[!a-c]`, `[gG]`). */
function bracket(body: string): (ch: string) => boolean {
  const negate = /^[!^]/.test(body);
  const set = negate ? body.slice(1) : body;
  const has = (ch: string) => [...set.matchAll(/(.)-(.)|(.)/gs)].some((m) => (m[3] !== undefined ? m[3] === ch : m[1]! <= ch && ch <= m[2]!));
  return (ch) => has(ch) !== negate;
}

// --- git's control files

const GIT_CONTROL = /(?:^|[^\w.-])\.git\/+(?:config(?![\w.-])|hooks(?![\w.-])|info(?:\/|$)|modules\/)/;
/** `.git` itself as a path (`cp -r x .git`, `cd .git`), but not `--git-dir=.git` given to git. */
const GIT_DIR_WORD = /^(?:.*\/)?\.git\/*$/;

/**
 * Any path inside a `.git` directory, written by a program other than git: `rm .git/objects/pack/*` destroys history
 * the rewind snapshot does not hold, `echo ../gd > .git/commondir` moves the repository's config and hooks elsewhere.
 */
const GIT_INTERNAL = /(?:^|[^\w.-])\.git\/+[^\s'"]/;

export function writesGitControl(c: SimpleCommand): boolean {
  return wordsThatMayWrite(c, true).some((w) => GIT_CONTROL.test(w) || (c.name !== "git" && GIT_DIR_WORD.test(w)));
}
export function writesGitInternals(c: SimpleCommand): boolean {
  return c.name !== "git" && wordsThatMayWrite(c, true).some((w) => GIT_INTERNAL.test(w));
}
export const GIT_CONTROL_REASON = "writes git's configuration or hooks (.git/config, .git/hooks), which run commands later on your host";
export const GIT_INTERNALS_REASON = "writes inside .git (history, refs or where git finds its config), which rewind cannot restore";

// --- the home directory

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const HOME_WORD = /(?:^|[\s=:'",])~(?:[a-z_][\w-]*)?(?:\/|$|[\s'",;)])|\$\{?HOME\b/;

/** The home directory's literal path, when it is one worth matching (not unset, not the root). */
function homePath(): string | undefined {
  const h = (process.env.HOME || homedir()).replace(/\/+$/, "");
  return h.length > 1 ? h : undefined;
}

/** Every literal home path in the word lies inside the directory deerflow started in (the project). */
function insideProject(word: string, home: string): boolean {
  const cwd = process.cwd().replace(/\/+$/, "");
  if (!cwd.startsWith(`${home}/`)) return false;
  const at = new RegExp(`${escape(home)}(?=/|$)`, "g");
  for (let m = at.exec(word); m; m = at.exec(word)) {
    const rest = word.slice(m.index);
    if (!(rest === cwd || rest.startsWith(`${cwd}/`))) return false;
  }
  return true;
}

/** `//` and `/./` spell the same path (`/var/tmp//u/home/x`): compared in the form the kernel resolves. */
const tidy = (word: string) => word.replace(/\/(?:\.\/)+/g, "/").replace(/\/{2,}/g, "/");
const GLOB = /[*?[{]/;

/** An absolute path whose glob could expand to the home directory (`/var/tmp/u*` for /var/tmp/u1/home). */
function globReachesHome(word: string, home: string): boolean {
  for (const m of word.matchAll(/(?:^|[\s=:'",])(\/[^\s'",;)]*)/g)) {
    const path = m[1]!;
    const at = path.search(GLOB);
    if (at >= 0 && home.startsWith(path.slice(0, at))) return true;
  }
  return false;
}

export function namesHome(raw: string): boolean {
  const word = tidy(raw);
  if (HOME_WORD.test(word)) return true;
  const home = homePath();
  if (home === undefined) return false;
  if (globReachesHome(word, home)) return true;
  const literal = new RegExp(`(?:^|[\\s=:'",])${escape(home)}(?=/|$|[\\s'",;)])`);
  return literal.test(word) && !insideProject(word, home);
}

/**
 * Also a variable set to the home directory in the same command line (`h=$HOME; … > $h/x`): the audit does not
 * follow the value through, so the assignment itself counts as naming the home.
 */
export function touchesHome(c: SimpleCommand): boolean {
  return wordsThatMayWrite(c, false).some(namesHome) || c.assigns.some((a) => !a.heldCode && namesHome(a.value));
}
export const HOME_REASON = "touches your home directory outside the workspace (a program that may write there)";
