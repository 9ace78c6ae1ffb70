// The `config.configurable` keys the runtime passes to every node, middleware and tool of a run (createAgent drops
// extra input keys, so per-run facts travel here). Writers build them with `runConfigurable`, readers get them
// typed with `readRunConfigurable`; nobody spells a `deerflow_*` key or casts its value.

/** The directories of a thread's sandbox (the same shape as sandbox's ThreadPaths). */
export interface ThreadDirs {
  workspace_path: string;
  uploads_path: string;
  outputs_path: string;
}

export const CONFIGURABLE_KEYS = {
  home: "deerflow_home",
  runId: "deerflow_run_id",
  uploads: "deerflow_uploads",
  threadData: "deerflow_thread_data",
  unattended: "deerflow_unattended",
  subagent: "deerflow_subagent",
  shell: "deerflow_shell",
} as const;

export interface RunConfigurable {
  /** LangGraph's own key: which thread's checkpoints. */
  threadId?: string;
  /** The data directory of this run. */
  home?: string;
  /** The run's id (run records, delegations). */
  runId?: string;
  /** File names attached to THIS run (copied into uploads/). */
  uploads?: string[];
  /** The thread's directories (a --workspace binding included). */
  threadData?: Partial<ThreadDirs>;
  /** Nobody can answer a question (goal mode, subagents). */
  unattended: boolean;
  /** The subagent type a child run works as. */
  subagent?: string;
  /** The shell confinement settings of this run (their shape belongs to sandbox/shell-settings.ts). */
  shell?: unknown;
}

const K = CONFIGURABLE_KEYS;

/** The `configurable` object of a run (keys left out when undefined). */
export function runConfigurable(c: Partial<RunConfigurable>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.threadId !== undefined) out.thread_id = c.threadId;
  if (c.home !== undefined) out[K.home] = c.home;
  if (c.runId !== undefined) out[K.runId] = c.runId;
  if (c.uploads !== undefined) out[K.uploads] = c.uploads;
  if (c.threadData !== undefined) out[K.threadData] = c.threadData;
  if (c.unattended !== undefined) out[K.unattended] = c.unattended;
  if (c.subagent !== undefined) out[K.subagent] = c.subagent;
  if (c.shell !== undefined) out[K.shell] = c.shell;
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The run's facts from a node's `configurable` (anything of the wrong type reads as absent). */
export function readRunConfigurable(configurable: Record<string, unknown> | undefined): RunConfigurable {
  const c = configurable ?? {};
  const uploads = c[K.uploads];
  const data = c[K.threadData];
  return {
    threadId: str(c.thread_id),
    home: str(c[K.home]),
    runId: str(c[K.runId]),
    uploads: Array.isArray(uploads) ? uploads.filter((u): u is string => typeof u === "string") : undefined,
    threadData: data && typeof data === "object" ? (data as Partial<ThreadDirs>) : undefined,
    unattended: c[K.unattended] === true,
    subagent: str(c[K.subagent]),
    shell: c[K.shell] ?? undefined,
  };
}
