// Which simple commands only read: the programs the audit lets name any path (shell-rules-paths.ts) and the only
// commands that run unasked when there is no sandbox (shell-audit.ts). One list for both, so a program proven to
// write (an output flag, a pager it runs) is taken off for both.
//
// Excluded on purpose: sort (-o, --compress-program), uniq and xxd (write their second operand), git subcommands that
// write. The options each program may take are an allow list (read-only-options.ts): an option not on it (less's
// lesskey or log file, rg --pre, tree -o/-R/-H, ag --pager, `git grep -O`, `--output`) makes the command not read-only.
import type { SimpleCommand } from "./shell-command.js";
import { codeEnvVar } from "./code-env.js";
import { gitArgs } from "./shell-git.js";
import { gitSubOptionUnlisted, readerOptionUnlisted } from "./read-only-options.js";

/** A program found on PATH or named by its system path: `./cat` or `bin/ls` is whatever the workspace put there. */
export const systemProgram = (c: SimpleCommand) => c.programPath === undefined || /^\/(?:usr\/)?(?:local\/)?s?bin\/[^/]+$/.test(c.programPath);

const READ_ONLY =
  /^(?:cat|tac|head|tail|ls|tree|stat|file|wc|grep|egrep|fgrep|ag|diff|cmp|du|df|realpath|readlink|dirname|basename|test|\[|\[\[|echo|printf|pwd|cd|pushd|popd|which|type|md5sum|sha1sum|sha256sum|sha512sum|b2sum|nl|cut|tr|column|jq|less|more|rg|find|git|true|false|uname|id|whoami)$/;
const GIT_READ = /^(?:log|show|status|diff|blame|ls-files|ls-tree|rev-parse|grep|shortlog|describe|cat-file|rev-list)$/;
const FIND_ACTS = /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/;

const STREAM = /^\/dev\/(?:std(?:out|err|in)|fd\/\d+)$/;
/** The command points a descriptor at a file for reading (`3<f`, `< f`, `2<>f`); a heredoc or here-string is not one. */
export const repointsDescriptor = (c: SimpleCommand) => c.redirects.some((r) => r.op.includes("<") && !r.op.startsWith("<<") && !/^\/dev\/null$/.test(r.target));

/**
 * A target the command writes that is not a file: /dev/null, the terminal, a descriptor (`2>&1`), and the standard
 * streams (/dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N) unless the same command points a descriptor at a file:
 * opening /dev/fd/3 re-opens, truncating, whatever file descriptor 3 holds, so `3<~/.bashrc >/dev/fd/3` writes
 * ~/.bashrc (the fifth adversarial pass). `exec 3<file`, re-pointing for later commands, is an edit itself.
 */
/** The command writes to a standard stream or descriptor by its /dev path (`>/dev/fd/3`, `tee /dev/stderr`). */
export const writesStream = (c: SimpleCommand) => c.redirects.some((r) => /[>]/.test(r.op) && STREAM.test(r.target)) || c.args.some((a) => STREAM.test(a));

export const notAFile = (c: SimpleCommand, r: { op: string; target: string }) =>
  /^\/dev\/(?:null|tty)$/.test(r.target) || (/&$/.test(r.op) && /^(?:\d+|-)$/.test(r.target)) || (STREAM.test(r.target) && !repointsDescriptor(c));

/** The program only reads, whatever it is given (its own output redirections are judged apart): a read-only program
 *  whose every option is on its allow list (read-only-options.ts), with no word that may become an option that
 *  writes or runs when bash expands it (runTimeOption), and for git a read sub-command. `cdWrites`: count
 *  `cd`/`pushd` as writing (a destination that matters, such as `.git`). */
export function readsOnly(c: SimpleCommand, { cdWrites }: { cdWrites: boolean }): boolean {
  if (!READ_ONLY.test(c.name)) return false;
  if (cdWrites && /^(?:cd|pushd)$/.test(c.name)) return false;
  if (c.name === "find" && c.args.some((a) => FIND_ACTS.test(a))) return false;
  if (runTimeOption(c)) return false;
  const sub = c.name === "git" ? gitArgs(c) : undefined;
  // `git branch` lists only with these and no name (a name makes a branch): Claude Code's /commit runs --show-current.
  if (sub?.[0] === "branch") return sub.length > 1 && sub.slice(1).every((a) => /^(?:--show-current|--list|-l|-a|--all|-r|--remotes|-v|-vv|--verbose)$/.test(a));
  if (sub !== undefined && !GIT_READ.test(sub[0] ?? "")) return false;
  return readerOptionUnlisted(c, sub) === undefined;
}

/** A word known only when bash expands it (`${x:---pre=rm}`, `$(echo -o)`) may be an option: only after `--` it is not. */
export function dynamicBeforeOperands(c: SimpleCommand): boolean {
  const end = c.args.findIndex((a, i) => a === "--" && !c.dynamicArgs[i]);
  return c.dynamicArgs.some((d, i) => d && (end < 0 || i < end));
}

/** Read-only programs that have an option which writes or runs a program (`rg --pre`, `tree -o`, `git log --output`,
 *  `find -delete`, `sort -o`, `file -C` writes magic.mgc, `less +!cmd`): for them a word that may become an option
 *  when bash expands it is one. */
const OPTION_CAN_WRITE = /^(?:rg|ag|tree|less|more|git|find|sort|fd|file)$/;
/** find reads a word starting with `-`, `(` or `!` as its expression even after `--`. */
const NO_END_OF_OPTIONS = /^(?:find)$/;

/** An unquoted glob whose matches may start with `-` or `+` (an option, less's `+cmd`): `*`, `[-]*`, `?x`. One that
 *  starts with a literal name character (`src/*`, `./*`, `*`-free prefix `a*`) matches only names starting with it. */
const globMayBeOption = (c: SimpleCommand, i: number) => c.globArgs?.[i] === true && !/^[\w./~]/.test(c.args[i] ?? "");

/**
 * A word whose value bash decides at run time stands where this program reads an option that writes or runs a
 * program: an expansion or a glob (the repository chose the file names: a shipped `--pre=sh` made plan mode's
 * `rg -n TODO *` run every file through sh, the seventeenth pass's PM10) before `--`. Programs with no such option
 * (cat, grep, ls, wc, head …) read a name like `--pre=sh` as an option that only reads, or refuse it, so `cat src/*.ts`
 * and `grep -n foo *.py` stay read-only. printf takes `-v` (sets a variable) only first; `[`/`test` evaluate
 * `-v 'a[$(…)]'`'s subscript as code, so a glob anywhere in them counts.
 */
export function runTimeOption(c: SimpleCommand): boolean {
  const glob = (i: number) => globMayBeOption(c, i);
  if (c.name === "printf") return c.dynamicArgs[0] === true || glob(0);
  if (c.name === "test" || c.name === "[") return c.args.some((_, i) => glob(i));
  if (!OPTION_CAN_WRITE.test(c.name)) return false;
  const literal = (i: number) => !c.dynamicArgs[i] && c.globArgs?.[i] !== true;
  const end = NO_END_OF_OPTIONS.test(c.name) ? -1 : c.args.findIndex((a, i) => a === "--" && literal(i));
  return c.args.some((_, i) => (c.dynamicArgs[i] || glob(i)) && (end < 0 || i < end));
}

/** A read-only program (a git read) given an option off its allow list, or a word that may become an option that
 *  writes or runs a program when bash expands it (runTimeOption): it may write or run a program (`tree -R`,
 *  `ag --pager`, `rg ${x:---pre=rm}`, `rg TODO *`), so ask mode asks as for an edit. */
export function readerWithUnlistedOption(c: SimpleCommand): boolean {
  if (!READ_ONLY.test(c.name)) return false;
  if (runTimeOption(c)) return true;
  const sub = c.name === "git" ? gitArgs(c) : undefined;
  if (sub !== undefined) return GIT_READ.test(sub[0] ?? "") && gitSubOptionUnlisted(sub) !== undefined; // globals: shell-git.ts
  return readerOptionUnlisted(c, undefined) !== undefined;
}

/**
 * Read-only "as far as it matters" is not enough where nothing confines the command: git's read subcommands run the
 * programs a planted config names (core.fsmonitor, textconv), pagers run commands (less's lesskey, `git grep -O`,
 * ag --pager), and an assignment before a program (`LESSKEYIN=k less`, `RIPGREP_CONFIG_PATH=c rg`, `HOME=. git`)
 * points it at a config that does the same.
 */
const RUNS_CONFIGURED_CODE = /^(?:git|less|more|ag)$/;

/**
 * The simple command neither writes a file (program or redirection) nor runs anything but itself, whatever config it
 * finds. A command with no name is an assignment alone (`x=1`) or a redirection the grammar hangs on a whole list
 * (`a && b 2>/dev/null`).
 */
export function commandOnlyReads(c: SimpleCommand): boolean {
  if (c.name !== "" && (RUNS_CONFIGURED_CODE.test(c.name) || c.assigns.length > 0 || !systemProgram(c))) return false;
  // `PATH=./tools:$PATH` (or LD_PRELOAD…) alone on its line changes what every later `ls` is; `printf -v` sets any.
  if (c.name === "" && c.assigns.some((a) => a.name === "PATH" || codeEnvVar(a.name) !== undefined)) return false;
  if (c.name === "printf" && c.args.includes("-v")) return false;
  return (c.name === "" || readsOnly(c, { cdWrites: false })) && !c.redirects.some((r) => /[>]/.test(r.op) && !notAFile(c, r)) && c.code.length === 0;
}
