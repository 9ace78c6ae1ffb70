// SessionStart and UserPromptSubmit hooks (.deerflowrc `hooks`), before any run starts. SessionStart runs first when
// the caller says a session starts (a `deerflow run`; a chat's first prompt on a thread): its `additionalContext`
// goes with the prompt, a block is only reported (as in Claude Code). UserPromptSubmit sees the prompt: exit 2 (or a
// "block" answer) stops it there, with the hook's reason as the one line the user reads (exit 5 headless: stopped by a
// guard); `additionalContext` goes with the prompt, marked as the hook's. Their `hook.run` reports wait for the run's
// `run.started` (stream-json's first event stays first) and carry its run id.
import { hookSetupOf } from "./hook-setup.js";
import { DeerflowError, ExitCode } from "../errors.js";
import type { ResolvedConfig } from "../config/load.js";
import { type HookReport, hooksFor, runHooks } from "../hooks/run-hooks.js";
import type { RunEvent } from "./events.js";

export interface SubmittedPrompt {
  prompt: string;
  /** Wraps the run's event listener: the hooks' reports follow its run.started. */
  report: (onEvent?: (e: RunEvent) => void) => ((e: RunEvent) => void) | undefined;
}

const passThrough = (onEvent?: (e: RunEvent) => void) => onEvent;

export async function submitPrompt(config: ResolvedConfig, prompt: string, opts: { threadId?: string; signal?: AbortSignal; sessionStart?: "startup" | "resume" } = {}): Promise<SubmittedPrompt> {
  const some = (event: "SessionStart" | "UserPromptSubmit") => hooksFor({ hooks: config.hooks, cwd: "" }, event).length > 0;
  if (!some("UserPromptSubmit") && !(opts.sessionStart && some("SessionStart"))) return { prompt, report: passThrough };
  const reports: HookReport[] = [];
  const setup = hookSetupOf(config, (r) => reports.push(r))!;
  const ids = { session_id: opts.threadId, thread_id: opts.threadId };
  const started = opts.sessionStart ? await runHooks(setup, "SessionStart", { ...ids, source: opts.sessionStart }, { signal: opts.signal }) : { context: [] };
  const r = await runHooks(setup, "UserPromptSubmit", { ...ids, prompt }, { signal: opts.signal });
  if (r.blocked || r.stop) {
    const why = r.blocked ? `${r.blocked.reason} (${r.blocked.command})` : r.stop!;
    throw new DeerflowError(`Your prompt was not sent: a UserPromptSubmit hook blocked it: ${why}`, { exitCode: ExitCode.guardStop, hint: "Change the prompt, or the hook in your .deerflowrc." });
  }
  const notes = [...started.context.map((c) => `[SessionStart hook] ${c}`), ...r.context.map((c) => `[UserPromptSubmit hook] ${c}`)];
  const withContext = notes.length ? `${prompt}\n\n${notes.join("\n")}` : prompt;
  return {
    prompt: withContext,
    report: (onEvent) => (e) => {
      onEvent?.(e);
      if (e.type === "run.started") for (const report of reports.splice(0)) onEvent?.({ type: "hook.run", run_id: e.run_id, ...report });
    },
  };
}
