// The headless consumers of the run event stream: text (answer on stdout, progress on stderr), json (one object at
// the end), stream-json (one event per line, first run.started, last run.completed).
import { hookNotice } from "../../vocabulary/hook-notice.js";
import { compactionNotice } from "../../vocabulary/compaction-notice.js";
import { formatErrorLine, runStatusOf } from "../../errors.js";
import { forTerminal, jsonText, maskUrlCredentials, unseenEscaped } from "../../vocabulary/terminal-text.js";
import { retryLine } from "../../vocabulary/retry-status.js";
import { failedRunUsage } from "../../runtime/run-usage.js";
import { withHostPaths } from "./host-paths.js";
import { presentedLine } from "../../vocabulary/presented-files.js";
import { keptFilesLine } from "../../vocabulary/kept-files.js";
import { unhandled } from "../../vocabulary/exhaustive.js";
import type { PermissionDenial, RunEvent } from "../../runtime/events.js";
import { DenialTally, denialSummary } from "./denials.js";
import type { GoalSummary } from "../../runtime/run-goal.js";
import type { RunResult } from "../../runtime/run-thread.js";

export type OutputFormat = "text" | "json" | "stream-json";

export interface Printer {
  event(e: RunEvent): void;
  result(r: RunResult, goal?: GoalSummary): void;
  failure(err: unknown): void;
  /** The tool calls refused so far in this command's runs (`permission_denials`). */
  denials(): PermissionDenial[];
}

type Out = { write(s: string): unknown };

function oneLine(s: string, max = 120): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Every write through forTerminal (no escape sequences, no URL credentials); JSON is escaped already. */
function guarded(out: Out, json: boolean): Out {
  return { write: (s: string) => out.write(json ? maskUrlCredentials(s) : forTerminal(s)) };
}

export function createPrinter(format: OutputFormat, rawStdout: Out, rawStderr: Out): Printer {
  const stdout = guarded(rawStdout, format !== "text");
  const stderr = guarded(rawStderr, false);
  let threadId: string | undefined;
  let runId: string | undefined;
  let workspace: string | undefined;
  let newThread: boolean | undefined;
  const tally = new DenialTally();
  const denials = () => tally.all();
  /** What every consumer of the stream keeps: the thread, the run, whether the thread is new, the denials. */
  const track = (e: RunEvent) => {
    tally.see(e);
    if (e.type !== "run.started") return;
    threadId = e.thread_id;
    runId = e.run_id;
    workspace = e.workspace;
    newThread ??= e.new_thread;
  };
  const note = (s: string) => stderr.write(`deerflow: ${s}\n`);
  const noteDenials = () => {
    const line = denialSummary(denials());
    if (line) note(withHostPaths(line, workspace));
  };
  const progress = (e: RunEvent) => {
    track(e);
    switch (e.type) {
      case "run.started":
        note(e.new_thread ? `new thread ${e.thread_id} (continue it with --thread ${e.thread_id})` : `thread ${e.thread_id}`);
        break;
      case "tool.started":
        note(`→ ${e.name} ${oneLine(unseenEscaped(withHostPaths(JSON.stringify(e.args ?? {}), workspace)), 100)}`);
        break;
      case "tool.completed":
        if (e.status === "error") note(`✗ ${e.name}: ${oneLine(withHostPaths(e.output, workspace))}`);
        break;
      case "todos.updated": {
        const mark = { pending: "[ ]", in_progress: "[>]", completed: "[x]" } as const;
        note(`todos:${e.todos.length === 0 ? " (cleared)" : ""}`);
        for (const t of e.todos) stderr.write(`  ${mark[t.status] ?? "[ ]"} ${oneLine(t.content, 100)}\n`);
        break;
      }
      case "files.presented":
        note(presentedLine(e.files));
        break;
      case "files.kept":
        note(keptFilesLine(e.files));
        break;
      case "notes.updated":
        note(e.notes ? `notes updated (${e.notes.length} characters)` : "notes cleared");
        break;
      case "delegation.updated":
        for (const d of e.delegations) {
          const verdict = d.verdict ? ` · ${oneLine(d.verdict.summary, 160)}` : "";
          note(`subagent ${d.subagent_type} "${oneLine(d.description, 60)}": ${d.status}${d.stop_reason ? ` (${d.stop_reason})` : ""}${verdict}`);
        }
        break;
      case "goal.evaluated":
        note(`goal ${e.evaluation.satisfied ? "met" : `not met (${e.evaluation.blocker})`}: ${oneLine(e.evaluation.reason, 160)}`);
        break;
      case "goal.continued":
        note(`continuing toward the goal (continuation ${e.continuation_count})`);
        break;
      case "sandbox.warning":
      case "snapshot.warning":
        stderr.write(`warning: ${e.message}\n`);
        break;
      case "mcp.failed":
        stderr.write(`warning: MCP server "${e.server}" is not available: ${e.message}; continuing without it (\`deerflow mcp list\` shows its status).\n`);
        break;
      case "context.compacted":
        note(compactionNotice(e));
        break;
      case "model.retry":
        note(retryLine(e));
        break;
      case "hook.run": {
        const line = hookNotice(e);
        if (line) stderr.write(`${e.status === "error" ? "warning: " : ""}${line}\n`);
        break;
      }
      // The answer and the question arrive with the result; approvals are answered by the approval gate (denied
      // headless unless --yes, and the denial is a tool result); an error ends the run through failure().
      case "message.delta":
      case "message.reasoning":
      case "message.completed":
      case "clarification.requested":
      case "approval.requested":
      case "error":
      case "run.completed":
        break;
      default:
        unhandled(e, undefined);
    }
  };

  if (format === "stream-json") {
    const line = (o: unknown) => stdout.write(`${jsonText(o)}\n`);
    return {
      event(e) {
        track(e);
        line(e);
      },
      result() {},
      // Always ends with run.completed, also when nothing ran (bad config, no model): one terminal shape to wait for.
      failure(err) {
        const message = formatErrorLine(err);
        line({ type: "error", run_id: runId, message });
        const status = runId ? runStatusOf(err) : "error";
        line({
          type: "run.completed",
          thread_id: threadId ?? null,
          run_id: runId ?? null,
          status,
          stop_reason: status,
          final_text: "",
          ...failedRunUsage(err),
          permission_denials: denials(),
          error: message,
        });
      },
      denials,
    };
  }

  if (format === "json") {
    return {
      // stdout stays one JSON object; the user still sees progress (and denials) on stderr.
      event: progress,
      result(r, goal) {
        const base = { thread_id: r.thread_id, new_thread: newThread ?? false, run_id: r.run_id, status: r.status, stop_reason: r.stop_reason, final_text: r.final_text };
        const rest = { usage: r.usage, thread_usage: r.thread_usage, permission_denials: denials(), files: r.files ?? [], goal: goal ?? null };
        stdout.write(`${jsonText({ ...base, ...rest, ...(r.clarification ? { clarification: r.clarification } : {}) })}\n`);
      },
      failure(err) {
        const status = runId ? runStatusOf(err) : "error";
        const base = { thread_id: threadId ?? null, new_thread: newThread ?? null, run_id: runId ?? null, status, stop_reason: status, final_text: "" };
        stdout.write(`${jsonText({ ...base, ...failedRunUsage(err), permission_denials: denials(), files: [], goal: null, error: formatErrorLine(err) })}\n`);
      },
      denials,
    };
  }

  return {
    event: progress,
    result(r, goal) {
      if (goal) note(`goal ${goal.outcome.replace("_", " ")}: ${oneLine(goal.reason, 200)}`);
      noteDenials();
      if (r.clarification) {
        const c = r.clarification;
        const lines = [c.question];
        if (c.context) lines.push(c.context);
        (c.options ?? []).forEach((o, i) => lines.push(`  ${i + 1}. ${o}`));
        stdout.write(`${lines.join("\n")}\n`);
        note(`the agent needs your answer: deerflow run --thread ${r.thread_id} "<answer>"`);
        return;
      }
      const answer = withHostPaths(r.final_text, workspace);
      stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
      if (r.stop_reason !== "end_turn") note(`stopped: ${r.stop_reason} (continue with --thread ${r.thread_id})`);
    },
    // The error's own line follows (the command reports it).
    failure: noteDenials,
    denials,
  };
}
