// Shell audit — a pure policy over one bash command line: "allow", "ask" (ask first) or "block" (never run).
//
// How a command is read (shell-parse.ts): a small shell lexer honours quotes, escapes, comments and heredoc bodies, splits on
// `;` `&&` `||` `&` `|` newlines and parentheses, and pulls out every piece of code that will also run:
// `$(...)`, backticks, `<(...)`/`>(...)` (also inside double quotes), `bash|sh -c '<script>'`, `eval ...`,
// `find -exec ...`. Those pieces are audited recursively. Each simple command is normalised: leading `VAR=x`,
// keywords (`if`, `then`, `do`, `!`, `{`…) and wrappers (`sudo`, `env`, `nohup`, `nice`, `timeout`, `xargs`,
// `command`, `exec`…) are dropped and the program name is the basename (`/bin/rm`, `\rm` and `"rm"` are `rm`).
//
// False positives, decided:
// - Quoted text is data: `echo "rm -rf /"` and `grep mkfs notes.txt` are allowed — only what the shell would run
//   is audited (`bash -c "rm -rf /"` and `echo "$(rm -rf /)"` ARE audited, as code).
// - Heredoc bodies are data (`cat <<EOF ... EOF`), but a redirect of the heredoc to /etc is still a write.
// - `rm -rf ./build`, `rm -r node_modules` are ask-first (recursive delete), not blocked: only the filesystem
//   root, the home directory and top-level system directories are blocked.
// - Fork-bomb detection looks at function definitions outside quotes.
// Not a sandbox: a determined obfuscation (`$(echo cm0= | base64 -d) -rf /`, variables holding commands) gets
// through; the policy catches mistakes and the common shapes, the workspace boundary does the rest.

import { type Pipeline, type SimpleCommand, SHELLS, isFlag, parse } from "./shell-parse.js";

export type AuditVerdict = "allow" | "ask" | "block";
export interface AuditResult {
  verdict: AuditVerdict;
  reason?: string;
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

const ROOTISH = /^(?:\/+\.?|\/+\*|~\/?|~\/\*|\$\{?HOME\}?\/?|\$\{?HOME\}?\/\*|\/(?:bin|boot|dev|etc|home|lib\w*|opt|proc|root|sbin|srv|sys|usr|var)\/*\*?)$/;
function operands(args: string[]): string[] {
  const i = args.indexOf("--");
  return i < 0 ? args.filter((a) => !isFlag(a)) : [...args.slice(0, i).filter((a) => !isFlag(a)), ...args.slice(i + 1)];
}
const recursive = (c: SimpleCommand) => c.args.some((a) => /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(a) || a === "--recursive");
const hitsRoot = (c: SimpleCommand) => operands(c.args).some((a) => ROOTISH.test(a));
const isEtc = (p: string) => /^\/etc(?:\/|$)/.test(p);
const DISK = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper\/|sr)/;
const FETCHERS = /^(?:curl|wget|fetch|aria2c)$/;
/** `host:path`, `user@host:path`, `host::module`, `rsync://…` (a local path has no ":" before its first "/"). */
const isRemote = (a: string) => /^rsync:\/\//.test(a) || /^[^/:]+::?/.test(a);
const writesTo = (c: SimpleCommand, pred: (t: string) => boolean) => c.redirects.some((r) => /[>]/.test(r.op) && pred(r.target));
const FETCH_SUB = /(?:\$\(|<\(|`)\s*(?:\S*\/)?(?:curl|wget|fetch|aria2c)\b/;
/** `sh <(curl …)`, `bash -c "$(wget …)"`, `bash < <(curl …)`: the command runs what a substitution downloads. */
const runsFetched = (c: SimpleCommand) => [...c.args, ...c.redirects.map((r) => r.target)].some((a) => FETCH_SUB.test(a));

// ---------------------------------------------------------------------------------------------
// THE POLICY: one table. First the blocks, then the ask-firsts; the most severe match wins.

export const SHELL_RULES: readonly Rule[] = [
  // --- never run
  { verdict: "block", reason: "recursive delete of the filesystem root, the home directory or a system directory", cmd: /^rm$/, test: (c) => recursive(c) && hitsRoot(c) },
  { verdict: "block", reason: "rm --no-preserve-root", cmd: /^rm$/, args: / --no-preserve-root / },
  { verdict: "block", reason: "formatting a filesystem (mkfs)", cmd: /^(?:mkfs(?:\..+)?|mke2fs|mkswap|wipefs)$/ },
  { verdict: "block", reason: "dd writing to a disk device", cmd: /^dd$/, args: / of=\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper\/|sr)/ },
  { verdict: "block", reason: "writing to a disk device", test: (c) => writesTo(c, (t) => DISK.test(t)) },
  {
    verdict: "block",
    reason: "piping a downloaded script into a shell or interpreter (curl | sh)",
    test: (c, p, i) => SHELLS.test(c.name) && p.commands.slice(0, i).some((x) => FETCHERS.test(x.name)),
  },
  { verdict: "block", reason: "running a downloaded script (sh <(curl …) / sh -c \"$(curl …)\")", test: (c) => SHELLS.test(c.name) && runsFetched(c) },
  { verdict: "block", reason: "writing to /etc", test: (c) => writesTo(c, isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^tee$/, test: (c) => operands(c.args).some(isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^(?:cp|mv|install|ln|rsync|scp)$/, test: (c) => isEtc(operands(c.args).at(-1) ?? "") },
  { verdict: "block", reason: "writing to /etc", cmd: /^(?:rm|truncate|chmod|chown|chgrp|touch|mkdir|rmdir|unlink)$/, test: (c) => operands(c.args).some(isEtc) },
  { verdict: "block", reason: "editing files in /etc", cmd: /^(?:sed|perl)$/, args: / (?:-[a-zA-Z]*i|--in-place)/, test: (c) => operands(c.args).some(isEtc) },
  { verdict: "block", reason: "writing to /etc", cmd: /^dd$/, args: / of=\/etc\// },
  { verdict: "block", reason: "raw network socket (/dev/tcp, /dev/udp)", test: (c) => [...c.redirects.map((r) => r.target), ...c.args].some((t) => /^\/dev\/(?:tcp|udp)\//.test(t)) },
  { verdict: "block", reason: "recursive permission change on the filesystem root or a system directory", cmd: /^(?:chmod|chown|chgrp)$/, test: (c) => recursive(c) && hitsRoot(c) },
  { verdict: "block", reason: "shutting down or rebooting the machine", cmd: /^(?:shutdown|reboot|halt|poweroff)$/ },
  { verdict: "block", reason: "shutting down or rebooting the machine", cmd: /^(?:systemctl|init|telinit)$/, args: / (?:poweroff|reboot|halt|kexec|0|6) / },

  // --- ask first
  { verdict: "ask", reason: "recursive delete (rm -r)", cmd: /^rm$/, test: recursive },
  { verdict: "ask", reason: "find -delete", cmd: /^find$/, args: / -delete / },
  { verdict: "ask", reason: "find -exec rm deletes every match", cmd: /^find$/, args: / -(?:exec|execdir|ok|okdir) (?:\S*\/)?(?:rm|unlink|shred) / },
  {
    verdict: "ask",
    reason: "recursive delete from inline interpreter code (shutil.rmtree, fs.rmSync, rm_rf …)",
    cmd: /^(?:python[\d.]*|node|perl|ruby|php)$/,
    args: / -[a-zA-Z]*[ce] .*(?:rmtree|rm_rf|rimraf|rmSync|rmdirSync|remove_tree|rm\(.*recursive|FileUtils\.rm)/,
  },
  { verdict: "ask", reason: "git reset --hard discards local changes", cmd: /^git$/, args: / reset (?:.* )?--hard / },
  { verdict: "ask", reason: "git push --force rewrites remote history", cmd: /^git$/, args: / push (?:.* )?(?:--force|--force-with-lease(?:=\S*)?|-[a-zA-Z]*f[a-zA-Z]*|\+\S+) / },
  { verdict: "ask", reason: "git clean -f deletes untracked files", cmd: /^git$/, args: / clean (?:.* )?(?:-[a-zA-Z]*f[a-zA-Z]*|--force) / },
  { verdict: "ask", reason: "recursive permission or owner change", cmd: /^(?:chmod|chown|chgrp)$/, test: recursive },
  { verdict: "ask", reason: "installing packages", cmd: /^(?:npm|pnpm|bun)$/, args: /^ (?:\S+ )*?(?:install|i|add|ci) / },
  { verdict: "ask", reason: "installing packages", cmd: /^yarn$/, args: /^ +(?:(?:install|add|global) .*)?$/ },
  { verdict: "ask", reason: "installing packages", cmd: /^(?:pip[\d.]*|pipx|uv|poetry)$/, args: / (?:install|add|sync) / },
  { verdict: "ask", reason: "installing packages", cmd: /^python[\d.]*$/, args: / -m pip install / },
  { verdict: "ask", reason: "installing packages", cmd: /^(?:apt|apt-get|aptitude|dnf|yum|zypper|apk|brew|cargo|gem|port|snap|flatpak)$/, args: / (?:install|add|reinstall) / },
  { verdict: "ask", reason: "installing packages", cmd: /^pacman$/, args: / -S/ },
  { verdict: "ask", reason: "installing packages", cmd: /^go$/, args: /^ (?:install|get) / },
  // Network exfiltration: a file (or anything) sent to another host.
  { verdict: "ask", reason: "sending a file over the network (curl upload)", cmd: /^curl$/, args: / (?:-[a-zA-Z]*[dF]|--data(?:-binary|-raw|-urlencode|-ascii)?|--form(?:-string)?|--json)(?: |=)?\S*@/ },
  { verdict: "ask", reason: "sending a file over the network (curl upload)", cmd: /^curl$/, args: / (?:-[a-zA-Z]*T|--upload-file)(?: |=)?\S/ },
  { verdict: "ask", reason: "sending a file over the network (wget post)", cmd: /^wget$/, args: / --(?:post-file|body-file)(?: |=)/ },
  { verdict: "ask", reason: "raw network connection (nc, socat, telnet)", cmd: /^(?:nc|ncat|netcat|socat|telnet)$/ },
  { verdict: "ask", reason: "copying files to or from another host", cmd: /^(?:scp|sftp|ssh)$/ },
  { verdict: "ask", reason: "copying files to or from another host (rsync)", cmd: /^rsync$/, test: (c) => operands(c.args).some(isRemote) },
];

// ---------------------------------------------------------------------------------------------
// the audit

const RANK: Record<AuditVerdict, number> = { allow: 0, ask: 1, block: 2 };
const MAX_DEPTH = 8;

/** The verdict on one bash command line (pure; never throws). */
export function auditCommand(command: string): AuditResult {
  return audit(command, 0);
}

function audit(command: string, depth: number): AuditResult {
  if (depth > MAX_DEPTH) return { verdict: "ask", reason: "command nested too deeply to audit" };
  let best: AuditResult = { verdict: "allow" };
  const consider = (r: AuditResult) => {
    if (RANK[r.verdict] > RANK[best.verdict]) best = r;
  };
  if (hasForkBomb(command)) return { verdict: "block", reason: "fork bomb" };
  const { pipelines, subs } = parse(command);
  for (const p of pipelines) {
    p.commands.forEach((c, i) => {
      for (const rule of SHELL_RULES) {
        if (rule.cmd && !rule.cmd.test(c.name)) continue;
        if (rule.args && !rule.args.test(` ${c.args.join(" ")} `)) continue;
        if (rule.test && !rule.test(c, p, i)) continue;
        consider({ verdict: rule.verdict, reason: rule.reason });
        if (rule.verdict === "block") break;
      }
      for (const s of c.subs) consider(audit(s, depth + 1));
    });
  }
  for (const s of subs) consider(audit(s, depth + 1));
  return best;
}

/** A function that calls itself twice with `|` or `&`, e.g. `:(){ :|:& };:` or `bomb(){ bomb|bomb& };bomb`. */
function hasForkBomb(command: string): boolean {
  const code = command.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  const def = /(?:\bfunction\s+([^\s(){};|&<>'"]+)\s*(?:\(\s*\))?|([^\s(){};|&<>'"]+)\s*\(\s*\))\s*\{([^}]*)\}/g;
  for (let m = def.exec(code); m; m = def.exec(code)) {
    const name = m[1] ?? m[2]!;
    const body = m[3]!;
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(?:^|[\\s;|&])${n}\\s*[|&]\\s*${n}(?=$|[\\s;|&])`).test(` ${body} `)) return true;
  }
  return false;
}

/** The command as remembered for "allow always": trimmed, runs of whitespace collapsed. */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}
