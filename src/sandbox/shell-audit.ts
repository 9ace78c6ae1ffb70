// Shell audit — a pure policy over one bash command line: "allow", "ask" (ask first) or "block" (never run).
//
// How a command is read: a small shell lexer honours quotes, escapes, comments and heredoc bodies, splits on
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

export type AuditVerdict = "allow" | "ask" | "block";
export interface AuditResult {
  verdict: AuditVerdict;
  reason?: string;
}

interface Redirect {
  op: string;
  target: string;
}
/** One simple command after normalisation. */
export interface SimpleCommand {
  /** Program name (basename), "" for a bare redirection. */
  name: string;
  /** Arguments after the program name, quotes removed. */
  args: string[];
  redirects: Redirect[];
  /** Code this command runs besides itself: substitutions, `bash -c` scripts, `eval`, `find -exec`. */
  subs: string[];
}
interface Pipeline {
  commands: SimpleCommand[];
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
const isFlag = (a: string) => a.startsWith("-") && a !== "-";
function operands(args: string[]): string[] {
  const i = args.indexOf("--");
  return i < 0 ? args.filter((a) => !isFlag(a)) : [...args.slice(0, i).filter((a) => !isFlag(a)), ...args.slice(i + 1)];
}
const recursive = (c: SimpleCommand) => c.args.some((a) => /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(a) || a === "--recursive");
const hitsRoot = (c: SimpleCommand) => operands(c.args).some((a) => ROOTISH.test(a));
const isEtc = (p: string) => /^\/etc(?:\/|$)/.test(p);
const DISK = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper\/|sr)/;
const SHELLS = /^(?:sh|bash|zsh|dash|ksh|fish|ash|csh|tcsh|python[\d.]*|perl|ruby|node|php)$/;
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

// ---------------------------------------------------------------------------------------------
// lexer / parser

type Token = { kind: "word"; value: string } | { kind: "op"; value: string } | { kind: "redir"; op: string; target: string };

const OPS = ["&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"];
const REDIRS = ["&>>", "&>", "<<<", "<<-", "<<", "<>", ">>", ">|", ">&", "<&", ">", "<"];

/** Index just after the `)` closing the `(` at `open`, honouring quotes and nesting. */
function closeParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\") i++;
    else if (ch === "'") i = s.indexOf("'", i + 1) < 0 ? s.length : s.indexOf("'", i + 1);
    else if (ch === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === "\\") i++;
    } else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i + 1;
  }
  return s.length;
}

function lex(s: string): { tokens: Token[]; subs: string[] } {
  const tokens: Token[] = [];
  const subs: string[] = [];
  const heredocs: { delim: string; strip: boolean }[] = [];
  let i = 0;

  /** Reads `$(…)`, `` `…` `` or `<(…)` at i; returns the text to append to the word, records the code. */
  const readSub = (): string | undefined => {
    if (s.startsWith("$((", i)) {
      const end = closeParen(s, i + 1);
      const text = s.slice(i, end);
      i = end;
      return text;
    }
    if (s.startsWith("$(", i) || s.startsWith("<(", i) || s.startsWith(">(", i)) {
      const end = closeParen(s, i + 1);
      subs.push(s.slice(i + 2, end - 1));
      const text = s.slice(i, end);
      i = end;
      return text;
    }
    if (s[i] === "`") {
      let j = i + 1;
      for (; j < s.length && s[j] !== "`"; j++) if (s[j] === "\\") j++;
      subs.push(s.slice(i + 1, j));
      const text = s.slice(i, j + 1);
      i = j + 1;
      return text;
    }
    return undefined;
  };

  const isBreak = (k: number) => /[\s;&|()<>]/.test(s[k] ?? " ");

  const readWord = (): string | undefined => {
    let word = "";
    let any = false;
    while (i < s.length) {
      const ch = s[i]!;
      if (ch === "\\") {
        if (s[i + 1] === "\n") i += 2;
        else {
          word += s[i + 1] ?? "";
          i += 2;
          any = true;
        }
        continue;
      }
      if (ch === "'") {
        const end = s.indexOf("'", i + 1);
        word += s.slice(i + 1, end < 0 ? s.length : end);
        i = end < 0 ? s.length : end + 1;
        any = true;
        continue;
      }
      if (ch === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === "\\" && i + 1 < s.length) {
            word += s[i + 1];
            i += 2;
          } else if (s[i] === "`" || s.startsWith("$(", i)) word += readSub()!;
          else word += s[i++];
        }
        i++;
        any = true;
        continue;
      }
      if (ch === "$" || ch === "`") {
        const sub = readSub();
        if (sub !== undefined) {
          word += sub;
          any = true;
          continue;
        }
      }
      if ((ch === "<" || ch === ">") && s[i + 1] === "(" && word === "") {
        word += readSub()!;
        any = true;
        continue;
      }
      if (isBreak(i)) break;
      word += ch;
      i++;
      any = true;
    }
    return any ? word : undefined;
  };

  const skipBlanks = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t" || (s[i] === "\\" && s[i + 1] === "\n"))) i += s[i] === "\\" ? 2 : 1;
  };

  while (i < s.length) {
    skipBlanks();
    if (i >= s.length) break;
    const ch = s[i]!;
    if (ch === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    if (ch === "\n") {
      tokens.push({ kind: "op", value: "\n" });
      i++;
      // heredoc bodies are data: skip them
      for (const h of heredocs.splice(0)) {
        while (i < s.length) {
          let eol = s.indexOf("\n", i);
          if (eol < 0) eol = s.length;
          const line = s.slice(i, eol);
          i = eol + 1;
          if ((h.strip ? line.replace(/^\t+/, "") : line) === h.delim) break;
        }
      }
      continue;
    }
    const redir = (ch === "<" || ch === ">" || (ch === "&" && s[i + 1] === ">")) && !(s[i + 1] === "(" && ch !== "&") ? REDIRS.find((r) => s.startsWith(r, i)) : undefined;
    if (redir) {
      i += redir.length;
      skipBlanks();
      const target = readWord() ?? "";
      if (redir === "<<" || redir === "<<-") heredocs.push({ delim: target, strip: redir === "<<-" });
      tokens.push({ kind: "redir", op: redir, target });
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (op) {
      tokens.push({ kind: "op", value: op });
      i += op.length;
      continue;
    }
    const start = i;
    const word = readWord();
    if (word === undefined) {
      i = start + 1; // unknown character: skip it
      continue;
    }
    // `2>file`: a word of digits glued to a redirection is its fd
    if (/^\d+$/.test(word) && (s[i] === ">" || s[i] === "<") && i === start + word.length) continue;
    tokens.push({ kind: "word", value: word });
  }
  return { tokens, subs };
}

const KEYWORDS = new Set(["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "coproc"]);
/** Wrappers that run their arguments as a command; value: options that take an argument. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-D", "-R", "-T"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  nohup: new Set(),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  time: new Set(["-f", "-o"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--delimiter"]),
  watch: new Set(["-n", "-d", "--interval"]),
  unbuffer: new Set(),
};

function basename(p: string): string {
  const b = p.replace(/\/+$/, "");
  return b.slice(b.lastIndexOf("/") + 1) || p;
}

function toSimple(words: string[], redirects: Redirect[]): SimpleCommand {
  let k = 0;
  for (;;) {
    const w = words[k];
    if (w === undefined) break;
    if (KEYWORDS.has(w) || /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(w)) {
      k++;
      continue;
    }
    const opts = WRAPPERS[basename(w)];
    if (!opts) break;
    const wrapper = basename(w);
    k++;
    while (k < words.length) {
      const a = words[k]!;
      if (a === "--") {
        k++;
        break;
      }
      if (wrapper === "env" && /^[A-Za-z_]\w*=/.test(a)) k++;
      else if (isFlag(a)) k += opts.has(a) ? 2 : 1;
      else break;
    }
    if (wrapper === "timeout" && k < words.length) k++; // the duration
  }
  const name = words[k] === undefined ? "" : basename(words[k]!);
  const args = words.slice(k + 1);
  const subs: string[] = [];
  if (SHELLS.test(name) || name === "su") {
    // bash -c 'script', bash -lc 'script', su -c 'script'
    const ci = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command");
    if (ci >= 0 && args[ci + 1] !== undefined && !/^python|^perl|^ruby|^node|^php/.test(name)) subs.push(args[ci + 1]!);
  }
  if (name === "eval") subs.push(args.join(" "));
  if (name === "find") {
    for (let j = 0; j < args.length; j++) {
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[j]!)) continue;
      const end = args.findIndex((a, n) => n > j && (a === ";" || a === "+"));
      subs.push(args.slice(j + 1, end < 0 ? undefined : end).map((a) => (a === "{}" ? "./x" : a)).join(" "));
    }
  }
  return { name, args, redirects, subs };
}

function parse(command: string): { pipelines: Pipeline[]; subs: string[] } {
  const { tokens, subs } = lex(command);
  const pipelines: Pipeline[] = [];
  let current: Pipeline = { commands: [] };
  let words: string[] = [];
  let redirects: Redirect[] = [];
  const endCommand = () => {
    if (words.length || redirects.length) current.commands.push(toSimple(words, redirects));
    words = [];
    redirects = [];
  };
  const endPipeline = () => {
    endCommand();
    if (current.commands.length) pipelines.push(current);
    current = { commands: [] };
  };
  for (const t of tokens) {
    if (t.kind === "word") words.push(t.value);
    else if (t.kind === "redir") redirects.push({ op: t.op, target: t.target });
    else if (t.value === "|" || t.value === "|&") endCommand();
    else endPipeline();
  }
  endPipeline();
  return { pipelines, subs };
}

/** The command as remembered for "allow always": trimmed, runs of whitespace collapsed. */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}
