// `/name args` of a custom command (commands/) turned into the prompt that is sent: the body's `!` commands run now,
// their output in their place, and the arguments put in.
//
// Trust (a project's commands come from whatever repository was cloned): the body is a prompt the user chose to send
// by typing its name, no more trusted than the repository's AGENTS.md. What could act is what is checked:
// - a `!` command runs only when the command's `allowed-tools` names Bash (Claude Code's rule), then only confined as
//   the bash tool runs it, and only when the command audit lets it run unasked ("allow"): a command file can never do
//   what the agent would have to ask for (an edit, a network fetch that runs code, a push), in any approval mode;
// - a project command's own `@path` must name a file inside the working directory (a repository's command must not
//   attach `@~/notes/private.md`); paths the user typed in the arguments are the user's, checked as the input's `@`.
// The output is capped and masked for secrets, as a tool result is.
import { realpathSync } from "node:fs";
import { UsageError } from "../errors.js";
import { type CommandCatalog, type CustomCommand, commandInvocation } from "../commands/catalog.js";
import { BANG_COMMAND, allowsBang, bangCommands, expandBody } from "../commands/expand.js";
import { maskCredentials } from "../sandbox/env-scrub.js";
import { isInside } from "../sandbox/paths.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { atPathTargets } from "./at-path-uploads.js";
import { runShell } from "../sandbox/run-shell.js";
import { auditContextFor } from "../sandbox/audit-context.js";
import { auditCommand } from "../sandbox/shell-audit.js";
import { lineOnlyReads } from "../sandbox/read-only-line.js";
import type { ShellSettings } from "../sandbox/shell-settings.js";
import { capOutput } from "../tools/bash.js";

/** One `!` command's output kept in the prompt. */
export const BANG_OUTPUT_MAX_CHARS = 8_000;

export interface CommandShell {
  /** The thread's directories (opened on first need: a command without `!` opens nothing). */
  paths: () => Promise<ThreadPaths>;
  settings: ShellSettings;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** Refuses a project command whose body attaches a file outside `cwd` (its arguments are checked later, as typed). */
function checkOwnAttachments(command: CustomCommand, attach: string, cwd: string): void {
  if (command.scope !== "project") return;
  const realCwd = realpathSync(cwd);
  // The text that is attached from, after `$1`/`$ARGUMENTS` and the `!` lines: the body as written hid
  // `@~/token$1` and `` !`true`@~/token `` (the thirteenth pass's C1).
  for (const { word, path } of atPathTargets(attach, cwd)) {
    if (isInside(realpathSync(path), realCwd)) continue;
    throw new UsageError(
      `/${command.name} (${command.file}) attaches @${word}, which is outside ${cwd}; a project's command attaches only the project's files.`,
      "Type the @path yourself if you mean to send it.",
    );
  }
}

/** Runs one allowed `!` command and returns its output as the prompt shows it; throws one line when it may not run. */
async function runBang(command: CustomCommand, cmd: string, shell: CommandShell): Promise<string> {
  const where = `/${command.name} (${command.file})`;
  if (!allowsBang(command.allowedTools)) {
    throw new UsageError(`${where} runs !\`${cmd}\`, but its front matter does not allow commands.`, `Add "allowed-tools: Bash(${cmd.split(/\s+/)[0]}:*)" to its front matter if you mean it to run.`);
  }
  const paths = await shell.paths();
  const context = auditContextFor(paths);
  const audit = await auditCommand(cmd, context);
  // A repository's command is the repository's text: its lines only read, whatever the mode. With bubblewrap the
  // audit allows any confined line, so `!\`sh tools/ctx.sh\`` wrote files in plan mode and unasked in ask mode (the
  // twentieth pass's CC1).
  if (audit.verdict === "allow" && command.scope === "project" && !(await lineOnlyReads(cmd, context))) {
    throw new UsageError(`${where} was not sent: !\`${cmd}\` is not known to only read, and a project's command runs only lines that do.`, "Run it yourself with !<command>, or ask the agent to.");
  }
  if (audit.verdict !== "allow") {
    throw new UsageError(
      `${where} was not sent: !\`${cmd}\` would need your approval (${audit.reason ?? audit.verdict}), and a command's ! lines run only what needs none.`,
      "Run it yourself with !<command>, or ask the agent to.",
    );
  }
  const r = await runShell(cmd, { cwd: paths.workspace_path, paths, settings: shell.settings, timeoutSeconds: shell.timeoutSeconds, signal: shell.signal });
  if (r.stoppedBy === "abort") throw new UsageError(`${where} was stopped while !\`${cmd}\` ran.`);
  const tail = r.stoppedBy === "timeout" ? "\n[stopped: timed out]" : r.exitCode ? `\n[exit code ${r.exitCode}]` : "";
  const text = capOutput(r.output.replace(/\n$/, ""), BANG_OUTPUT_MAX_CHARS) + tail;
  return maskCredentials(text);
}

/**
 * The prompt `/name args` sends, and the text whose `@path` words are attached: the body's and the arguments', never
 * a `!` command's output (a file it prints must not choose what is attached). Throws a UsageError (one line) when
 * the command may not be sent as written.
 */
export async function customCommandPrompt(command: CustomCommand, args: string, cwd: string, shell: CommandShell, typedArgs = args): Promise<{ prompt: string; attach: string }> {
  const attach = expandBody(command.body.replace(BANG_COMMAND, ""), typedArgs);
  checkOwnAttachments(command, attach, cwd);
  const outputs: string[] = [];
  for (const cmd of bangCommands(command.body)) outputs.push(await runBang(command, cmd, shell));
  return { prompt: expandBody(command.body, args, outputs), attach };
}

/**
 * A turn's prompt as sent: `/name args` of a catalog command expanded (customCommandPrompt), anything else as typed.
 * `attach` is the text whose `@path` words go with it: from `typed`, the part of `text` the user wrote (over ACP the
 * rest is the editor's copy of a file, quoted material whose `@words` must not choose what is uploaded, also when
 * it becomes a command's `$ARGUMENTS`: the fourteenth pass's A3).
 */
export async function promptOfTurn(text: string, catalog: CommandCatalog, cwd: string, shell: CommandShell, typed = text): Promise<{ prompt: string; attach: string }> {
  const inv = text.startsWith("/") ? commandInvocation(text, catalog) : undefined;
  if (!inv) return { prompt: text, attach: typed };
  const typedArgs = typed === text ? inv.args : typed.startsWith("/") ? (commandInvocation(typed, catalog)?.args ?? "") : "";
  return customCommandPrompt(inv.command, inv.args, cwd, shell, typedArgs);
}
