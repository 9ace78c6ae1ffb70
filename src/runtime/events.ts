// The one typed event stream of a run. The headless printers (text / json / stream-json) and the TUI are both
// consumers of it; neither reaches into the graph.

import type { HookReport } from "../hooks/run-hooks.js";
import type { ApprovalDiff, ApprovalRequestedEvent } from "../sandbox/approvals.js";
import type { PermissionDenial } from "../vocabulary/permission-denials.js";
import type { FinalRunStatus } from "../vocabulary/statuses.js";
import type { StopReason } from "../vocabulary/stop-reasons.js";
import type { CompactionInfo } from "../vocabulary/compaction-notice.js";
import type { TokenUsage } from "../vocabulary/token-usage.js";

export type { ApprovalDiff, ApprovalRequestedEvent, PermissionDenial };

/** Tokens with their breakdown by source (`by_source`: lead, subagents, title, summary, goal, memory). */
export type { TokenUsage };

/** How a run ended (the event stream never shows pending/running as an end). */
export type RunStatus = FinalRunStatus;
export type { StopReason };

export interface ClarificationRequest {
  question: string;
  clarification_type: string;
  context?: string;
  options?: string[];
}

/** One subagent delegation as consumers see it (the ledger entry; times are ISO strings). */
export interface DelegationView {
  id: string;
  description: string;
  subagent_type: string;
  status: string;
  stop_reason?: string | null;
  result_brief?: string;
  /** The runtime's check of the report's receipts and the lead's acceptance checks (absent: nothing to check). */
  verdict?: { verified: boolean; summary: string };
  /** The subagent's refused tool calls (the run's `permission_denials` lists them too). */
  permission_denials?: PermissionDenial[];
  created_at?: string;
  updated_at?: string;
}

export interface TodoView {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

export type RunEvent =
  | ApprovalRequestedEvent
  /** `workspace`: the host directory the thread works in (its bound directory or its own fresh folder). */
  | { type: "run.started"; thread_id: string; run_id: string; new_thread: boolean; workspace?: string }
  | { type: "message.delta"; run_id: string; text: string }
  /** The model's reasoning as it streams (reasoning_content / reasoning): shown as thinking, never part of the answer. */
  | { type: "message.reasoning"; run_id: string; text: string }
  /** `usage`: this model call's tokens (input = the context it was sent; the TUI's context fill). */
  | { type: "message.completed"; run_id: string; message_id?: string; text: string; tool_calls: { id?: string; name: string }[]; usage?: TokenUsage }
  | { type: "tool.started"; run_id: string; tool_call_id?: string; name: string; args: unknown }
  /**
   * `diff`: what a file edit (write_file, str_replace) changed, as a unified diff with its +/− counts. `denial`: the
   * call was refused (blocked by policy, or denied by the headless default or the user), never run.
   */
  | { type: "tool.completed"; run_id: string; tool_call_id?: string; name: string; status: "ok" | "error"; output: string; diff?: ApprovalDiff; denial?: PermissionDenial }
  /** One hook ran (.deerflowrc `hooks`): which, on what, how it ended (docs/hooks.md). */
  | ({ type: "hook.run"; run_id: string } & HookReport)
  /** A transient model failure: attempt `attempt` of `max_attempts` (2 for the first retry) follows after `delay_ms`. */
  | { type: "model.retry"; run_id: string; attempt: number; max_attempts: number; delay_ms: number; reason: string }
  /** Older messages were replaced by a summary (originals archived, readable with read_history). */
  | ({ type: "context.compacted"; run_id: string } & CompactionInfo)
  | {
      type: "delegation.updated";
      run_id: string;
      delegations: DelegationView[];
    }
  | { type: "todos.updated"; run_id: string; todos: TodoView[] }
  /** A failed run's conversation was rolled back but the files it changed are kept (`files`: their paths here); the next run's model is told. */
  | { type: "files.kept"; run_id: string; files: string[] }
  /** The agent presented finished files (present_files): `files` are their paths on this machine. */
  | { type: "files.presented"; run_id: string; files: string[] }
  /** The agent's working notes (write_notes) changed; "" when cleared. */
  | { type: "notes.updated"; run_id: string; notes: string }
  | { type: "clarification.requested"; run_id: string; clarification: ClarificationRequest }
  | {
      type: "goal.evaluated";
      run_id?: string;
      evaluation: { satisfied: boolean; blocker: string; reason: string; evidence_summary?: string; relied_on_assumption?: boolean };
      continuation_count: number;
    }
  | { type: "goal.continued"; run_id?: string; continuation_count: number; reason: string }
  | { type: "error"; run_id?: string; message: string }
  /** An MCP server could not start (or stopped); given once per server per chat or run, which goes on without it. */
  | { type: "mcp.failed"; server: string; message: string }
  /** The shell runs unconfined (no bubblewrap); given once per chat or run. */
  | { type: "sandbox.warning"; message: string }
  /** The workspace's files were not snapshotted before the run (git missing, a git failure): only they cannot be rewound. */
  | { type: "snapshot.warning"; run_id: string; message: string }
  | {
      type: "run.completed";
      thread_id: string;
      run_id: string;
      status: RunStatus;
      stop_reason: StopReason;
      final_text: string;
      /** This run's tokens: the lead's, its subagents' and its side calls', with `by_source`. */
      usage: TokenUsage;
      /** The thread's tokens so far, this run included. */
      thread_usage: TokenUsage;
      /** The run's tool calls that were refused, in order (empty when none). */
      permission_denials: PermissionDenial[];
      /** After a failure (the headless printers' last line): the one line also printed on stderr. */
      error?: string;
    };

export type RunEventType = RunEvent["type"];
export type RunEventListener = (event: RunEvent) => void;

export function emptyUsage(): TokenUsage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
}
