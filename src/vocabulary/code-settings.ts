// Settings that make a program run code: environment variables (`NODE_OPTIONS=--require …`, `GIT_SSH_COMMAND=…`) and
// git config keys (`core.hooksPath`, `core.sshCommand`, `core.fsmonitor` …). Setting one turns a harmless-looking
// command (`git fetch`, `man ls`, `npm test`) into code nobody sees, so the command audit asks first and the memory
// refuses a fact that sets one (memory/fact-code.ts).
//
// One home for both: the audit (sandbox/code-env.ts, sandbox/shell-git.ts) and the memory import them from here.
// Decided, left out: search paths (PYTHONPATH, NODE_PATH, RUBYLIB, PERL5LIB, PATH) only make the
// workspace's own code importable or runnable, which running `python3 script.py` already allows.

export interface CodeEnvVar {
  why: string;
  /** The value is a shell command line (the audit also judges it like the command itself). */
  shell?: boolean;
}

export const CODE_ENV: Readonly<Record<string, CodeEnvVar>> = {
  GIT_SSH_COMMAND: { why: "git runs it as the ssh command", shell: true },
  GIT_SSH: { why: "git runs it as the ssh program" },
  GIT_PROXY_COMMAND: { why: "git runs it to connect to a git:// remote", shell: true },
  GIT_EDITOR: { why: "git runs it as the editor", shell: true },
  GIT_SEQUENCE_EDITOR: { why: "git rebase runs it as the editor", shell: true },
  GIT_PAGER: { why: "git runs it as the pager", shell: true },
  GIT_EXTERNAL_DIFF: { why: "git diff runs it", shell: true },
  GIT_ASKPASS: { why: "git runs it to ask for a password" },
  GIT_EXEC_PATH: { why: "git runs its sub-commands from that directory" },
  GIT_TEMPLATE_DIR: { why: "git init/clone copies hooks from that directory" },
  GIT_DIR: { why: "git runs the hooks of that repository" },
  GIT_CONFIG: { why: "a config file (aliases, pager, hooksPath run code)" },
  GIT_CONFIG_GLOBAL: { why: "a config file (aliases, pager, hooksPath run code)" },
  GIT_CONFIG_SYSTEM: { why: "a config file (aliases, pager, hooksPath run code)" },
  GIT_CONFIG_PARAMETERS: { why: "config settings (aliases, pager, hooksPath run code)" },
  GIT_CONFIG_COUNT: { why: "config settings through GIT_CONFIG_KEY_n (aliases, pager, hooksPath run code)" },
  SSH_ASKPASS: { why: "ssh runs it to ask for a password" },
  SUDO_ASKPASS: { why: "sudo runs it to ask for a password" },
  RSYNC_RSH: { why: "rsync runs it as the remote shell", shell: true },
  RSYNC_CONNECT_PROG: { why: "rsync runs it to connect", shell: true },
  PAGER: { why: "man, git and others run it as the pager", shell: true },
  MANPAGER: { why: "man runs it as the pager", shell: true },
  SYSTEMD_PAGER: { why: "systemctl and journalctl run it as the pager", shell: true },
  LESSOPEN: { why: "less runs it on every file it opens", shell: true },
  LESSCLOSE: { why: "less runs it on every file it closes", shell: true },
  EDITOR: { why: "git, crontab and others run it as the editor", shell: true },
  VISUAL: { why: "git, crontab and others run it as the editor", shell: true },
  FCEDIT: { why: "the shell's fc runs it", shell: true },
  BROWSER: { why: "programs run it to open a link", shell: true },
  BASH_ENV: { why: "bash sources that file before a script" },
  ENV: { why: "sh sources that file at start" },
  ZDOTDIR: { why: "zsh sources its startup files from there" },
  PROMPT_COMMAND: { why: "bash runs it before each prompt", shell: true },
  PS4: { why: "bash expands it (running its $(…)) before each command traced by set -x", shell: true },
  LD_PRELOAD: { why: "every program loads that library first" },
  LD_LIBRARY_PATH: { why: "every program loads its libraries from there first" },
  LD_AUDIT: { why: "every program loads that library" },
  DYLD_INSERT_LIBRARIES: { why: "every program loads that library first (macOS)" },
  DYLD_LIBRARY_PATH: { why: "every program loads its libraries from there first (macOS)" },
  PYTHONSTARTUP: { why: "python runs that file at start" },
  NODE_OPTIONS: { why: "node takes --require/--import from it (runs a file first)" },
  PERL5OPT: { why: "perl takes -M/-e style options from it" },
  PERL5DB: { why: "perl runs it as the debugger" },
  RUBYOPT: { why: "ruby takes -r options from it (loads a file first)" },
  JAVA_TOOL_OPTIONS: { why: "the JVM takes -javaagent from it" },
  _JAVA_OPTIONS: { why: "the JVM takes -javaagent from it" },
  TAR_OPTIONS: { why: "tar takes --to-command/--use-compress-program from it" },
};

/** `GIT_CONFIG_KEY_0`, `GIT_CONFIG_VALUE_0`: numbered config settings. */
const NUMBERED = /^GIT_CONFIG_(?:KEY|VALUE)_\d+$/;

/** Why setting `name` runs code, or undefined. */
export function codeEnvVar(name: string): CodeEnvVar | undefined {
  return Object.hasOwn(CODE_ENV, name) ? CODE_ENV[name] : NUMBERED.test(name) ? { why: "config settings (aliases, pager, hooksPath run code)" } : undefined;
}

/**
 * Config keys whose value is a program or code git runs (or a file of more config, or a hook directory). Any key
 * ending in `command` (gpg.ssh.defaultKeyCommand runs on a signed commit) and imap.tunnel (git imap-send) included;
 * the http keys write a host file or send credentials through another server.
 */
export const GIT_CODE_KEY =
  /^(?:alias\..+|core\.(?:pager|editor|sshcommand|hookspath|fsmonitor|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|pager\..+|.+command|.+\.(?:cmd|driver|textconv|helper|program|tool|path)|imap\.tunnel|filter\..+|diff\.external|credential\..*helper|gpg\..*program|(?:include|includeif)\..+|protocol\..+\.allow|protocol\.allow|uploadpack\..+|receivepack\..+|remote\..+\.(?:uploadpack|receivepack|vcs)|submodule\..+\.update|init\.templatedir|safe\.directory|web\.browser|interactive\.difffilter|sendemail\..+|instaweb\..+|(?:http|remote)\..*(?:cookiefile|savecookies|proxy|sslcainfo|sslcapath|sslverify|sslcert|sslkey|extraheader|curloptresolve))$/;

/**
 * Config keys that change what `git status` and `git diff` show, as `.git/info/exclude` and `attributes` do: a planted
 * file left out of the listing, an edit or a submodule's change hidden (the forty-second pass's A42b-1). Guarded like
 * code keys in the repositories inside the workspace (not in approvals: many set core.excludesFile for themselves).
 */
export const GIT_VIEW_KEY = /^(?:status\.showuntrackedfiles|status\.submodulesummary|core\.(?:excludesfile|attributesfile)|diff\.ignoresubmodules|submodule\..+\.ignore)$/;

export function isGitViewKey(key: string): boolean {
  return GIT_VIEW_KEY.test(key.toLowerCase());
}

/** The end of a repair line: what `keys` (or `what`, their new value) would do in a repository your git status enters. */
export function whatGitKeysDo(keys: string[], what = keys.length === 1 ? "it" : "them"): string {
  return keys.every(isGitViewKey) ? `hide a file or a change from your git status with ${what}` : `run ${what} on your host`;
}

/** A config key (lower-case section and name) whose value git runs or follows: see GIT_CODE_KEY. */
export function isGitCodeKey(key: string): boolean {
  return GIT_CODE_KEY.test(key.toLowerCase());
}
