// The automatic checker of one task attempt: the declarative checks of task.json, then the task's own commands
// (its tests, its lint) and an optional script, all in the workspace after the run. Every failed check adds one line
// saying what was wrong; the attempt passes when there is none.
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { bwrapArgs } from "../sandbox/bwrap-args.js";
import { findBwrap } from "../sandbox/run-shell.js";
import type { ShellSettings } from "../sandbox/shell-settings.js";
import { changedPaths, treeDigest } from "./workspace.js";
import type { EvalTask } from "./task.js";

/** What the run left for the checker to judge (also written to $EVAL_RESULT for a check script). */
export interface RunOutcome {
  stop_reason: string;
  final_text: string;
  /** Names of the tools the agent called, with repeats, in order. */
  tools: string[];
  compacted: boolean;
}

export interface CheckResult {
  pass: boolean;
  failures: string[];
  /** Files the run changed (added, removed or edited), relative to the workspace. */
  changed: string[];
}

const tail = (s: string, lines = 12) => s.trimEnd().split("\n").slice(-lines).join("\n");

/**
 * Where a check's commands run. They run code the agent wrote (the project's tests, after the agent edited them), so
 * they are confined like the agent's own shell when bubblewrap is there: the workspace, this task's folder read-only
 * (its script), the attempt's check folder (the result file); never the rest of the machine.
 */
export interface CheckConfinement {
  shell: ShellSettings;
  /** The attempt's check folder ($EVAL_RESULT, HOME of the commands). */
  checkDir: string;
}

/** Runs one command of a check: "node" is this Node (the task must not depend on the PATH of the machine). */
async function runCommand(cmd: string[], cwd: string, timeoutSeconds: number, env: Record<string, string>, jail?: { bwrap: string; args: (command: string[]) => string[] }) {
  const [file, ...rest] = cmd;
  const command = [file === "node" ? process.execPath : file!, ...rest];
  const [program, ...args] = jail ? [jail.bwrap, ...jail.args(command)] : command;
  const r = await execa(program!, args, {
    cwd,
    reject: false,
    timeout: timeoutSeconds * 1000,
    all: true,
    stdin: "ignore",
    env: { ...env, CI: "1", NO_COLOR: "1" },
    // The check's processes end with it (a test that starts a server must not outlive the eval).
    forceKillAfterDelay: 2000,
  });
  return { ok: r.exitCode === 0 && !r.timedOut, output: r.timedOut ? `timed out after ${timeoutSeconds} s` : tail(String(r.all ?? "")) };
}

export async function checkAttempt(task: EvalTask, workspace: string, prepared: Map<string, string>, outcome: RunOutcome, scratch: string, confine?: CheckConfinement): Promise<CheckResult> {
  const c = task.check;
  const failures: string[] = [];
  const changed = changedPaths(prepared, treeDigest(workspace));

  if (!c.stopReason.includes(outcome.stop_reason as never)) failures.push(`stop reason ${outcome.stop_reason}, expected ${c.stopReason.join(" or ")}`);
  if (c.noEdits && changed.length) failures.push(`the workspace was changed: ${changed.join(", ")}`);
  for (const p of c.unchanged) {
    const hit = changed.filter((f) => f === p || f.startsWith(p.endsWith("/") ? p : `${p}/`));
    if (hit.length) failures.push(`${p} must stay unchanged: ${hit.join(", ")} changed`);
  }
  for (const p of c.present) if (!existsSync(join(workspace, p))) failures.push(`${p} is missing`);
  for (const p of c.absent) if (existsSync(join(workspace, p))) failures.push(`${p} should not exist`);
  for (const re of c.answerMatches) if (!new RegExp(re, "i").test(outcome.final_text)) failures.push(`the answer does not match /${re}/i`);
  for (const re of c.answerNotMatches) if (new RegExp(re, "i").test(outcome.final_text)) failures.push(`the answer matches /${re}/i, which it must not`);
  for (const t of c.usedTools) if (!outcome.tools.includes(t)) failures.push(`${t} was never called`);
  if (c.compacted && !outcome.compacted) failures.push("the conversation was never compacted");

  // Hidden files (tests the agent never saw) go in only now, over whatever the agent left.
  if (existsSync(join(task.dir, "check"))) cpSync(join(task.dir, "check"), workspace, { recursive: true });
  const resultFile = join(scratch, "result.json");
  writeFileSync(resultFile, JSON.stringify({ ...outcome, changed }, null, 2));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, EVAL_RESULT: resultFile, EVAL_TASK_DIR: task.dir };
  const jail = jailOf(task, workspace, confine);
  for (const cmd of c.run) {
    const r = await runCommand(cmd, workspace, c.timeoutSeconds, env, jail);
    if (!r.ok) failures.push(`\`${cmd.join(" ")}\` failed:\n${r.output}`);
  }
  if (c.script) {
    const r = await runCommand(["node", join(task.dir, c.script)], workspace, c.timeoutSeconds, env, jail);
    if (!r.ok) failures.push(`check script ${c.script} failed:\n${r.output}`);
  }
  return { pass: failures.length === 0, failures, changed };
}

/** The bubblewrap command line of the check's commands, or undefined (no confinement asked, or no bubblewrap). */
function jailOf(task: EvalTask, workspace: string, confine: CheckConfinement | undefined) {
  const bwrap = confine ? findBwrap() : null;
  if (!confine || !bwrap) return undefined;
  // This task's folder is shown read-only (the agent's shell hides every task folder); the check folder comes back
  // as the thread's outputs folder would (bwrap-args binds it again inside the hidden scratch directory).
  // The check keeps the host's network as before the proxied network (no proxy runs for checks): it runs the agent's
  // code, so this is a known limit, said in docs/security.md.
  const shell: ShellSettings = { ...confine.shell, hostNetwork: true, readOnly: [...confine.shell.readOnly, task.dir], hiddenDirs: (confine.shell.hiddenDirs ?? []).filter((d) => d !== task.dir) };
  const paths = { workspace_path: workspace, uploads_path: "", outputs_path: confine.checkDir };
  return { bwrap, args: (command: string[]) => bwrapArgs(paths, shell, command) };
}
