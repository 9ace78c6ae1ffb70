// The fallback without bubblewrap: `bash -c` directly on the host, secrets scrubbed from the environment, stdin
// closed, in its own process group so a timeout or a cancel kills the WHOLE group (SIGTERM, then SIGKILL after a
// short grace), and the group killed once the command ends so `cmd &` does not outlive it. A descendant that calls
// setsid() leaves the group, so each command also carries a random DEERFLOW_SHELL_RUN token in its environment,
// inherited by everything it starts: after the command, every process whose /proc/<pid>/environ holds the token is
// killed too (Linux). A process that leaves the group AND clears its environment (`setsid env -i …`) escapes both;
// the watchdog, its subreaper, kills it when bash ends (host-watchdog.ts). If such a leftover still holds the command's
// output open, it is killed when bash exits (found by the output pipe in /proc/<pid>/fd, as the sandbox's supervisor
// does), and whatever still holds it after a short grace (another user's process) is no longer read: the command
// ends when bash does, so a cancelled or timed-out run returns at once instead of waiting for the leftover.
// bash runs under the host watchdog (host-watchdog.ts), which does the same when deerflow dies by kill -9 or a
// signal it cannot handle, and which is the command's parent instead of deerflow.
import { closeSync, openSync } from "node:fs";
import { execa } from "execa";
import { scrubEnv } from "./env-scrub.js";
import type { ThreadPaths } from "./provider.js";
import { RUN_TOKEN_VAR, killByToken, killPipeHolders, newRunToken, outputPipesOf, watchdogLine } from "./host-watchdog.js";
import { BASH_KILL_GRACE_MS, type RunOptions, type ShellResult } from "./shell-session.js";
import type { ShellSettings } from "./shell-settings.js";

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/**
 * Ends a program started here, with everything it started: the watchdog (the program's own pid) is asked to sweep
 * (USR1, as when deerflow dies: by token, then the orphans it adopted, then its group), and the group is SIGKILLed only
 * when it has not ended after a grace. SIGKILLing the group at once killed the watchdog before it reaped, so a job's
 * `setsid -f env -i` child outlived deerflow's own stop where there are no user namespaces (the forty-first pass's
 * A41c-3). Without a watchdog the program is bash: the signal ends it, and the token covers its descendants. At
 * deerflow's exit (`later` false) no timer runs: the watchdog's sweep and the token are all there is.
 */
function endProgram(pid: number | undefined, token: string, later = true): void {
  if (!pid) return;
  for (const sig of ["SIGCONT", "SIGUSR1"] as const) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  }
  killByToken(token);
  if (later) setTimeout(() => killGroup(pid, "SIGKILL"), BASH_KILL_GRACE_MS).unref();
}

/** `bash -c command` under the watchdog where there is one, else bash itself with the token in its environment. */
function launch(command: string, settings: ShellSettings, token: string, paths?: ThreadPaths): { file: string; args: string[]; env: Record<string, string> } {
  const env = scrubEnv(process.env, { passEnv: settings.passEnv, secretValues: settings.secretValues, project: paths?.workspace_path });
  const watched = watchdogLine(token, "bash", ["-c", command]);
  if (watched) return { file: watched.command, args: watched.args, env };
  return { file: "bash", args: ["-c", command], env: { ...env, [RUN_TOKEN_VAR]: token } };
}

export async function runDirect(command: string, opts: RunOptions & { settings: ShellSettings; paths?: ThreadPaths }): Promise<ShellResult> {
  const { signal } = opts;
  const token = newRunToken();
  const line = launch(command, opts.settings, token, opts.paths);
  const child = execa(line.file, line.args, {
    cwd: opts.cwd,
    env: line.env,
    extendEnv: false,
    detached: true, // own process group: see the header
    stdin: "ignore",
    all: true,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 50_000_000,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  const pid = child.pid;
  const pipes = outputPipesOf(pid);
  // A background child that keeps our pipe open would hold the command until its timeout: end the group, the
  // token's processes and the pipe's holders as soon as bash itself exits; then stop reading after a grace.
  let unhold: NodeJS.Timeout | undefined;
  child.on("exit", () => {
    killGroup(pid, "SIGKILL");
    killByToken(token);
    killPipeHolders(pipes);
    unhold = setTimeout(() => [child.stdout, child.stderr, child.all].forEach((s) => s?.destroy()), BASH_KILL_GRACE_MS);
    unhold.unref?.();
  });

  let stoppedBy: "timeout" | "abort" | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stopGroup = (why: "timeout" | "abort") => {
    if (stoppedBy) return;
    stoppedBy = why;
    killGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => endProgram(pid, token), BASH_KILL_GRACE_MS);
    killTimer.unref?.();
  };
  const timer = setTimeout(() => stopGroup("timeout"), opts.timeoutSeconds * 1000);
  const onAbort = () => stopGroup("abort");
  signal?.addEventListener("abort", onAbort, { once: true });

  let result;
  try {
    result = await child;
  } finally {
    clearTimeout(timer);
    clearTimeout(unhold);
    signal?.removeEventListener("abort", onAbort);
  }
  if (killTimer) clearTimeout(killTimer);
  killGroup(pid, "SIGKILL");
  killByToken(token);
  if (signal?.aborted && result.isCanceled) stoppedBy = "abort";
  const output = typeof result.all === "string" ? result.all : "";
  return {
    // A command that could not even start (missing cwd, no bash) says why instead of printing nothing.
    output: result.failed && result.exitCode === undefined && !result.signal && !stoppedBy ? `${output}${result.shortMessage}` : output,
    exitCode: typeof result.exitCode === "number" ? result.exitCode : undefined,
    signal: result.signal ?? undefined,
    stoppedBy,
    isMaxBuffer: result.isMaxBuffer ?? false,
  };
}

// pid → token: a job's descendants that setsid() out of its group are found by the token (see the header).
const jobs = new Map<number, string>();

export function directBackground(
  command: string,
  opts: { cwd: string; logPath: string; settings: ShellSettings; paths?: ThreadPaths; onEnd: (code: number | undefined) => void },
): { kill: () => void } {
  const token = newRunToken();
  const line = launch(command, opts.settings, token, opts.paths);
  // The log as a file descriptor, not a pipe execa copies from: a descendant that outlives the job (setsid, a
  // double fork) must not hold a pipe of ours open, which would keep deerflow from exiting.
  const log = openSync(opts.logPath, "a");
  const child = execa(line.file, line.args, {
    cwd: opts.cwd,
    env: line.env,
    extendEnv: false,
    detached: true,
    stdin: "ignore",
    stdout: log as never, // execa takes a file descriptor; its types only list the literal ones
    stderr: log as never,
    reject: false,
  });
  closeSync(log);
  const pid = child.pid;
  if (pid) jobs.set(pid, token);
  void child.then((r) => {
    if (pid) jobs.delete(pid);
    killByToken(token); // what the job left behind ends with it, as after a foreground command
    opts.onEnd(typeof r.exitCode === "number" ? r.exitCode : undefined);
  });
  return {
    kill: () => endProgram(pid, token),
  };
}

/** Kills every background job started directly on the host (the end of a chat or run; `later` false: deerflow's exit). */
export function killDirect(later = true): void {
  for (const [pid, token] of jobs) endProgram(pid, token, later);
  jobs.clear();
}

// deerflow going away (even by an uncaught error) takes its background jobs with it.
process.once("exit", () => killDirect(false));
