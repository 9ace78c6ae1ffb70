// Whether a whole bash line only reads: plan mode (middleware/plan-mode.ts) runs such a line and refuses the rest.
// The judgement is the audit's own, not a second list: every simple command the bash grammar finds (those in
// `$(…)` too) must be a system program shell-read-only.ts says only reads, with no output redirection to a file, no code
// it runs besides itself, no wrapper (`xargs`, `env`, `sudo`) and no assignment; and the audit must neither block it
// nor call it an edit. `git` runs only where the repository names no code for it to run (repo-config-code.ts). What
// runs still passes the audit as usual afterwards (without bubblewrap it may ask).
import type { SimpleCommand } from "./shell-command.js";
import type { AuditContext } from "./audit-context.js";
import { auditCommand } from "./shell-audit.js";
import { parseShell } from "./shell-grammar.js";
import { dynamicBeforeOperands, notAFile, readsOnly, systemProgram } from "./shell-read-only.js";
import { repoRunsCode } from "./repo-config-code.js";

function simpleCommandOnlyReads(c: SimpleCommand): boolean {
  if (c.dynamicName || c.via.length > 0 || c.code.length > 0 || c.assigns.length > 0) return false;
  // Options are an allow list (read-only-options.ts): a word whose value comes at run time is none of them (the
  // seventeenth pass's `rg foo ${x:---pre=rm}` deleted the work tree in plan mode). A glob's file names are judged
  // per program in readsOnly (`rg -n TODO *` with a shipped `--pre=sh`; `cat src/*.ts` reads).
  if (dynamicBeforeOperands(c)) return false;
  // `./ls` or `bin/cat` is whatever the repository put there.
  if (c.name !== "" && !systemProgram(c)) return false;
  if (c.redirects.some((r) => /[>]/.test(r.op) && !notAFile(c, r))) return false;
  if (c.name === "printf" && c.args.includes("-v")) return false;
  return c.name === "" || readsOnly(c, { cdWrites: false });
}

/** The line only reads (never throws; loads the bash grammar on first use, and refuses when it cannot). */
export async function lineOnlyReads(command: string, context: AuditContext): Promise<boolean> {
  return (await whyNotOnlyReads(command, context)) === undefined;
}

/** Why the line is not known to only read, in a few words for the model; undefined when it only reads. */
export async function whyNotOnlyReads(command: string, context: AuditContext): Promise<string | undefined> {
  const NOT_KNOWN = "it is not known to only read";
  const audit = await auditCommand(command, context);
  if (audit.verdict === "edit" || audit.verdict === "block") return NOT_KNOWN;
  const script = parseShell(command);
  if (script.syntaxError || script.unknownArithmetic) return NOT_KNOWN;
  const commands = script.pipelines.flatMap((p) => p.commands);
  if (commands.length === 0 || !commands.every(simpleCommandOnlyReads)) return NOT_KNOWN;
  // git's read commands run what the repository names (core.fsmonitor, a post-index-change hook on `git status`):
  // only the workspace's own repository and the checkouts its index records are checked, so git runs only from the
  // workspace's top and told of no other repository (a shipped `evil.git/` folder with its own fsmonitor, reached by
  // `cd` or `-C`: the fifteenth pass).
  const git = commands.filter((c) => c.name === "git");
  if (git.length === 0) return undefined;
  if (context.workspace === undefined || !git.every(gitAtWorkspaceTop)) return "git runs in plan mode only at the workspace's top, told of no other repository";
  const code = repoRunsCode(context.workspace);
  return code ? `git there would run code the repository names: ${code}` : undefined;
}

const gitAtWorkspaceTop = (c: SimpleCommand) =>
  c.cwd.at === "workspace" && c.cwd.depth === 0 && !c.cwd.rel && !c.args.some((a) => /^(?:-C|--git-dir|--work-tree|--namespace|--exec-path|--super-prefix|--bare)/.test(a));
