// A fact that sets something which makes a program run code (the thirty-eighth pass's A38a-1): a git setting
// (`git -c core.sshCommand=…`, `git config core.hooksPath /tmp/hooks`, core.fsmonitor, core.pager, http.sslVerify …)
// or an environment variable (`NODE_OPTIONS=--require=…`, `GIT_SSH_COMMAND=…`, PYTHONSTARTUP, JAVA_TOOL_OPTIONS,
// RUBYOPT …), or `direnv allow`, which runs a folder's .envrc. A note that says "the project sets X" makes the agent
// set it, and the next `git fetch` or `npm test` runs what it names. The keys and variables are the command audit's
// (vocabulary/code-settings.ts): one list for what the audit asks about and what the memory refuses.
import { codeEnvVar, isGitCodeKey } from "../vocabulary/code-settings.js";
import { casedForm } from "./fact-form.js";

/** A git config key as written in a note: a section, a dot, a name (`core.hookspath`, `filter.lfs.process`). */
const KEY = /(?<![\w./-])[a-z][\w-]*(?:\.[\w*-]+)+/g;

/** The keys a note sets through git: `git -c key=…`, `--config-env key=…`, `git config [options] key …`, a .gitconfig. */
function gitSettingKeys(form: string): string[] {
  const keys: string[] = [];
  for (const m of form.matchAll(/\bgit(?=\b|config\b)([^;&|\n]*)/g)) {
    const seg = m[1]!;
    for (const k of seg.matchAll(/(?:^|\s)(?:-c|--config-env)[\s=]*([a-z][\w.*-]*)\s*=/g)) keys.push(k[1]!);
    const config = /(?:^|\s|')config\b(.*)/.exec(seg);
    if (config) for (const k of config[1]!.matchAll(KEY)) keys.push(k[0]);
  }
  return keys;
}

/** The variables a note sets: `NAME=…`, `export NAME`, "sets NAME to …". Names as written: a shell reads them case-sensitively. */
function envSettingNames(text: string): string[] {
  const t = casedForm(text);
  const names = [
    ...t.matchAll(/(?<![\w$.-])([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/g),
    ...t.matchAll(/\b(?:set|sets|setting|export|exports|exported|env|unset)\s+(?:the\s+)?\$?([A-Za-z_][A-Za-z0-9_]*)\b/gi),
    ...t.matchAll(/\b([A-Z_][A-Z0-9_]{2,})\s+(?:is\s+|are\s+)?(?:set\s+)?(?:to|as)\b/g),
  ].map((m) => m[1]!);
  return names.filter((n) => n === n.toUpperCase());
}

/** Whether the note sets a code-running git key or variable, or allows a folder's .envrc. */
export function setsCodeRunningSetting(text: string, forms: readonly string[]): boolean {
  if (envSettingNames(text).some((n) => codeEnvVar(n) !== undefined)) return true;
  return forms.some((f) => /\bdirenv\s+allow\b|\bmise\s+trust\b/.test(f) || gitSettingKeys(f).some(isGitCodeKey));
}
