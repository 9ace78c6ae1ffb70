// The command audit without a sandbox. Without bubblewrap a command runs on the host as the user: the rules in
// shell-audit.ts catch mistakes and the common shapes, but no list of spellings can bound what code does (perl's
// `readpipe`, `${PWD%/*}/.bashrc`, a symlink to `..` all reached the home directory in adversarial passes). So here
// only commands known to only read run unasked, and those ask too when they read where credentials live.
//
// Decided:
// - Read-only is the shared list (shell-read-only.ts), with no output redirection to a file and no code it runs.
//   Everything else asks, edits included: an "edit" by bash cannot be bounded to the workspace without a sandbox
//   (write_file and edit_file can, and stay edits). `yolo`/`--yes` with --dangerously-run-unconfined still approve
//   all, by design.
// - Reading outside the workspace asks: a command run from elsewhere (`cd ~ && cat .s*/id_rsa`), or a word that names
//   the home directory or climbs out with `..`. Reading a credential file (vocabulary/secret-paths.ts,
//   /proc/*/environ where the API key is) asks by name too. Given the workspace, the file system is followed too
//   (unconfined-paths.ts): a symlink the repository ships, a glob through one, a word known only at run time. Tool
//   results are masked for secrets besides (middleware/tool-result-secret-masking.ts).
import { HOME_SECRET_DIRS, HOME_SECRET_FILES, SYSTEM_SECRET_FILES } from "../vocabulary/secret-paths.js";
import { existsSync } from "node:fs";
import type { SimpleCommand } from "./shell-command.js";
import { commandOnlyReads, readerWithUnlistedOption } from "./shell-read-only.js";
import { runsUnreadCode } from "./shell-inline-code.js";
import { sqliteReadsUnseenPipe } from "./shell-rules-io.js";
import { namesHome } from "./shell-rules-paths.js";
import { isMountPath } from "./paths.js";
import { notLiteral } from "./unconfined-literal.js";
import { unlistedOption } from "./unconfined-options.js";
import { type ThreadFolders, leavesWorkspaceByLinks } from "./unconfined-paths.js";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const SECRET_WORD = new RegExp(
  `(?:^|[/\\s=:'",])(?:${[...HOME_SECRET_DIRS, ...HOME_SECRET_FILES].map(escape).join("|")})(?=$|[/\\s'",;)])|${SYSTEM_SECRET_FILES.map(escape).join("|")}|/proc/\\S*environ`,
);

export const UNCONFINED_REASON = "no sandbox here (bubblewrap is not available): this command would run on your host as you, and only commands known to only read run unasked";
export const UNCONFINED_SECRET_REASON = "no sandbox here (bubblewrap is not available): this command reads where credentials are kept";
export const UNCONFINED_OUTSIDE_REASON = "no sandbox here (bubblewrap is not available): this command reaches outside the workspace";
export const UNCONFINED_OPTION_REASON = "no sandbox here (bubblewrap is not available): an option not on this program's read-only list";
export const UNCONFINED_SIGNAL_REASON = "no sandbox here (bubblewrap is not available): this command signals or stops processes, and on your host that reaches every process of yours";
/** Programs that signal or stop processes other than their own children (a sandbox's PID namespace bounds them). */
const SIGNALS_OTHERS = /^(?:kill|pkill|killall|killall5|skill|snice|xkill|loginctl|systemctl|shutdown|reboot|poweroff|halt|telinit|init)$/;
/** Tools that attach to a running process by its pid (`strace -p`, `gdb -p`, `prlimit --pid`) and can kill or stop
 *  it (strace's `inject=…:signal=KILL`, gdb's `signal`, a CPU limit of 0: the twenty-ninth pass's A29a-4). */
const ATTACHES = /^(?:strace|ltrace|gdb|lldb|prlimit|gcore|perf|bpftrace|py-spy|rbspy|pstack|eu-stack)$/;
const attachesToProcess = (c: SimpleCommand) =>
  c.via.some((v) => v.endsWith(" -p")) ||
  (ATTACHES.test(c.name) && c.args.some((a) => /^(?:-[\w#]*p\d*|--pid(?:=.*)?|--attach(?:=.*)?)$/.test(a))) ||
  // gdb's own `attach <pid>` given with -ex, or a pid after the program (A30a-3)
  (/^(?:gdb|lldb)$/.test(c.name) && c.args.some((a) => /\battach\b|^\d+$/.test(a)));
export const UNCONFINED_GIVEN_REASON = "no sandbox here (bubblewrap is not available): this command runs a command line it is given (or names its files from input), which the audit does not read";
/** Launchers whose command line the grammar does not take apart (`tmux new -d "…"`, `sg grp "…"`, `at`): the fifteenth
 *  pass deleted a home through two of them under --yes. */
const RUNS_GIVEN = /^(?:tmux|screen|sg|su|runuser|script|watch|at|batch|dtach|abduco|expect|systemd-run|byobu|parallel)$/;
/** A package runner's inline command line (`npm exec -c "…"`, `npx -c "…"`). */
const runsInline = (c: SimpleCommand) => /^(?:npm|npx|pnpm|pnpx|yarn|bun|bunx)$/.test(c.name) && c.args.some((a) => /^(?:-c|--call)(?:=|$)/.test(a));
export const UNCONFINED_SPELLING_REASON = "no sandbox here (bubblewrap is not available): this command line is not plain words, and only plain ones run unasked";

/** An absolute path outside the project deerflow started in and its /mnt/user-data view (/dev/null is nothing). */
function absoluteOutside(w: string): boolean {
  if (!w.startsWith("/") || /^\/dev\/null$/.test(w) || isMountPath(w)) return false;
  const project = process.cwd().replace(/\/+$/, "");
  return !(w === project || w.startsWith(`${project}/`));
}

/**
 * Run from outside the workspace, or given a word that names the home directory, climbs out with `..`, or is an
 * absolute path elsewhere (a glob over /proc's environ files, /run/secrets: the sixth pass). A `..` inside a script
 * word counts too (`awk '{print > "../x"}'`, `sqlite3 x.db "VACUUM INTO '../y'"`: A28-10), and so does an
 * assignment's value (`GIT_WORK_TREE=.. git stash -u` emptied a home: A28-13).
 */
const CLIMBS = /(?:^|[/'"\s=(,:<>])\.\.(?:[/'"\s);,]|$)/;
const readsOutside = (c: SimpleCommand) =>
  c.cwd.at !== "workspace" ||
  [...c.args.flatMap(withGluedValue), ...c.redirects.map((r) => r.target)].some((w) => namesHome(w) || CLIMBS.test(w) || absoluteOutside(w)) ||
  c.assigns.some((a) => namesHome(a.value) || CLIMBS.test(a.value) || (/^GIT_/.test(a.name) && absoluteOutside(a.value)));

/** Where a path glued to an option may start: `..`, `~`, or `/` (`-Isrc/inc` stays a relative path: where the option
 *  letters end is not known). */
const GLUED_PATH = /^-[A-Za-z]+((?:\.\.|~|\/).*)$/;

/**
 * A word and the path an option holds glued to it: `-MF../x`, `-qo/tmp/x`, `-I~/inc`, `--output=../x` (A25-10). An
 * absolute one counts when its top-level folder exists here: `cp -t/work/other` wrote into another project (A29a-11;
 * macOS has `/Users`, `/Volumes`), while `-Isrc/include` names no `/include`.
 */
function withGluedValue(w: string): string[] {
  const short = GLUED_PATH.exec(w)?.[1];
  const glued = short !== undefined && short.startsWith("/") && !existsSync(`/${short.split("/")[1] ?? ""}`) ? undefined : (short ?? /^--?[A-Za-z][\w-]*=(.+)$/.exec(w)?.[1]);
  return glued === undefined ? [w] : [w, glued];
}

export const UNCONFINED_CD_REASON = "no sandbox here (bubblewrap is not available): this sets CDPATH or cdable_vars, which send a later `cd` somewhere the audit cannot follow";
/** Why this simple command asks when it runs unconfined, or undefined when it only reads (inside `workspace`). */
export function unconfinedRisk(c: SimpleCommand, workspace?: string, folders?: ThreadFolders): string | undefined {
  // Credentials and outside first: a command that is not read-only and reaches out (`find ~ -exec truncate …`) asks for that reason,
  // which only a person may approve (needsPerson), not for the generic one.
  const words = [...c.args, ...c.redirects.map((r) => r.target)];
  if (words.some((w) => SECRET_WORD.test(w))) return UNCONFINED_SECRET_REASON;
  if (SIGNALS_OTHERS.test(c.name) || attachesToProcess(c)) return UNCONFINED_SIGNAL_REASON;
  if (RUNS_GIVEN.test(c.name) || runsInline(c) || runsUnreadCode(c) || sqliteReadsUnseenPipe(c)) return UNCONFINED_GIVEN_REASON;
  // `xargs -a list truncate -s0`: the files a writer is handed come from input the audit never sees.
  if (c.via.some((w) => w === "xargs") && !commandOnlyReads(c)) return UNCONFINED_GIVEN_REASON;
  if (c.name !== "" && readsOutside(c)) return UNCONFINED_OUTSIDE_REASON;
  // Where the words lead (links, words known only when the command runs) counts for writers as for readers: the
  // fourteenth pass emptied home files with `truncate -s0 "${PWD%/*}/notes.txt"` and through a link to `..`.
  const link = c.name !== "" && workspace ? leavesWorkspaceByLinks(c, workspace, folders) : undefined;
  if (link) return `${UNCONFINED_OUTSIDE_REASON} (${link})`;
  const option = unlistedOption(c);
  const optionReason = `${UNCONFINED_OPTION_REASON} (${c.name} ${option})`;
  // A reader given an option off its list is no longer "read-only" (read-only-options.ts): say which option.
  if (!commandOnlyReads(c)) return option !== undefined && readerWithUnlistedOption(c) ? optionReason : UNCONFINED_REASON;
  // `CDPATH=..` alone on a line sends the next `cd` elsewhere; `rg --files | xargs rg` makes file names options.
  if (c.assigns.length > 0 || c.via.length > 0) return UNCONFINED_REASON;
  return option === undefined ? undefined : optionReason;
}

/** The audit's verdict on a whole line without a sandbox: a line that is not plain words (unconfined-literal.ts)
 *  asks even when every command in it only reads; a verdict above allow (a block, a more specific ask) stands. */
export function plainOrAsk(command: string, verdict: { verdict: "allow" | "edit" | "ask" | "block"; reason?: string }): typeof verdict {
  const spelled = verdict.verdict === "allow" ? notLiteral(command) : undefined;
  return spelled ? { verdict: "ask", reason: `${UNCONFINED_SPELLING_REASON}: ${spelled}` } : verdict;
}

/** Why a command asks without a sandbox for no reason but the missing sandbox: it is not known to only read. */
const GENERIC_REASONS = [UNCONFINED_REASON, UNCONFINED_SPELLING_REASON, UNCONFINED_OPTION_REASON];

/**
 * Without a sandbox, an ask the audit has a specific concern about (a delete, the home directory, code it cannot read,
 * git discarding work, a package install …) is for a person: `--yes` and yolo approve only the asks that are there
 * because no sandbox bounds the command. The twelfth pass deleted a home under yolo with spellings no rule blocks
 * (`python3 -c 'shutil.rmtree(os.path.expanduser("~"))'`, an alias, `find ~ -exec truncate`): each asked, and an
 * automatic yes is not a person reading the reason.
 */
export function needsPerson<T extends { verdict: "allow" | "edit" | "ask" | "block"; reason?: string }>(verdict: T): T & { needsPerson?: boolean } {
  return verdict.verdict !== "ask" || isGenericAsk(verdict.reason) ? verdict : { ...verdict, needsPerson: true };
}

/** An ask only because no sandbox bounds the command (see needsPerson): any more specific reason outranks it. */
export function isGenericAsk(reason: string | undefined): boolean {
  return GENERIC_REASONS.some((r) => reason === r || reason?.startsWith(`${r}:`) || reason?.startsWith(`${r} (`));
}
