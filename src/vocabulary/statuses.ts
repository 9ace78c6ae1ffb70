// The lifecycle of a run and what a thread shows in `deerflow threads`.
// A run: pending (waiting for the thread's lock) → running → success | error | timeout | interrupted.
export const RUN_STATUSES = ["pending", "running", "success", "error", "timeout", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run can end (what `run.completed` and `--output-format json` report). */
export const FINAL_RUN_STATUSES = ["success", "error", "timeout", "interrupted"] as const satisfies readonly RunStatus[];
export type FinalRunStatus = (typeof FINAL_RUN_STATUSES)[number];

/**
 * A thread's status is its last run's, plus `idle` (never run), `input_required` (it asked a question) and `lost`
 * (`doctor --repair` found none of its history: it is refused, never continued from an empty conversation).
 */
export const THREAD_STATUSES = ["idle", "pending", "running", "success", "error", "timeout", "interrupted", "input_required", "lost"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
