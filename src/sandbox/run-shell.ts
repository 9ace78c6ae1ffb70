// One shell command in a directory, the way deerflow always runs them: `bash -c` (no login profile), secrets
// scrubbed from the environment, stdin closed, in its own process group so a timeout or a cancel kills the WHOLE
// group (SIGTERM, then SIGKILL after a short grace). Used by the bash tool and by the TUI's `!cmd`.
import { execa } from "execa";

/** Time between SIGTERM and SIGKILL to the process group. */
export const BASH_KILL_GRACE_MS = 2_000;

// ---------------------------------------------------------------------------------------------
// environment scrub: allow by default, strip what looks like a credential

const SECRET_ENV_PATTERNS: readonly RegExp[] = [
  /(?:^|_)(?:API_?)?KEYS?(?:_\d+)?$/i, // FOO_API_KEY, GPG_KEY, OPENAI_API_KEY_2
  /(?:^|_)(?:ACCESS_|AUTH_|REFRESH_|SESSION_)?TOKENS?(?:_\d+)?$/i, // GITHUB_TOKEN, NPM_TOKEN, HF_TOKEN
  /(?:^|_)SECRETS?(?:_\d+)?$/i, // CLIENT_SECRET
  /(?:^|_)(?:PASSWORD|PASSWD|PASS)$/i, // DB_PASSWORD (not PWD: the working directory)
  /(?:^|_)CREDENTIALS?$/i, // GOOGLE_APPLICATION_CREDENTIALS
  /^OPENAI_/i,
  /^ANTHROPIC_/i,
  /^AWS_(?:ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|SECURITY_TOKEN)$/i,
  /^DEERFLOW_/i, // the agent's own configuration (model keys, endpoints) is never the command's business
];

/** True when an environment variable's name looks like it holds a secret. */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_PATTERNS.some((re) => re.test(name));
}

/** A copy of `env` without secret-looking variables (allow by default, strip by pattern). */
export function scrubEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretEnvName(name)) continue;
    out[name] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// process-group run

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

export interface ShellResult {
  /** stdout and stderr interleaved. */
  output: string;
  exitCode: number | undefined;
  signal: string | undefined;
  /** Set when deerflow stopped the command. */
  stoppedBy: "timeout" | "abort" | undefined;
  isMaxBuffer: boolean;
}

export async function runShell(command: string, opts: { cwd: string; timeoutSeconds: number; signal?: AbortSignal }): Promise<ShellResult> {
  const { signal } = opts;
  const child = execa("bash", ["-c", command], {
    cwd: opts.cwd,
    env: scrubEnv(),
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
  if (killTimer) {
    // Whatever survived the SIGTERM goes now; no need to wait out the grace once the child has ended.
    clearTimeout(killTimer);
    killGroup(pid, "SIGKILL");
  }
  if (result.isMaxBuffer) killGroup(pid, "SIGKILL");
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
