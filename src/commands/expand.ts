// What `/name args` sends: the command's body with its arguments put in, as Claude Code does it.
// - `$ARGUMENTS` is everything after the name; `$1`…`$9` are the words of it (quotes group, as a shell reads them);
//   a missing word is empty. A body with neither gets the arguments appended ("ARGUMENTS: …"), so nothing typed is lost.
// - `!` followed by a backquoted command (Claude Code's form) runs before the prompt is sent and its output takes its
//   place; allowsBang says whether the front matter lets such commands run.
// Substitution is one pass over the body: an argument that itself holds `$1` or a backquoted command stays text.

/** `!` then a backquoted command (not a double-backquoted code span). */
export const BANG_COMMAND = /!`([^`\n]+)`/g;

/** The words of `args`: whitespace separates, single or double quotes group. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** The body's `!` commands, in order. */
export function bangCommands(body: string): string[] {
  return [...body.matchAll(BANG_COMMAND)].map((m) => m[1]!.trim());
}

/**
 * Whether the front matter lets the body's `!` commands run at all: its `allowed-tools` names Bash (`Bash` or any
 * `Bash(…)` rule), as Claude Code requires. Which commands then run is the command audit's call (a rule never
 * widens it): Claude Code runs read-only commands such as `git diff` without a rule too, so its examples name only
 * some of the commands they run.
 */
export function allowsBang(allowedTools: readonly string[]): boolean {
  return allowedTools.some((rule) => rule === "Bash" || /^Bash\(.*\)$/s.test(rule));
}

/**
 * The body with `!` commands replaced by `outputs` (in order) and the arguments put in, in one pass (so neither an
 * argument nor a command's output is read again as a placeholder).
 */
export function expandBody(body: string, args: string, outputs: readonly string[] = []): string {
  const words = splitArguments(args);
  let usesArgs = false;
  let bang = 0;
  const text = body.replace(/!`([^`\n]+)`|\$ARGUMENTS\b|\$([1-9])(?!\d)/g, (whole, cmd: string | undefined, n: string | undefined) => {
    if (cmd !== undefined) return outputs[bang++] ?? whole;
    usesArgs = true;
    return n === undefined ? args : (words[Number(n) - 1] ?? "");
  });
  return usesArgs || !args ? text : `${text}\n\nARGUMENTS: ${args}`;
}
