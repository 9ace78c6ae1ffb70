// Shell audit — a pure policy over one bash command line: "allow", "edit" (writes files: asks in `ask` mode only,
// like write_file), "ask" (ask first) or "block" (never run).
//
// How a command is read (shell-grammar.ts, shell-command.ts): tree-sitter-bash parses it; every simple command bash would run is
// judged, including those in `$(…)`, backticks, `<(…)`, `bash -c '<literal>'`, `eval '<literal>'`, `find -exec`
// and a literal heredoc fed to a shell (audited recursively), with wrappers (`sudo`, `env`, `xargs`, `timeout`…)
// seen through and the program name reduced to its basename (`/bin/rm`, `\rm` and `"rm"` are `rm`). The working
// directory is tracked through `cd` so `cd; rm -rf *` is judged as the home directory's deletion.
//
// Decided:
// - Quoted text is data: `echo "rm -rf /"` and `grep mkfs notes.txt` are allowed — only what the shell would run
//   is audited. Heredoc bodies are data unless fed to a shell or interpreter.
// - `rm -rf ./build`, `rm -r node_modules` are ask-first (recursive delete), not blocked: only the filesystem root,
//   the home directory and top-level system directories are blocked (also when reached by `cd`).
// - What the audit cannot resolve asks: a variable or substitution as the program, `eval`/`bash -c` of code built at
//   run time, code piped into a shell, `xargs rm`, deletes after a `cd` out of the workspace or somewhere unknown,
//   interpreter code that deletes or builds its calls at run time (getattr, eval). `--yes` approves these, by design:
//   it means "approve whatever would ask".
// - Edits: commands that write files the audit can see (redirections, tee, sed -i, cp, mv, rm, touch, mkdir, ln,
//   truncate, dd of=, patch, git apply, downloads to a file, interpreter code opening files for writing) are "edit".
//   Programs that write on their own (a build, a script) cannot be known before they run; the run's rewind
//   snapshot covers them.
// - Code bash runs later asks, or is judged when literal: a value holding `$(…)` that arithmetic or a subscript
//   would run, arithmetic on a variable the line did not set plainly (shell-arith.ts), `trap '…'`, sed's `e`,
//   `env -S`/`flock -c`/`watch`/`script -c` code, callbacks and unreadable code runners (shell-rules-code.ts).
// - A command that does not parse as bash asks (bash and the grammar may disagree on it).
// - Code run through configuration asks, and is judged when it is literal: setting a variable that makes programs
//   run code (code-env.ts: GIT_SSH_COMMAND, PAGER, LD_PRELOAD, BASH_ENV …), git's code-running keys and history
//   rewrites (shell-git.ts), `vim -c '!…'`, `sqlite3 '.shell …'`. Also asked: inline interpreter code that names the
//   home directory, writes to a path outside the workspace or opens network connections; a network command given
//   `$(…)`/`$VAR` (possible exfiltration); sqlite3 on a database outside the workspace; crontab (but -l);
//   tar --remove-files (blocked from ~ or /). Unconfined deletes outside the workspace block (unconfined-deletes.ts).
// Not a sandbox: the policy catches mistakes and the common shapes; the workspace boundary does the rest.

import { homedir } from "node:os";
import { posix } from "node:path";
import { type Pipeline, SHELLS, type SimpleCommand, isFlag } from "./shell-command.js";
import { type Cwd, SYSTEM_DIRS, walkDown } from "./shell-cwd.js";
import { codeEnvVar } from "./code-env.js";
import { CHECKOUT_PATHS_REASON, GIT_RULES, checksOutExistingPath, gitShellAliases } from "./shell-git.js";
import { CODE_RULES, sedRuns, sedWrites } from "./shell-rules-code.js";
import { sedInPlace } from "./shell-sed.js";
import { loadShellGrammar, parseShell, shellGrammarError } from "./shell-grammar.js";
import { GIT_CONTROL_REASON, GIT_INTERNALS_REASON, HOME_REASON, touchesHome, writesGitControl, writesGitInternals } from "./shell-rules-paths.js";
import { notAFile, readerWithUnlistedOption, repointsDescriptor, writesStream } from "./shell-read-only.js";
import { UNCONFINED_CD_REASON, UNCONFINED_REASON, isGenericAsk, needsPerson, plainOrAsk, unconfinedRisk } from "./shell-unconfined.js";
import { hasForkBomb } from "./shell-fork-bomb.js";
import { longOption } from "./option-table.js";
import type { AuditContext } from "./audit-context.js";
import { DELETE_CODE, DYNAMIC_CODE, HOME_CODE, NET_CODE, OUTSIDE_PATH_CODE, SHELL_OUT_CODE, SIGNAL_CODE, WRITE_CODE, codeArg, inlineCode, readsCodeFromStdin } from "./shell-inline-code.js";
import {
  assignedCode,
  editorRunsShell,
  editorScripts,
  embeddedShell,
  runsNetworkWithRuntimeText,
  sqliteRisk,
  findDeletes,
  findStarts,
  tarDir,
  tarRemovesFiles,
  zipMoves,
  RUNS_OPTION_COMMAND,
  VIM,
  withPipedLiteral,
} from "./shell-rules-io.js";
import { unconfinedDeleteOutside } from "./unconfined-deletes.js";
import { DESTROYS_REASON, PUBLISHES_REASON, destroysOutside, publishes } from "./shell-rules-destroy.js";
import { OWN_CLI_REASON, runsOwnCli } from "./shell-rules-own-cli.js";
import { PACKAGE_RULES } from "./shell-rules-packages.js";
import { writesOwnOutput } from "./shell-rules-writers.js";

export type AuditVerdict = "allow" | "edit" | "ask" | "block";
export interface AuditResult {
  verdict: AuditVerdict;
  reason?: string;
  /** An ask only a person may approve (without a sandbox: shell-unconfined.ts `needsPerson`). */
  needsPerson?: boolean;
}

interface Rule {
  verdict: Exclude<AuditVerdict, "allow">;
  reason: string;
  /** Program name the rule is about (anchored). */
  cmd?: RegExp;
  /** Tested against " " + args.join(" ") + " " (quotes removed). */
  args?: RegExp;
  /** Extra condition; `p` is the whole pipeline, `i` the command's position in it. */
  test?: (c: SimpleCommand, p: Pipeline, i: number) => boolean;
}

// ---------------------------------------------------------------------------------------------
// helpers the rules use

/** The home as the shell spells it (`~user`, `${HOME:?}`, `${HOME%/}`: no operator makes a set HOME safer), then a glob over it. */
const HOME_SPELLING = "(?:~(?:[a-z_][\\w-]*)?|\\$HOME|\\$\\{HOME(?:[:%#/^,@?+-][^}]*)?\\})(?:\\/+(?:\\.?\\*|\\.\\[!.\\]\\*)?)?";
const ROOTISH = new RegExp(`^(?:\\/+\\.?|\\/+\\*|${HOME_SPELLING}|\\/(?:${SYSTEM_DIRS})\\/*\\*?)$`);
function operands(args: string[]): string[] {
  const i = args.indexOf("--");
  return i < 0 ? args.filter((a) => !isFlag(a)) : [...args.slice(0, i).filter((a) => !isFlag(a)), ...args.slice(i + 1)];
}
/** `-r`/`-R`, or `--recursive` by any prefix GNU takes (`rm --r`; chmod's `--rec`, beside --reference). */
const recursive = (c: SimpleCommand) => c.args.some((a) => /^-[\w#]*[rR][\w#]*$/.test(a) || longOption(a, "recursive", c.name === "rm" ? 1 : 3));
/**
 * An absolute path that is, once `//`, `/./` and `..` are resolved as the kernel would, the root, a system directory
 * or the home directory by its literal path (`rm -rf /usr/../home/u`, `//home//u/`, `/home/u/*`: the sixth pass).
 */
function absoluteRootish(a: string): boolean {
  if (!a.startsWith("/")) return false;
  const n =
    posix
      .normalize(a)
      .replace(/\/(?:\.?\*|\.\[!.\]\*)$/, "")
      .replace(/\/+$/, "") || "/";
  const home = (process.env.HOME || homedir()).replace(/\/+$/, "");
  return n === "/" || (home.length > 1 && n === home) || ROOTISH.test(n);
}
const hitsRoot = (c: SimpleCommand) => operands(c.args).some((a) => ROOTISH.test(a) || absoluteRootish(a));
/** `.`, `*`, `./*`, `..`, `.*`, `[a-z]*`: the directory the command runs in (or above it), or a glob over it. */
const wholeDir = (a: string) => !a.startsWith("/") && a.split("/").every((s) => /^(?:|\.|\.\.)$/.test(s) || /[*?[]/.test(s));
const awayFromWorkspace = (cwd: Cwd) => cwd.at !== "workspace";
const atHomeOrRoot = (cwd: Cwd) => cwd.at === "home" || cwd.at === "root";
const isEtc = (p: string) => /^\/etc(?:\/|$)/.test(p);
const DISK = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper\/|sr)/;
const FETCHERS = /^(?:curl|wget|fetch|aria2c)$/;
const DELETERS = /^(?:rm|unlink|shred|rmdir)$/;
/** `host:path`, `user@host:path`, `host::module`, `rsync://…` (a local path has no ":" before its first "/"). */
const isRemote = (a: string) => /^rsync:\/\//.test(a) || /^[^/:]+::?/.test(a);
const writesTo = (c: SimpleCommand, pred: (t: string) => boolean) => c.redirects.some((r) => /[>]/.test(r.op) && pred(r.target));
/** Output that is not a file: the null device, the terminal, a duplicated descriptor (`2>&1`, `>&-`). */
const writesAFile = (c: SimpleCommand) => c.redirects.some((r) => /[>]/.test(r.op) && !notAFile(c, r));
const FETCH_SUB = /(?:\$\(|<\(|`)\s*(?:\S*\/)?(?:curl|wget|fetch|aria2c)\b/;
/** `sh <(curl …)`, `bash -c "$(wget …)"`, `bash < <(curl …)`: the command runs what a substitution downloads. */
const runsFetched = (c: SimpleCommand) => [...c.args, ...c.redirects.map((r) => r.target)].some((a) => FETCH_SUB.test(a));

/** curl's options whose value may name a file it sends (`-d @f`, `-F x=@f`), long ones by any prefix curl 7 takes (`--data-b=@f`). */
const CURL_SENDS: [string, number][] = [
  ["data", 4],
  ["data-ascii", 6],
  ["data-binary", 6],
  ["data-raw", 6],
  ["data-urlencode", 6],
  ["form", 4],
  ["form-string", 6],
  ["json", 2],
];
const curlSendsFile = (c: SimpleCommand) =>
  c.args.some((a, i) => {
    const short = /^-[\w#]*[dF](.*)$/.exec(a);
    if (!short && !CURL_SENDS.some(([n, min]) => longOption(a, n, min))) return false;
    const value = short ? short[1] || c.args[i + 1] : a.includes("=") ? a.slice(a.indexOf("=") + 1) : c.args[i + 1];
    return (value ?? "").includes("@");
  });
const WRITES = "writes files (ask mode asks before edits)";
const HOMEISH = /^(?:~|\$\{?HOME\}?)(?:\/|$)/;
/** `sed -i`, `sed --in` (any prefix of --in-place), `perl -pi`, `ruby -i.bak`: the operands are edited in place. */
const editsInPlace = (c: SimpleCommand) => /^(?:g?sed|perl|ruby)$/.test(c.name) && (c.args.some((a) => /^-[\w#]*i/.test(a)) || sedInPlace(c));
const tarExtracts = (c: SimpleCommand) => /^-?[\w#]*x/.test(c.args[0] ?? "") || c.args.some((a) => /^-[\w#]*x[\w#]*$/.test(a) || longOption(a, "extract", 3) || longOption(a, "get", 2));
/** The files a command visibly writes: its output redirections and the operands of the programs that write. */
function writeTargets(c: SimpleCommand): string[] {
  const targets = c.redirects.filter((r) => /[>]/.test(r.op) && !notAFile(c, r)).map((r) => r.target);
  if (/^(?:tee|mv|touch|mkdir|rm|rmdir|unlink|shred|truncate|chmod|chown)$/.test(c.name)) targets.push(...operands(c.args));
  if (/^(?:cp|ln|link|install|rsync)$/.test(c.name)) targets.push(...operands(c.args).slice(-1)); // the sources are only read
  if (editsInPlace(c)) targets.push(...operands(c.args));
  if (c.name === "dd") targets.push(...c.args.filter((a) => a.startsWith("of=")).map((a) => a.slice(3)));
  if (/^(?:tar|bsdtar)$/.test(c.name) && (tarExtracts(c) || tarRemovesFiles(c))) targets.push(tarDir(c) ?? ".");
  targets.push(...sedWrites(c).filter((t) => !notAFile(c, { op: ">", target: t })));
  return targets;
}

// ---------------------------------------------------------------------------------------------
// THE POLICY: one table. First the blocks, then the ask-firsts, then the edits; the most severe match wins, and
// among equals the first listed gives the reason.

export const SHELL_RULES: readonly Rule[] = [
  // --- never run
  { verdict: "block", reason: "recursive delete of the filesystem root, the home directory or a system directory", cmd: /^rm$/, test: (c) => recursive(c) && hitsRoot(c) },
  {
    verdict: "block",
    reason: "recursive delete of the home directory or the filesystem root (reached by cd)",
    cmd: /^rm$/,
    test: (c) => recursive(c) && atHomeOrRoot(c.cwd) && operands(c.args).some(wholeDir),
  },
  { verdict: "block", reason: "rm --no-preserve-root", cmd: /^rm$/, test: (c) => c.args.some((a) => longOption(a, "no-preserve-root", 1)) },
  {
    verdict: "block",
    reason: "find deleting from the home directory or the filesystem root",
    cmd: /^find$/,
    test: (c) => {
      if (!findDeletes(c)) return false;
      const starts = findStarts(c);
      return starts.some((s) => ROOTISH.test(s)) || (atHomeOrRoot(c.cwd) && (starts.length === 0 || starts.some(wholeDir)));
    },
  },
  { verdict: "block", reason: "formatting a filesystem (mkfs)", cmd: /^(?:mkfs(?:\..+)?|mke2fs|mkswap|wipefs)$/ },
  { verdict: "block", reason: "dd writing to a disk device", cmd: /^dd$/, args: / of=\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper\/|sr)/ },
  { verdict: "block", reason: "writing to a disk device", test: (c) => writesTo(c, (t) => DISK.test(t)) },
  {
    verdict: "block",
    reason: "piping a downloaded script into a shell or interpreter (curl | sh)",
    test: (c, p, i) => SHELLS.test(c.name) && p.commands.slice(0, i).some((x) => FETCHERS.test(x.name)),
  },
  { verdict: "block", reason: 'running a downloaded script (sh <(curl …) / sh -c "$(curl …)")', test: (c) => SHELLS.test(c.name) && runsFetched(c) },
  { verdict: "block", reason: "writing to /etc", test: (c) => writesTo(c, isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^tee$/, test: (c) => operands(c.args).some(isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^(?:cp|mv|install|ln|rsync|scp)$/, test: (c) => isEtc(operands(c.args).at(-1) ?? "") },
  { verdict: "block", reason: "writing to /etc", cmd: /^(?:rm|truncate|chmod|chown|chgrp|touch|mkdir|rmdir|unlink)$/, test: (c) => operands(c.args).some(isEtc) },
  { verdict: "block", reason: "editing files in /etc", cmd: /^(?:sed|perl)$/, test: (c) => editsInPlace(c) && operands(c.args).some(isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^dd$/, args: / of=\/etc\// },
  { verdict: "block", reason: "raw network socket (/dev/tcp, /dev/udp)", test: (c) => [...c.redirects.map((r) => r.target), ...c.args].some((t) => /^\/dev\/(?:tcp|udp)\//.test(t)) },
  { verdict: "block", reason: "recursive permission change on the filesystem root or a system directory", cmd: /^(?:chmod|chown|chgrp)$/, test: (c) => recursive(c) && hitsRoot(c) },
  {
    verdict: "block",
    reason: "tar --remove-files deleting from the home directory or the filesystem root",
    cmd: /^(?:tar|bsdtar)$/,
    test: (c) => tarRemovesFiles(c) && (ROOTISH.test(tarDir(c) ?? "") || (tarDir(c) === undefined && atHomeOrRoot(c.cwd))),
  },
  { verdict: "block", reason: "shutting down or rebooting the machine", cmd: /^(?:shutdown|reboot|halt|poweroff)$/ },
  { verdict: "block", reason: "shutting down or rebooting the machine", cmd: /^(?:systemctl|init|telinit)$/, args: / (?:poweroff|reboot|halt|kexec|0|6) / },

  // --- ask first: what the audit cannot resolve
  { verdict: "ask", reason: "the program to run is a variable or substitution ($x, $(…)): the audit cannot know what runs", test: (c) => c.dynamicName },
  { verdict: "ask", reason: "eval of code built at run time", cmd: /^eval$/, test: (c) => c.dynamicArgs.some(Boolean) },
  { verdict: "ask", reason: "sourcing code built at run time", cmd: /^(?:source|\.)$/, test: (c) => c.dynamicArgs.some(Boolean) },
  { verdict: "ask", reason: 'a shell runs code built at run time (bash -c "$(…)")', test: (c) => SHELLS.test(c.name) && codeArg(c) >= 0 && c.dynamicArgs[codeArg(c)] === true },
  { verdict: "ask", reason: "a shell or interpreter runs code piped into it (… | bash)", test: (c, _p, i) => i > 0 && readsCodeFromStdin(c) },
  {
    verdict: "ask",
    reason: "a shell or interpreter runs code produced at run time (bash < <(…), a heredoc with $(…))",
    test: (c) => SHELLS.test(c.name) && codeArg(c) < 0 && (c.redirects.some((r) => r.op === "<" && /^[<>]\(|\$/.test(r.target)) || (c.stdinText !== undefined && c.stdinDynamic === true)),
  },
  { verdict: "ask", reason: "xargs runs a delete on every input line (xargs rm)", test: (c) => c.via.includes("xargs") && (DELETERS.test(c.name) || (c.name === "find" && findDeletes(c))) },
  { verdict: "ask", reason: "rsync --delete removes files at the destination", cmd: /^rsync$/, args: / --(?:delete\S*|remove-source-files)(?:=\S*)? / },
  { verdict: "ask", reason: "deletes files from inline interpreter code (shutil.rmtree, os.remove, fs.rmSync …)", test: (c) => DELETE_CODE.test(inlineCode(c)) },
  { verdict: "ask", reason: "inline interpreter code that builds its calls at run time (getattr, eval, __import__)", test: (c) => DYNAMIC_CODE.test(inlineCode(c)) },
  {
    verdict: "ask",
    reason: "deletes after cd left the workspace (or went somewhere the audit cannot know)",
    test: (c) => awayFromWorkspace(c.cwd) && (DELETERS.test(c.name) || (c.name === "find" && findDeletes(c)) || DELETE_CODE.test(inlineCode(c))),
  },
  { verdict: "ask", reason: "recursive delete of a path computed at run time", cmd: /^rm$/, test: (c) => recursive(c) && c.dynamicArgs.some(Boolean) },
  { verdict: "ask", reason: "inline interpreter code runs shell commands (system, subprocess, child_process)", test: (c) => SHELL_OUT_CODE.test(inlineCode(c)) },
  { verdict: "ask", reason: "inline interpreter code signals processes (os.kill, process.kill, kill)", test: (c) => SIGNAL_CODE.test(inlineCode(c)) },
  { verdict: "ask", reason: "runs a command given as an option or alias (tar --to-command, zip -TT, git submodule foreach, GNU parallel, alias)", test: RUNS_OPTION_COMMAND },
  { verdict: "ask", reason: "awk runs shell commands (system, a pipe to a command)", cmd: /^[gmn]?awk$/, args: /system\s*\(|\|\s*"|"\s*\|\s*getline/ },
  // Dotfiles in the home directory run code later (.bashrc, .ssh/authorized_keys): never an ordinary edit.
  { verdict: "ask", reason: "writes in the home directory (outside the workspace)", test: (c) => writeTargets(c).some((t) => HOMEISH.test(t)) || (atHomeOrRoot(c.cwd) && writeTargets(c).length > 0) },
  { verdict: "ask", reason: GIT_CONTROL_REASON, test: writesGitControl },
  { verdict: "ask", reason: GIT_INTERNALS_REASON, test: writesGitInternals },
  { verdict: "ask", reason: HOME_REASON, test: touchesHome },
  { verdict: "ask", reason: "writes files after cd left the workspace (or went somewhere the audit cannot know)", test: (c) => awayFromWorkspace(c.cwd) && writeTargets(c).length > 0 },
  {
    verdict: "ask",
    reason: "writes or deletes above the workspace (a path through ..)",
    test: (c) => c.cwd.at === "workspace" && writeTargets(c).some((t) => !t.startsWith("/") && !HOMEISH.test(t) && walkDown(c.cwd, t).at !== "workspace"),
  },
  {
    verdict: "ask",
    reason: "sets an environment variable that makes programs run code (GIT_SSH_COMMAND, PAGER, LD_PRELOAD … see code-env.ts)",
    test: (c) => c.assigns.some((a) => codeEnvVar(a.name) !== undefined),
  },
  { verdict: "ask", reason: "inline interpreter code reaches into the home directory (expanduser, homedir, $HOME)", test: (c) => HOME_CODE.test(inlineCode(c)) },
  {
    verdict: "ask",
    reason: "inline interpreter code writes outside the workspace",
    test: (c) => (WRITE_CODE.test(inlineCode(c)) || /\.write\s*\(|\bopen\s*\(/.test(inlineCode(c))) && OUTSIDE_PATH_CODE.test(inlineCode(c)),
  },
  { verdict: "ask", reason: "inline interpreter code opens network connections (possible exfiltration)", test: (c) => NET_CODE.test(inlineCode(c)) },
  { verdict: "ask", reason: "a network command sends text computed at run time ($(…), $VAR): possible exfiltration", test: runsNetworkWithRuntimeText },
  { verdict: "ask", reason: "sqlite3 on a database outside the workspace, or running shell commands or extensions", cmd: /^sqlite3?$/, test: (c) => sqliteRisk(c) === "ask" },
  { verdict: "ask", reason: "an editor script runs shell commands (ed/ex/vim `!`)", test: editorRunsShell },
  ...CODE_RULES,

  // --- ask first: the known shapes
  { verdict: "ask", reason: "tar --remove-files deletes the files it archives", cmd: /^(?:tar|bsdtar)$/, test: tarRemovesFiles },
  { verdict: "ask", reason: "zip -m deletes the files it archives", cmd: /^zip$/, test: zipMoves },
  { verdict: "ask", reason: DESTROYS_REASON, test: destroysOutside },
  { verdict: "ask", reason: PUBLISHES_REASON, test: publishes },
  { verdict: "ask", reason: OWN_CLI_REASON, test: runsOwnCli },
  { verdict: "ask", reason: "crontab installs or removes scheduled commands (they run later, outside deerflow)", cmd: /^crontab$/, test: (c) => !c.args.includes("-l") },
  { verdict: "ask", reason: "recursive delete (rm -r)", cmd: /^rm$/, test: recursive },
  { verdict: "ask", reason: "find -delete", cmd: /^find$/, args: / -delete / },
  { verdict: "ask", reason: "find -exec rm deletes every match", cmd: /^find$/, args: / -(?:exec|execdir|ok|okdir) (?:\S*\/)?(?:rm|unlink|shred) / },
  ...GIT_RULES.filter((r) => r.verdict === "ask").map((r) => ({ ...r, cmd: /^git$/ })),
  { verdict: "ask", reason: "recursive permission or owner change", cmd: /^(?:chmod|chown|chgrp)$/, test: recursive },
  ...PACKAGE_RULES,
  // Network exfiltration: a file (or anything) sent to another host.
  { verdict: "ask", reason: "sending a file over the network (curl upload)", cmd: /^curl$/, test: curlSendsFile },
  {
    verdict: "ask",
    reason: "sending a file over the network (curl upload)",
    cmd: /^curl$/,
    test: (c) => c.args.some((a) => /^-[\w#]*T./.test(a) || (/^-[\w#]*T$/.test(a) && c.args.length > 1) || longOption(a, "upload-file", 2)),
  },
  { verdict: "ask", reason: "sending a file over the network (wget post)", cmd: /^wget$/, test: (c) => c.args.some((a) => longOption(a, "post-file", 6) || longOption(a, "body-file", 6)) },
  { verdict: "ask", reason: "raw network connection (nc, socat, telnet)", cmd: /^(?:nc|ncat|netcat|socat|telnet)$/ },
  { verdict: "ask", reason: "copying files to or from another host", cmd: /^(?:scp|sftp|ssh)$/ },
  { verdict: "ask", reason: "copying files to or from another host (rsync)", cmd: /^rsync$/, test: (c) => operands(c.args).some(isRemote) },

  // --- edits: ask in `ask` mode only (like write_file)
  { verdict: "edit", reason: WRITES, test: writesAFile },
  { verdict: "edit", reason: WRITES, test: writesOwnOutput },
  { verdict: "edit", reason: "gives a read-only program an option deerflow does not know to only read (it may write or run a program)", test: readerWithUnlistedOption },
  { verdict: "edit", reason: WRITES, cmd: /^(?:cp|mv|touch|mkdir|ln|link|rm|rmdir|unlink|shred|truncate|install|patch|rsync)$/ },
  { verdict: "edit", reason: WRITES, cmd: /^tee$/, test: (c) => operands(c.args).some((a) => !notAFile(c, { op: ">", target: a })) },
  { verdict: "edit", reason: WRITES, test: editsInPlace },
  { verdict: "edit", reason: WRITES, cmd: /^g?sed$/, test: (c) => sedWrites(c).some((t) => !notAFile(c, { op: ">", target: t })) },
  { verdict: "edit", reason: WRITES, cmd: /^dd$/, test: (c) => c.args.some((a) => a.startsWith("of=") && !notAFile(c, { op: ">", target: a.slice(3) })) },
  ...GIT_RULES.filter((r) => r.verdict === "edit").map((r) => ({ ...r, cmd: /^git$/ })),
  { verdict: "edit", reason: WRITES, cmd: /^curl$/, args: / (?:-[\w#]*[oO]\S*|--output(?:=\S+)?|--remote-name\S*) / },
  {
    verdict: "edit",
    reason: WRITES,
    cmd: /^wget$/,
    test: (c) =>
      !c.args.some(
        (a, i) => longOption(a, "spider", 3) || (/^(?:-[a-zA-Z]*O|--output-document)=?-?$/.test(a) && ["-", "/dev/null"].includes(c.args[i + 1] ?? "")) || a === "-O-" || a === "--output-document=-",
      ),
  },
  { verdict: "edit", reason: WRITES, cmd: /^(?:tar|bsdtar)$/, test: tarExtracts },
  { verdict: "edit", reason: WRITES, cmd: /^unzip$/, test: (c) => !c.args.some((a) => /^-[a-zA-Z]*[lvtZ]/.test(a)) },
  { verdict: "edit", reason: WRITES, test: (c) => WRITE_CODE.test(inlineCode(c)) },
  {
    verdict: "edit",
    reason: WRITES,
    cmd: /^(?:gzip|gunzip|bzip2|bunzip2|xz|unxz|lzma|unlzma|zstd|unzstd|pigz|lz4|compress|uncompress)$/,
    test: (c) => operands(c.args).length > 0 && !c.args.some((a) => /^-[a-zA-Z]*[clt][a-zA-Z]*$|^--(?:stdout|to-stdout|list|test)$/.test(a)),
  },
  { verdict: "edit", reason: WRITES, cmd: /^[gmn]?awk$/, test: (c) => c.args.some((a) => /\bprintf?\b[^;{}]*?>/.test(a)) },
  { verdict: "edit", reason: WRITES, cmd: /^(?:ed|red|ex)$/ },
  { verdict: "edit", reason: WRITES, cmd: VIM, test: (c) => editorScripts(c).length > 0 || c.args.some((a) => /^-[\w#]*[seE][\w#]*$/.test(a)) },
  { verdict: "edit", reason: WRITES, cmd: /^sqlite3?$/, test: (c) => sqliteRisk(c) === "edit" },
  { verdict: "edit", reason: WRITES, cmd: /^(?:rename|prename|perl-rename|file-rename|chmod|chown|chgrp|chattr|setfacl)$/ },
];

// ---------------------------------------------------------------------------------------------
// the audit

const RANK: Record<AuditVerdict, number> = { allow: 0, edit: 1, ask: 2, block: 3 };
const MAX_DEPTH = 8;

/** The verdict on one bash command line (never throws; loads the bash grammar on first use). */
export async function auditCommand(command: string, context: AuditContext = { confined: true }): Promise<AuditResult> {
  await loadShellGrammar();
  const failed = shellGrammarError();
  // Fail closed: without its grammar the audit cannot tell `ls` from `rm -rf ~`.
  if (failed) return { verdict: "block", reason: `the command audit could not load its bash grammar (${failed}); reinstall deerflow` };
  const verdict = audit(command, 0, { at: "workspace", depth: 0 }, context);
  return context.confined ? verdict : needsPerson(plainOrAsk(command, verdict));
}

/** Starts loading the bash grammar now (in the background), so the first audited command does not wait for it. */
export function preloadShellAudit(): void {
  void loadShellGrammar();
}

function audit(command: string, depth: number, cwd: Cwd, context: AuditContext): AuditResult {
  if (depth > MAX_DEPTH) return { verdict: "ask", reason: "command nested too deeply to audit" };
  if (hasForkBomb(command)) return { verdict: "block", reason: "fork bomb" };
  let best: AuditResult = { verdict: "allow" };
  // Without a sandbox: why this line asks when no rule of the table does (a rule's reason is more specific).
  let unconfined: string | undefined;
  // Of two asks the specific one stands: a generic ask earlier on the line (`sh -c 'touch x'; python3 -c '…rmtree…'`)
  // must not hide the concern only a person may approve (the fourteenth pass deleted a home that way).
  const consider = (r: AuditResult) => {
    if (RANK[r.verdict] > RANK[best.verdict] || (r.verdict === "ask" && best.verdict === "ask" && isGenericAsk(best.reason) && !isGenericAsk(r.reason))) best = r;
  };
  const script = parseShell(command, cwd);
  for (const p of script.pipelines) {
    p.commands.forEach((piped, i) => {
      const c = withPipedLiteral(piped, p.commands[i - 1]);
      for (const rule of SHELL_RULES) {
        if (rule.cmd && !rule.cmd.test(c.name)) continue;
        if (rule.args && !rule.args.test(` ${c.args.join(" ")} `)) continue;
        if (rule.test && !rule.test(c, p, i)) continue;
        consider({ verdict: rule.verdict, reason: rule.reason });
        if (rule.verdict === "block") break;
      }
      const risk = context.confined ? undefined : unconfinedRisk(c, context.workspace, context.folders);
      if (risk !== undefined && (unconfined === undefined || (isGenericAsk(unconfined) && !isGenericAsk(risk)))) unconfined = risk;
      if (checksOutExistingPath(c, context.workspace)) consider({ verdict: "ask", reason: CHECKOUT_PATHS_REASON });
      const outside = context.confined ? undefined : unconfinedDeleteOutside(c, context.workspace, context.folders);
      if (outside) consider({ verdict: "block", reason: outside });
      // Literal code it also runs: `bash -c`, `find -exec`, a `git -c alias.x=!…` alias, `GIT_SSH_COMMAND='…'`, vim's `-c '!…'`.
      for (const code of [...c.code, ...gitShellAliases(c), ...assignedCode(c), ...embeddedShell(c), ...sedRuns(c)]) consider(audit(code, depth + 1, c.cwd, context));
    });
  }
  if (script.unknownArithmetic) consider({ verdict: "ask", reason: "arithmetic on a variable this command line did not set (its value may hold a command substitution that bash would run)" });
  if (script.syntaxError) consider({ verdict: "ask", reason: "the command does not parse as bash (it asks rather than guess what runs)" });
  // `exec 3<file` (a redirection with no program once exec is seen through) points a descriptor at a file for the
  // commands after it: a later `… >/dev/fd/3` writes that file.
  const all = script.pipelines.flatMap((p) => p.commands);
  if (all.some((c) => c.name === "" && repointsDescriptor(c)) && all.some(writesStream))
    consider({ verdict: context.confined ? "edit" : "ask", reason: context.confined ? WRITES : UNCONFINED_REASON });
  // CDPATH however it is set (a nameref, a loop variable: A30a-8) sends a later `cd` where the audit cannot follow.
  if (!context.confined && /\bCDPATH\b|\bcdable_vars\b/.test(command)) consider({ verdict: "ask", reason: UNCONFINED_CD_REASON });
  if (unconfined) consider({ verdict: "ask", reason: unconfined });
  return best;
}
