// bash — runs one shell command in the thread's workspace (SPEC §7: timeout 600 s, output ≤20k chars,
// cwd = workspace, secrets scrubbed from env).
//
// Decisions:
// - `bash -c`, not `bash -lc`: a login shell sources the user's profile, which may `cd` elsewhere, print banners
//   into the output or re-export the secrets we just scrubbed. A plain non-interactive shell gets a predictable
//   cwd and environment. (BASH_ENV, if the user set one, is still honoured by bash — their choice.)
// - The workspace comes from the graph state: ToolNode passes the current state as `runtime.state`
//   (langchain/dist/agents/nodes/ToolNode.js: `state: config.configurable.__pregel_scratchpad.currentTaskInput`),
//   and ThreadData records `thread_data.workspace_path` there in beforeAgent. Without it the tool refuses to run
//   (throws → ToolErrorHandling makes it an error ToolMessage) rather than guessing a directory.
// - The child starts in its own process group (`detached: true` → setsid), so a timeout or a cancelled run kills
//   the WHOLE group: SIGTERM, then SIGKILL after a short grace. Background grandchildren (`sleep 1000 &`) share
//   the group and die with it. Not covered: a descendant that calls setsid() itself, or background jobs that
//   detach their output (`nohup srv >log 2>&1 &`) when the command ends normally — those are left running so a
//   dev server can be started on purpose.
// - stdin is closed (`ignore`): a command waiting for input ends at once instead of hanging until the timeout.
import { ToolMessage } from "@langchain/core/messages";
import { runShell } from "../sandbox/run-shell.js";
import { tool } from "langchain";
import { z } from "zod";

export const BASH_DEFAULT_TIMEOUT_SECONDS = 600;
export const BASH_DEFAULT_MAX_OUTPUT_CHARS = 20_000;
export { BASH_KILL_GRACE_MS, isSecretEnvName, scrubEnv } from "../sandbox/run-shell.js";

export interface BashToolOptions {
  /** Wall-clock limit per command (default 600 s). */
  timeoutSeconds?: number;
  /** Longest output returned to the model (default 20 000 characters; head and tail are kept). */
  maxOutputChars?: number;
}

// ---------------------------------------------------------------------------------------------
// output cap

/** `text` if it fits in `max` characters; else its head and tail with `[... N characters cut ...]` between. */
export function capOutput(text: string, max = BASH_DEFAULT_MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const noteFor = (cut: number) => `\n[... ${cut} characters cut ...]\n`;
  // The note's length depends on N: size it with a first guess, then fix N exactly.
  let cut = text.length;
  let head = 0;
  let tail = 0;
  for (let i = 0; i < 2; i++) {
    const budget = Math.max(0, max - noteFor(cut).length);
    head = Math.ceil(budget / 2);
    tail = budget - head;
    cut = text.length - head - tail;
  }
  return `${text.slice(0, head)}${noteFor(cut)}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

function workspaceOf(runtime: unknown): string {
  const state = (runtime as { state?: { thread_data?: { workspace_path?: unknown } | null } } | undefined)?.state;
  const ws = state?.thread_data?.workspace_path;
  if (typeof ws !== "string" || ws === "") {
    throw new Error("bash has no workspace: thread_data.workspace_path is not set (the ThreadData middleware must run first)");
  }
  return ws;
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return Object.assign(new Error("The bash command was cancelled; its process group was killed"), { name: "AbortError", cause: reason });
}

export const bashSchema = z.object({
  description: z.string().optional().describe("Why you are running this command, in a few words."),
  command: z.string().describe("The bash command to run. It runs in the thread's workspace directory."),
});

export function createBashTool(options: BashToolOptions = {}) {
  const timeoutSeconds = options.timeoutSeconds ?? BASH_DEFAULT_TIMEOUT_SECONDS;
  const maxOutputChars = options.maxOutputChars ?? BASH_DEFAULT_MAX_OUTPUT_CHARS;

  return tool(
    async ({ command }, runtime) => {
      const cwd = workspaceOf(runtime);
      const signal = (runtime as { signal?: AbortSignal } | undefined)?.signal;
      const toolCallId = (runtime as { toolCallId?: string } | undefined)?.toolCallId ?? "";
      if (signal?.aborted) throw abortError(signal);

      const result = await runShell(command, { cwd, timeoutSeconds, signal });
      if (result.stoppedBy === "abort") throw abortError(signal!);

      let output = capOutput(result.output.replace(/\n$/, ""), maxOutputChars);

      if (result.stoppedBy === "timeout") {
        const text =
          `Error: the command timed out after ${timeoutSeconds} s; its process group was killed.` +
          (output ? `\nOutput before the timeout:\n${output}` : "");
        return new ToolMessage({ tool_call_id: toolCallId, name: "bash", status: "error", content: text });
      }

      const notes: string[] = [];
      if (result.isMaxBuffer) notes.push("output exceeded the buffer limit; the command was stopped");
      if (typeof result.exitCode === "number" && result.exitCode !== 0) notes.push(`exit code ${result.exitCode}`);
      else if (result.signal) notes.push(`terminated by signal ${result.signal}`);
      if (!output && notes.length === 0) output = "(no output)";
      return [output, ...notes].filter(Boolean).join("\n");
    },
    {
      name: "bash",
      description:
        "Run a bash command in the thread's workspace directory (non-interactive, no stdin). " +
        `Stdout and stderr are returned together, at most ${maxOutputChars} characters (head and tail kept); ` +
        `a non-zero exit code is reported. Commands are stopped after ${timeoutSeconds} seconds.`,
      schema: bashSchema,
    },
  );
}
