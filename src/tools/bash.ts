// bash — runs one shell command in the thread's workspace (docs/security.md: timeout 600 s, output ≤20k chars,
// cwd = workspace, secrets scrubbed from env).
//
// Decisions:
// - Where it runs is src/sandbox/run-shell.ts: inside the thread's bubblewrap session when bwrap works here (host
//   read-only, secrets hidden, own PID namespace), else on the host with a warning.
// - `bash -c`, not `bash -lc`: a login shell sources the user's profile, which may `cd` elsewhere, print banners
//   into the output or re-export the secrets we just scrubbed.
// - The workspace comes from the graph state: ToolNode passes the current state as `runtime.state`, and
//   ThreadData records `thread_data` there in beforeAgent. Without it the tool refuses to run rather than guess.
// - When the command ends, everything it started is killed (`&`, nohup, setsid, double forks: the sandbox's PID
//   namespace catches them all). A process meant to outlive the call (a dev server) is asked for explicitly with
//   `run_in_background`: its output goes to a log under outputs/, it is recorded in `background_tasks`, listed and
//   killed by bash_jobs, and dies with the chat or run.
// - stdin is closed (`ignore`): a command waiting for input ends at once instead of hanging until the timeout.
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { addJob, jobEnded } from "../sandbox/background-jobs.js";
import type { ThreadPaths } from "../sandbox/provider.js";
import { runShell, startBackground } from "../sandbox/run-shell.js";
import { shellSettingsOf } from "../sandbox/shell-settings.js";
import { tool } from "langchain";
import { z } from "zod";
import { abortErrorFrom } from "../vocabulary/abort-error.js";
import { type RuntimeLike, configurableOf } from "./fs-common.js";

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

function pathsOf(runtime: unknown): ThreadPaths {
  const state = (runtime as { state?: { thread_data?: Partial<ThreadPaths> | null } } | undefined)?.state;
  const td = state?.thread_data;
  const ws = td?.workspace_path;
  if (typeof ws !== "string" || ws === "") {
    throw new Error("bash has no workspace: thread_data.workspace_path is not set (the ThreadData middleware must run first)");
  }
  return td as ThreadPaths;
}

export const bashSchema = z.object({
  description: z.string().optional().describe("Why you are running this command, in a few words."),
  command: z.string().describe("The bash command to run. It runs in the thread's workspace directory."),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      "Start a long-running process (a server, a watcher) and return at once; its output goes to a log under /mnt/user-data/outputs. Otherwise everything the command starts is stopped when it ends.",
    ),
});

export function createBashTool(options: BashToolOptions = {}) {
  const timeoutSeconds = options.timeoutSeconds ?? BASH_DEFAULT_TIMEOUT_SECONDS;
  const maxOutputChars = options.maxOutputChars ?? BASH_DEFAULT_MAX_OUTPUT_CHARS;

  return tool(
    async ({ command, run_in_background }, runtime) => {
      const paths = pathsOf(runtime);
      const cwd = paths.workspace_path;
      const settings = shellSettingsOf(configurableOf(runtime as RuntimeLike));
      const signal = (runtime as { signal?: AbortSignal } | undefined)?.signal;
      const toolCallId = (runtime as { toolCallId?: string } | undefined)?.toolCallId ?? "";
      if (signal?.aborted) throw abortErrorFrom(signal, "The bash command was cancelled; its process group was killed");
      if (run_in_background) return startJob(command, paths, settings, runtime, toolCallId);

      const result = await runShell(command, { cwd, paths, settings, timeoutSeconds, signal });
      if (result.stoppedBy === "abort") throw abortErrorFrom(signal!, "The bash command was cancelled; its process group was killed");

      let output = capOutput(result.output.replace(/\n$/, ""), maxOutputChars);

      if (result.stoppedBy === "timeout") {
        const text = `Error: the command timed out after ${timeoutSeconds} s; its process group was killed.` + (output ? `\nOutput before the timeout:\n${output}` : "");
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
        "Use it for tests, builds, linters, git and package managers; not to read, search or edit files (read_file, grep, glob, ls, str_replace and write_file do that) " +
        "and never for interactive programs (editors, pagers, prompts): pass --yes, --no-pager or CI=1 instead. " +
        `Stdout and stderr are returned together, at most ${maxOutputChars} characters (head and tail kept); ` +
        `a non-zero exit code is reported. Commands are stopped after ${timeoutSeconds} seconds, and every process a command ` +
        "started is stopped when it ends: use run_in_background for servers and watchers (bash_jobs lists and kills them).",
      schema: bashSchema,
    },
  );
}

async function startJob(command: string, paths: ThreadPaths, settings: ReturnType<typeof shellSettingsOf>, runtime: unknown, toolCallId: string) {
  if (!paths.outputs_path) throw new Error("bash has no outputs directory for the background job's log (thread_data.outputs_path is not set)");
  const id = `bg-${randomBytes(4).toString("hex")}`;
  const logName = `${id}.log`;
  const job = { id, command, log: `/mnt/user-data/outputs/${logName}`, started_at: new Date().toISOString(), status: "running" as const };
  const handle = await startBackground(command, {
    cwd: paths.workspace_path,
    paths,
    settings,
    logPath: join(paths.outputs_path, logName),
    onEnd: (code) => jobEnded(id, code),
  });
  addJob({ ...job }, handle.kill);
  const before = (runtime as { state?: { background_tasks?: unknown } } | undefined)?.state?.background_tasks;
  const tasks = [...(Array.isArray(before) ? before : []), { ...job, kind: "bash" }];
  const text = `Started background job ${id}; its output goes to ${job.log}. bash_jobs lists or kills it; it stops when this chat or run ends.`;
  return new Command({ update: { background_tasks: tasks, messages: [new ToolMessage({ tool_call_id: toolCallId, name: "bash", content: text })] } });
}
