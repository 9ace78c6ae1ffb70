// A denied tool call as a run's result reports it (`permission_denials`, docs/events.md): the record's shape, shared
// by the sandbox that builds it (sandbox/permission-denial.ts), the thread's state that keeps a subagent's (its
// delegation entry) and the events that carry it.
export const DENIERS = ["policy", "headless", "user"] as const;
export type DeniedBy = (typeof DENIERS)[number];

export type PermissionDenial = {
  tool: string;
  tool_call_id?: string;
  /** The call's arguments on one line, at most 120 characters, secret shapes masked. */
  arguments: string;
  reason: string;
  denied_by: DeniedBy;
  /** The `task` call whose subagent made the call (set in the run's list; absent for the lead's own calls). */
  delegation_id?: string;
};
