// Whether a whole bash line only reads: plan mode (middleware/plan-mode.ts) runs such a line and refuses the rest.
// The judgement is the audit's own, not a second list: every simple command the bash grammar finds (those in
// `$(…)` too) must be a program shell-read-only.ts says only reads, with no output redirection to a file, no code
// it runs besides itself, no wrapper (`xargs`, `env`, `sudo`) and no assignment; and the audit must neither block it
// nor call it an edit. What runs still passes the audit as usual afterwards (without bubblewrap it may ask).
import type { SimpleCommand } from "./shell-command.js";
import { type AuditContext, auditCommand } from "./shell-audit.js";
import { parseShell } from "./shell-grammar.js";
import { notAFile, readsOnly } from "./shell-read-only.js";

function simpleCommandOnlyReads(c: SimpleCommand): boolean {
  if (c.dynamicName || c.via.length > 0 || c.code.length > 0 || c.assigns.length > 0) return false;
  if (c.redirects.some((r) => /[>]/.test(r.op) && !notAFile(c, r))) return false;
  if (c.name === "printf" && c.args.includes("-v")) return false;
  return c.name === "" || readsOnly(c, { cdWrites: false });
}

/** The line only reads (never throws; loads the bash grammar on first use, and refuses when it cannot). */
export async function lineOnlyReads(command: string, context: AuditContext): Promise<boolean> {
  const audit = await auditCommand(command, context);
  if (audit.verdict === "edit" || audit.verdict === "block") return false;
  const script = parseShell(command);
  if (script.syntaxError || script.unknownArithmetic) return false;
  const commands = script.pipelines.flatMap((p) => p.commands);
  return commands.length > 0 && commands.every(simpleCommandOnlyReads);
}
