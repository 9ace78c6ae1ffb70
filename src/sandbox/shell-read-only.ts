// Which simple commands only read: the programs the audit lets name any path (shell-rules-paths.ts) and the only
// commands that run unasked when there is no sandbox (shell-audit.ts). One list for both, so a program proven to
// write (an output flag, a pager it runs) is taken off for both.
//
// Excluded on purpose: sort (-o, --compress-program), uniq and xxd (write their second operand), less/more with -o/-O
// (log file) or +cmd, rg --pre (runs a program), find with actions that write or run, tree -o (output file), git
// subcommands that write, `--output` and external diff drivers, `git grep -O` (opens a pager it is given).
import { type SimpleCommand } from "./shell-command.js";
import { gitArgs } from "./shell-git.js";

const READ_ONLY = /^(?:cat|tac|head|tail|ls|tree|stat|file|wc|grep|egrep|fgrep|ag|diff|cmp|du|df|realpath|readlink|dirname|basename|test|\[|\[\[|echo|printf|pwd|cd|pushd|popd|which|type|md5sum|sha1sum|sha256sum|sha512sum|b2sum|nl|cut|tr|column|jq|less|more|rg|find|git|true|false|uname|id|whoami)$/;
const GIT_READ = /^(?:log|show|status|diff|blame|ls-files|ls-tree|rev-parse|grep|shortlog|describe|cat-file|rev-list)$/;
const FIND_ACTS = /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/;

/** A redirection target that is not a file: /dev/null, the standard streams, a descriptor (`2>&1`). */
export const notAFile = (r: { op: string; target: string }) => /^\/dev\/(?:null|std(?:out|err|in)|tty|fd\/\d+)$/.test(r.target) || (/&$/.test(r.op) && /^(?:\d+|-)$/.test(r.target));

/** The program only reads, whatever it is given (its own output redirections are judged apart). `cdWrites`: count
 *  `cd`/`pushd` as writing (a destination that matters, such as `.git`). */
export function readsOnly(c: SimpleCommand, { cdWrites }: { cdWrites: boolean }): boolean {
  if (!READ_ONLY.test(c.name)) return false;
  if (cdWrites && /^(?:cd|pushd)$/.test(c.name)) return false;
  if (c.name === "find") return !c.args.some((a) => FIND_ACTS.test(a));
  if (c.name === "rg") return !c.args.some((a) => /^--pre(?:=|$)/.test(a));
  if (c.name === "tree") return !c.args.some((a) => /^-[a-zA-Z]*o/.test(a));
  if (/^(?:less|more)$/.test(c.name)) return !c.args.some((a) => /^(?:-[a-zA-Z]*[oO]|--log-file|--LOG-FILE)/.test(a) || a.startsWith("+"));
  if (c.name === "git") {
    const [sub, ...rest] = gitArgs(c);
    return GIT_READ.test(sub ?? "") && !c.args.some((a) => /^-c$|^--config-env|^--output(?:=|$)|^--ext-diff$/.test(a)) && !(sub === "grep" && rest.some((a) => /^(?:-O|--open-files-in-pager)/.test(a)));
  }
  return true;
}

/**
 * The simple command neither writes a file (program or redirection) nor runs anything but itself. A command with no
 * name is an assignment alone (`x=1`) or a redirection the grammar hangs on a whole list (`a && b 2>/dev/null`).
 */
export function commandOnlyReads(c: SimpleCommand): boolean {
  return (c.name === "" || readsOnly(c, { cdWrites: false })) && !c.redirects.some((r) => /[>]/.test(r.op) && !notAFile(r)) && c.code.length === 0;
}
