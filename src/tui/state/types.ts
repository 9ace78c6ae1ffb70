// What the TUI shows, as plain data. The transcript is append-only (Ink <Static>: committed once, never redrawn);
// everything else is the small live region under it. Types from the runtime are imported as types only, so the
// TUI bundle never loads LangChain.
import type { ApprovalMode } from "../../vocabulary/approval-modes.js";
import type { ApprovalDiff, ApprovalRequestedEvent, ClarificationRequest, DelegationView, RunStatus, StopReason, TodoView, TokenUsage } from "../../runtime/events.js";

export type { ApprovalDiff, ApprovalRequestedEvent, ClarificationRequest, DelegationView, TodoView, TokenUsage };
export type ApprovalDecision = "allow_once" | "allow_always" | "deny";

export type ToolStatus = "running" | "ok" | "error";

export interface ToolCallView {
  id: string;
  name: string;
  args: unknown;
  status: ToolStatus;
  output: string;
  /** What a file edit changed (write_file, str_replace). */
  diff?: ApprovalDiff;
  /** ms timestamps (Date.now()); absent for tool calls restored from a saved thread. */
  startedAt?: number;
  endedAt?: number;
}

export interface ThreadSummary {
  id: string;
  title: string | null;
  updated_at: string;
  status: string;
  workspace: string | null;
}

export interface HelpLine {
  keys: string;
  description: string;
}

export type NoticeLevel = "info" | "warning" | "error";

export type TranscriptItem =
  | { kind: "banner"; id: string; version: string; cwd: string }
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string }
  | { kind: "thinking"; id: string; text: string }
  | { kind: "tool"; id: string; tool: ToolCallView; expanded?: boolean }
  /** An edit's whole diff, printed on request while its approval waits. */
  | { kind: "diff"; id: string; title: string; diff: ApprovalDiff }
  | { kind: "clarification"; id: string; clarification: ClarificationRequest }
  | { kind: "shell"; id: string; command: string; cwd: string; output: string; exitCode?: number; stoppedBy?: "timeout" | "abort" }
  | { kind: "notice"; id: string; level: NoticeLevel; text: string }
  /** A finished run's subagents: one summary line unless `expanded` (ctrl+t prints the panel). */
  | { kind: "delegations"; id: string; delegations: DelegationView[]; expanded?: boolean }
  | { kind: "todos"; id: string; todos: TodoView[]; notes?: string }
  | { kind: "threads"; id: string; threads: ThreadSummary[]; current?: string }
  | { kind: "help"; id: string; commands: HelpLine[]; keys: HelpLine[] }
  | { kind: "run-end"; id: string; status: RunStatus; stop_reason: StopReason; usage: TokenUsage; elapsedMs: number };

export interface GoalView {
  objective: string;
  status: "active" | "achieved" | "not_achieved" | "needs_user_input";
  continuation_count: number;
}

export interface StatusView {
  model: string;
  threadId?: string;
  title?: string;
  usage: TokenUsage;
  goal: GoalView | null;
  approvalMode: ApprovalMode;
  /** The model's context window (tokens), when configured: the status line shows the fill. */
  contextWindow?: number;
  /** Tokens the next request starts from (the last call's usage, or an estimate). */
  context?: { tokens: number; estimated: boolean };
  /** The directory the thread works in, by name ("scratch": its own fresh folder); absent until loaded. */
  workspace?: string;
  /** Start-up is loading a thread to resume (`deerflow resume`): by id, or the latest one. Cleared when ready. */
  resuming?: { threadId?: string };
}

export interface RunView {
  startedAt: number;
  runId?: string;
  /** Set once the user asked to cancel (Esc): the spinner says "cancelling…". */
  cancelling?: boolean;
  /** A model retry in progress: the spinner line says so until the model answers (never the transcript). */
  retry?: { attempt: number; max_attempts: number; reason: string; until: number };
}

/**
 * A model the picker offers: on first run, one a local server serves (the choice is written to ~/.deerflowrc); on
 * `/model`, also the configured names and what the endpoint lists (the choice is used for this session).
 */
export interface ModelOption {
  server: string;
  /** "" for a configured name (its endpoint is in .deerflowrc). */
  baseUrl: string;
  model: string;
  /** The model in use now. */
  current?: boolean;
}

/** A project .deerflowrc whose keys need trust, asked about once before the session starts. */
export interface TrustPromptView {
  file: string;
  folder: string;
  /** It was trusted, then changed. */
  changed: boolean;
  /** What it would do, in plain words. */
  wants: string[];
}

export interface ChatState {
  /** Committed transcript (rendered once, in order). */
  items: TranscriptItem[];
  /** The answer being streamed right now (live region). */
  streaming: string;
  /** The model's reasoning for the answer being streamed (committed dimmed, before the answer). */
  thinking: string;
  /** Tool calls of the current run that have not finished. */
  tools: ToolCallView[];
  /** The last finished tool call (Ctrl+O shows its full output). */
  lastTool?: ToolCallView;
  todos: TodoView[];
  todosExpanded: boolean;
  /** The agent's working notes (write_notes); "" when none. Shown on /todos. */
  notes: string;
  /** Delegations of the current run (live panel) with first/last seen times. */
  delegations: DelegationView[];
  clarification: ClarificationRequest | null;
  /** First run with no model configured: the local models offered, until one is picked. */
  modelPicker: ModelOption[] | null;
  /** Set when the picker is `/model`'s (switch for this session), not the first run's (save and start). */
  modelPickerSwitch?: boolean;
  /** The project folder's trust question, until answered. */
  trustPrompt: TrustPromptView | null;
  /** Guarded commands waiting for the user, oldest first. */
  approvals: ApprovalRequestedEvent[];
  run: RunView | null;
  status: StatusView;
  /** False until the runtime is loaded (the first frame comes before). */
  ready: boolean;
  /** Set while Ctrl+C was pressed once on an empty input: a second press exits. */
  exitArmed: boolean;
  /** Messages typed while a run works, oldest first: sent in order as runs end (message-queue.ts). */
  queued: string[];
  /** A passing word under the input (e.g. why Enter did nothing); cleared when the run ends. */
  hint?: string;
  seq: number;
}
