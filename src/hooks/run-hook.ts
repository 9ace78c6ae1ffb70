// One hook command run: `sh -c <command>` on the host, as the user's own command (not in the sandbox: a hook is
// something the user wrote in their own or a trusted .deerflowrc, like a git hook), with the event's JSON on stdin.
// Its own process group, killed whole at the timeout; stdout and stderr kept up to HOOK_OUTPUT_MAX_BYTES each (the
// rest is read and dropped, so a hook printing 10 MB neither blocks on a full pipe nor fills memory).
import { spawn } from "node:child_process";

/** Bytes of a hook's stdout, and of its stderr, that are kept. */
export const HOOK_OUTPUT_MAX_BYTES = 64 * 1024;

export interface HookRunResult {
  /** undefined when it was killed (timeout) or could not start. */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

function collector() {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    add(b: Buffer) {
      const room = HOOK_OUTPUT_MAX_BYTES - kept;
      if (room > 0) chunks.push(b.subarray(0, room));
      kept += Math.min(room > 0 ? room : 0, b.length);
      dropped += Math.max(0, b.length - Math.max(room, 0));
    },
    text: () => Buffer.concat(chunks).toString("utf8") + (dropped ? `\n[… ${dropped} more bytes not kept]` : ""),
  };
}

/** How long output is still read after the hook's own process exits (its pipes may be held by a process it left). */
const EXIT_GRACE_MS = 200;

export function runHookCommand(command: string, input: unknown, opts: { cwd: string; timeoutSeconds: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<HookRunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], { cwd: opts.cwd, env: opts.env ?? process.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out = collector();
    const err = collector();
    let timedOut = false;
    let grace: NodeJS.Timeout | undefined;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      // A process that left the group (`setsid … &`) may still hold the output open: the timeout does not wait for it
      // (the thirteenth pass's M1 held a run 25 s past a 2 s timeout).
      finish(undefined);
    }, opts.timeoutSeconds * 1000);
    const onAbort = () => killGroup();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (b: Buffer) => out.add(b));
    child.stderr.on("data", (b: Buffer) => err.add(b));
    // A hook that never reads stdin (or exits first) must not fail the run with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
    let done = false;
    const finish = (exitCode: number | undefined, startError?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      child.stdout.destroy();
      child.stderr.destroy();
      opts.signal?.removeEventListener("abort", onAbort);
      // Children it left behind (a backgrounded `sleep`) go with it.
      killGroup();
      resolve({ exitCode, stdout: out.text(), stderr: startError ? startError.message : err.text(), timedOut, durationMs: Date.now() - started });
    };
    child.on("error", (e) => finish(undefined, e));
    child.on("close", (code) => finish(timedOut ? undefined : (code ?? undefined)));
    // The hook itself ended: what it printed is read for a moment more, then nothing it left behind is waited for.
    child.on("exit", (code) => {
      grace = setTimeout(() => finish(timedOut ? undefined : (code ?? undefined)), EXIT_GRACE_MS);
    });
  });
}
