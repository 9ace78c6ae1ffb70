// The lifecycle of a run and what a thread shows in `deerflow threads`.
// A run: pending (waiting for the thread's lock) → running → success | error | timeout | interrupted.
export const RUN_STATUSES = ["pending", "running", "success", "error", "timeout", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run can end (what `run.completed` and `--output-format json` report). */
export const FINAL_RUN_STATUSES = ["success", "error", "timeout", "interrupted"] as const satisfies readonly RunStatus[];
export type FinalRunStatus = (typeof FINAL_RUN_STATUSES)[number];

/** A thread's status is its last run's, plus `idle` (never run) and `input_required` (it asked a question). */
export const THREAD_STATUSES = ["idle", "pending", "running", "success", "error", "timeout", "interrupted", "input_required"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
