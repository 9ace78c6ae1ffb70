// The fallback without bubblewrap: `bash -c` directly on the host, secrets scrubbed from the environment, stdin
// closed, in its own process group so a timeout or a cancel kills the WHOLE group (SIGTERM, then SIGKILL after a
// short grace), and the group killed once the command ends so `cmd &` does not outlive it. A descendant that calls
// setsid() leaves the group, so each command also carries a random DEERFLOW_SHELL_RUN token in its environment,
// inherited by everything it starts: after the command, every process whose /proc/<pid>/environ holds the token is
// killed too (Linux; a process that clears its environment escapes — only the sandbox's PID namespace is sure).
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, readdirSync } from "node:fs";
import { execa } from "execa";
import { scrubEnv } from "./env-scrub.js";
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

const TOKEN_VAR = "DEERFLOW_SHELL_RUN";

function envFor(settings: ShellSettings, token?: string): Record<string, string> {
  const env = scrubEnv(process.env, { passEnv: settings.passEnv, secretValues: settings.secretValues });
  return token ? { ...env, [TOKEN_VAR]: token } : env;
}

/** SIGKILLs every process whose initial environment carries `token`. */
function killByToken(token: string): void {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return; // no /proc (macOS): the process group is all we have
  }
  const needle = `${TOKEN_VAR}=${token}`;
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle)) process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone, or not ours
    }
  }
}

export async function runDirect(command: string, opts: RunOptions & { settings: ShellSettings }): Promise<ShellResult> {
  const { signal } = opts;
  const token = randomBytes(8).toString("hex");
  const child = execa("bash", ["-c", command], {
    cwd: opts.cwd,
    env: envFor(opts.settings, token),
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
  // A background child that keeps our pipe open would hold the command until its timeout: end the group as soon
  // as bash itself exits.
  child.on("exit", () => {
    killGroup(pid, "SIGKILL");
    killByToken(token);
  });

  let stoppedBy: "timeout" | "abort" | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stopGroup = (why: "timeout" | "abort") => {
    if (stoppedBy) return;
    stoppedBy = why;
    killGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), BASH_KILL_GRACE_MS);
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
  opts: { cwd: string; logPath: string; settings: ShellSettings; onEnd: (code: number | undefined) => void },
): { kill: () => void } {
  const token = randomBytes(8).toString("hex");
  // The log as a file descriptor, not a pipe execa copies from: a descendant that outlives the job (setsid, a
  // double fork) must not hold a pipe of ours open, which would keep deerflow from exiting.
  const log = openSync(opts.logPath, "a");
  const child = execa("bash", ["-c", command], {
    cwd: opts.cwd,
    env: envFor(opts.settings, token),
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
    kill: () => {
      killGroup(pid, "SIGKILL");
      killByToken(token);
    },
  };
}

/** Kills every background job started directly on the host (the end of a chat or run). */
export function killDirect(): void {
  for (const [pid, token] of jobs) {
    killGroup(pid, "SIGKILL");
    killByToken(token);
  }
  jobs.clear();
}

// deerflow going away (even by an uncaught error) takes its background jobs with it.
process.once("exit", killDirect);
