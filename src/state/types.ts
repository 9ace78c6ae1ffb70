// The shapes stored in ThreadState (docs/events.md). Plain data only: everything here survives a JSON
// round trip through a checkpoint. Zod schemas for the same shapes live in `schemas.ts`; a
// compile-time check there keeps the two in step. `type` aliases (not interfaces) on purpose: they
// stay assignable to `Record<string, unknown>`, which the loose zod schemas produce.
import type { BaseMessage } from "@langchain/core/messages";
import type { PermissionDenial } from "../vocabulary/permission-denials.js";
import { CONTENT_FILTER, LOOP_CAPPED, MODEL_LENGTH_CAPPED, TOKEN_CAPPED, TURN_CAPPED } from "../vocabulary/stop-reasons.js";

// ---------------------------------------------------------------------------------------------
// Goal mode (docs/cli.md, run --goal)

/** Longest objective a goal may carry. */
export const GOAL_OBJECTIVE_MAX_CHARS = 4000;
/** Default cap on automatic continuations of one goal. */
export const DEFAULT_MAX_CONTINUATIONS = 8;
/** Default number of repeated identical evaluations that counts as "no progress". */
export const DEFAULT_MAX_NO_PROGRESS_CONTINUATIONS = 2;

export const GOAL_BLOCKERS = ["none", "missing_evidence", "needs_user_input", "run_failed", "external_wait", "goal_not_met_yet"] as const;
/** Why a goal is not (yet) met, as judged by the evaluator. */
export type Blocker = (typeof GOAL_BLOCKERS)[number];

/** The evaluator's verdict after a run. */
export type GoalEvaluation = {
  satisfied: boolean;
  blocker: Blocker;
  reason: string;
  evidence_summary?: string;
  /** True only when a satisfied verdict relies on a stated, low-risk assumption (unattended runs). */
  relied_on_assumption?: boolean;
};

/** The active goal of a thread. A thread has no goal when `goal` is null. */
export type GoalState = {
  /** At most GOAL_OBJECTIVE_MAX_CHARS characters. */
  objective: string;
  status: "active";
  created_at: string;
  updated_at: string;
  continuation_count: number;
  max_continuations: number;
  no_progress_count: number;
  max_no_progress_continuations: number;
  last_evaluation?: GoalEvaluation;
};

/** The latest met goal; written only by the write that clears the goal. */
export type GoalOutcome = {
  status: "achieved";
  objective: string;
  goal_created_at: string;
  achieved_at: string;
  continuation_count: number;
  max_continuations: number;
  reason: string;
  relied_on_assumption: boolean;
  /** Id of the final AI reply that met the goal, when known. */
  reply_message_id: string | null;
};

/**
 * The only value that clears `goal`. Writing `null`/`undefined` to `goal` keeps the current goal
 * ("middleware can't wipe the goal"); the goal runtime writes this marker (normally through
 * `clearGoalUpdate`, together with `goal_outcome`) when a goal ends. It is a plain string so it
 * survives checkpoint serialisation of pending writes; no other code should write it.
 */
export const GOAL_CLEAR = "__deerflow_goal_clear__" as const;
export type GoalClear = typeof GOAL_CLEAR;

// ---------------------------------------------------------------------------------------------
// Subagent ledger (docs/architecture.md, Subagents)

export const DELEGATION_STATUSES = ["pending", "running", "completed", "failed", "cancelled", "timed_out", "polling_timed_out"] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** Statuses a delegation never leaves once reached. */
export const TERMINAL_DELEGATION_STATUSES = ["completed", "failed", "cancelled", "timed_out", "polling_timed_out"] as const satisfies readonly DelegationStatus[];
export type TerminalDelegationStatus = (typeof TERMINAL_DELEGATION_STATUSES)[number];

export const DELEGATION_STOP_REASONS = [TOKEN_CAPPED, TURN_CAPPED, LOOP_CAPPED, MODEL_LENGTH_CAPPED, CONTENT_FILTER] as const;
/** Why a guard (or the provider's content filter) ended a subagent early; the status stays completed/failed. */
export type DelegationStopReason = (typeof DELEGATION_STOP_REASONS)[number];

/** Longest result brief kept in the ledger. */
export const DELEGATION_RESULT_BRIEF_MAX_CHARS = 2000;
/** The ledger keeps this many most recent delegations. */
export const DELEGATIONS_MAX_ENTRIES = 50;

export const ACCEPTANCE_CHECK_KINDS = ["file_exists", "json_parses", "command_exits_zero"] as const;
/** What the runtime verifies after a subagent finished (the lead names them in the task call). */
export type AcceptanceCheckKind = (typeof ACCEPTANCE_CHECK_KINDS)[number];

/** One acceptance check as the runtime ran it. */
export type AcceptanceCheckResult = {
  check: AcceptanceCheckKind;
  /** The path (file checks) or the command line. */
  target: string;
  passed: boolean;
  /** Why it failed, or what it saw (a command's exit code and last output lines). */
  detail: string;
};

/** The runtime's verdict on a subagent's report: its receipts and the lead's acceptance checks. */
export type DelegationVerdict = {
  /** True when every cited receipt exists and every acceptance check passed. */
  verified: boolean;
  /** Tool-call ids the report cites as `[receipt: <id>]`. */
  receipts_cited: string[];
  /** Cited ids the subagent never called (or whose call never ran). */
  receipts_missing: string[];
  checks: AcceptanceCheckResult[];
  /** One line for people: what was verified, or what failed. */
  summary: string;
};

/** One delegation to a subagent (`task` tool call). */
export type DelegationEntry = {
  /** The provider's tool-call id. */
  id: string;
  run_id: string;
  description: string;
  subagent_type: string;
  status: DelegationStatus;
  /** At most DELEGATION_RESULT_BRIEF_MAX_CHARS characters. */
  result_brief?: string;
  result_sha256?: string;
  result_ref?: string;
  stop_reason?: DelegationStopReason;
  /** Set when the report cited receipts or the lead asked for acceptance checks. */
  verdict?: DelegationVerdict;
  /** The subagent's tool calls its approval rules refused, in order (absent: none). */
  permission_denials?: PermissionDenial[];
  created_at: string;
  updated_at?: string;
};

// ---------------------------------------------------------------------------------------------
// Other fields

export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
export type Todo = { content: string; status: TodoStatus };

/** Metadata of an image the model viewed; the bytes are never stored in state. */
export type ViewedImage = {
  mime_type: string;
  size: number;
  actual_path: string;
  sha256: string;
  source_sandbox_id?: string;
  blob_ref?: unknown;
};
/** image path (as the model named it) → metadata */
export type ViewedImages = Record<string, ViewedImage>;

/** Deferred tools promoted into the model's tool list, scoped by catalog and user turn. */
export type Promoted = { catalog_hash: string; names: string[]; turn_id?: string };

/** Longest skill description kept in state. */
export const SKILL_DESCRIPTION_MAX_CHARS = 500;
/** Skill references kept in state (most recently read). */
export const SKILL_CONTEXT_MAX_ENTRIES = 8;
export type SkillContextEntry = {
  name: string;
  path: string;
  /** At most SKILL_DESCRIPTION_MAX_CHARS characters. */
  description: string;
  /** Observational only: message indices reset after compaction. */
  loaded_at: number;
};

/** Captured tool artifacts kept in state (most recent). */
export const TOOL_ARTIFACTS_MAX_ENTRIES = 100;
/**
 * A short handle (`art_xxxxxxxx`) for a long reference (path, URL) from a tool result (the seed's ArtifactEntry).
 * The model sees only the handle; the real reference lives here (so it survives compaction) and is put back when
 * a tool call passes the handle.
 */
export type ArtifactEntry = {
  handle: string;
  /** The tool whose result held the reference, and that call's provider id. */
  tool_name: string;
  tool_call_id: string;
  /** Position among the references captured from the same tool call (0, 1, …). */
  call_index: number;
  /** "file" | "url" (| "image" for image files). */
  artifact_type: string;
  display_name: string;
  real_ref: string;
  mime_type?: string;
  created_at: string;
  /** Tool calls that passed the handle. */
  consumed_by?: string[];
};

export type ThreadData = {
  workspace_path?: string | null;
  uploads_path?: string | null;
  outputs_path?: string | null;
};

export type SandboxState = { sandbox_id?: string | null };

/** An upload of the current turn (shape owned by the uploads code). */
export type UploadedFile = Record<string, unknown>;
/** A background task (e.g. MCP) as reported by its owner. */
export type BackgroundTask = Record<string, unknown>;
/** Run-input ids applied to this thread, as recorded by the run manager. */
export type AppliedRunInputs = Record<string, unknown>;
export type TaskNotes = Record<string, unknown>;
export type TaskHistory = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// The whole state

/** ThreadState as nodes read it (every field has a default, so every key is present). */
export type ThreadStateValues = {
  messages: BaseMessage[];
  sandbox: SandboxState | null;
  thread_data: ThreadData | null;
  title: string | null;
  artifacts: string[];
  todos: Todo[];
  goal: GoalState | null;
  goal_outcome: GoalOutcome | null;
  applied_run_inputs: AppliedRunInputs | null;
  uploaded_files: UploadedFile[] | null;
  viewed_images: ViewedImages;
  promoted: Promoted | null;
  delegations: DelegationEntry[];
  skill_context: SkillContextEntry[];
  tool_artifacts: ArtifactEntry[];
  tool_artifact_processed: string[];
  summary_text: string | null;
  task_notes: TaskNotes | null;
  task_history: TaskHistory | null;
  background_tasks: BackgroundTask[] | null;
};

export type ThreadStateField = keyof ThreadStateValues;
