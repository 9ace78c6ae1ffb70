// The debug log's view of a run, from the run's own event stream: its start and end (status, stop reason, tokens,
// duration), each model answer's tokens and tool names, retries, compaction, questions, warnings and goal decisions.
// Text (the answer, the reasoning, tool output) is never logged: the log is for what happened, not what was said.
import { debugLog, debugLogFile } from "../model/debug-log.js";
import { findDeerflowError, formatErrorLine } from "../errors.js";
import type { RunEvent, RunEventListener } from "./events.js";

/** The fields worth a line, or undefined for events the log skips (streamed text, lists the state keeps). */
function summary(e: RunEvent): Record<string, unknown> | undefined {
  switch (e.type) {
    case "run.started":
      return { thread_id: e.thread_id, run_id: e.run_id, new_thread: e.new_thread, workspace: e.workspace };
    case "run.completed":
      return { thread_id: e.thread_id, run_id: e.run_id, status: e.status, stop_reason: e.stop_reason, usage: e.usage, thread_usage: e.thread_usage, denials: e.permission_denials.length };
    case "message.completed":
      return { run_id: e.run_id, tool_calls: e.tool_calls.map((c) => c.name), usage: e.usage };
    case "model.retry":
      return { run_id: e.run_id, attempt: e.attempt, max_attempts: e.max_attempts, delay_ms: e.delay_ms, reason: e.reason };
    case "context.compacted":
      return { run_id: e.run_id, messages: e.messages, tokens_before: e.tokens_before, tokens_after: e.tokens_after, summary_failed: e.summary_failed };
    case "approval.requested":
      return { tool: e.tool, kind: e.kind, reason: e.reason };
    case "goal.evaluated":
      return { run_id: e.run_id, satisfied: e.evaluation.satisfied, blocker: e.evaluation.blocker, continuation_count: e.continuation_count };
    case "goal.continued":
      return { run_id: e.run_id, continuation_count: e.continuation_count };
    case "clarification.requested":
      return { run_id: e.run_id, clarification_type: e.clarification.clarification_type };
    case "tool.completed":
      // An error result is also how a denial or a blocked command reaches the model; `denied_by` says which.
      return e.status === "error" ? { run_id: e.run_id, tool: e.name, status: e.status, output: e.output.slice(0, 300), ...(e.denial ? { denied_by: e.denial.denied_by } : {}) } : undefined;
    case "sandbox.warning":
    case "snapshot.warning":
    case "mcp.failed":
    case "error":
      return { ...e, type: undefined };
    default:
      return undefined;
  }
}

/** Logs the run's end as seen by its caller: the result's status, or the one line of the error it failed with. */
export async function loggedRun<T extends { status: string; stop_reason: string }>(threadId: string | undefined, run: () => Promise<T>): Promise<T> {
  if (!debugLogFile()) return run();
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const r = await run();
    debugLog("run.ended", { thread_id: threadId, status: r.status, stop_reason: r.stop_reason, duration_ms: ms() });
    return r;
  } catch (err) {
    debugLog("run.failed", { thread_id: threadId, error: formatErrorLine(err), exit_code: findDeerflowError(err)?.exitCode, stack: (err as Error)?.stack, duration_ms: ms() });
    throw err;
  }
}

/** `listener` with every event worth it also written to the debug log (the listener itself unchanged when none is open). */
export function withEventLog(listener: RunEventListener | undefined): RunEventListener | undefined {
  if (!debugLogFile()) return listener;
  return (e) => {
    const fields = summary(e);
    if (fields) debugLog(e.type, fields);
    listener?.(e);
  };
}
