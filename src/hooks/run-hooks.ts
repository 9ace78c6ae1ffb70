// The hooks of one event, run in configuration order (the user's file first): each matching one gets the event's
// JSON, the first that blocks ends the round (later ones do not run), additional context adds up. Every run is
// reported (stream-json's `hook.run` event; the TUI's notice of a failing hook).
import { type ResolvedHook, matchesTool } from "../config/hooks-config.js";
import { MATCHED_HOOK_EVENTS, type HookEvent } from "../vocabulary/hook-events.js";
import { hookEnv } from "./hook-env.js";
import { hookOutcome } from "./hook-outcome.js";
import { runHookCommand } from "./run-hook.js";

export interface HookReport {
  event: HookEvent;
  command: string;
  /** The .deerflowrc it came from. */
  file: string;
  tool?: string;
  status: "ok" | "blocked" | "error";
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  /** Why it blocked or failed (masked). */
  reason?: string;
}

export interface HookSetup {
  hooks: readonly ResolvedHook[];
  /** Where hooks run (the folder deerflow started in) and what `cwd` says in their input. */
  cwd: string;
  /** What a hook's environment leaves out or lets through (hook-env.ts). */
  secretValues?: readonly string[];
  passEnv?: readonly string[];
  onReport?: (report: HookReport) => void;
}

export interface HooksResult {
  /** The first block: which hook and why. */
  blocked?: { command: string; reason: string };
  /** Texts hooks added for the model, in order. */
  context: string[];
  /** A hook answered `continue: false`: its reason. */
  stop?: string;
}

/** The hooks of `event` (for an event with a matcher, those whose matcher selects `subject`: a tool, a trigger). */
export function hooksFor(setup: HookSetup | undefined, event: HookEvent, subject?: string): ResolvedHook[] {
  return (setup?.hooks ?? []).filter((h) => h.event === event && (!MATCHED_HOOK_EVENTS.includes(event) || matchesTool(h.matcher, subject ?? "")));
}

export interface RunHooksOptions {
  /** The tool a tool event is about (matched and reported). */
  tool?: string;
  /** What a non-tool event's matcher is read against (PreCompact: its trigger). */
  match?: string;
  signal?: AbortSignal;
  /** Said in the report of a hook that blocked when its block will not be followed (a Stop hook past the bound). */
  blockNote?: string;
}

/** Runs the hooks of `event`; `input` is the event's fields (hook_event_name and cwd are added). */
export async function runHooks(setup: HookSetup | undefined, event: HookEvent, input: Record<string, unknown>, opts: RunHooksOptions = {}): Promise<HooksResult> {
  const result: HooksResult = { context: [] };
  for (const hook of hooksFor(setup, event, opts.match ?? opts.tool)) {
    if (opts.signal?.aborted) break;
    const payload = { ...input, hook_event_name: event, cwd: setup!.cwd };
    const run = await runHookCommand(hook.command, payload, { cwd: setup!.cwd, timeoutSeconds: hook.timeoutSeconds, signal: opts.signal, env: hookEnv(setup!) });
    const outcome = hookOutcome(run, hook.timeoutSeconds);
    setup!.onReport?.({
      event,
      command: hook.command,
      file: hook.file,
      ...(opts.tool ? { tool: opts.tool } : {}),
      status: outcome.status,
      exit_code: run.exitCode ?? null,
      timed_out: run.timedOut,
      duration_ms: run.durationMs,
      ...(outcome.reason ? { reason: outcome.status === "blocked" && opts.blockNote ? `${outcome.reason} (${opts.blockNote})` : outcome.reason } : {}),
    });
    if (outcome.additionalContext) result.context.push(outcome.additionalContext);
    if (!outcome.continue) result.stop = outcome.reason ?? "a hook asked to stop";
    if (outcome.status === "blocked") {
      result.blocked = { command: hook.command, reason: outcome.reason ?? "blocked by a hook" };
      break;
    }
    if (result.stop) break;
  }
  return result;
}
