// Background jobs the model started on purpose (bash with run_in_background): the live record of this process.
// The thread's `background_tasks` state keeps what was started; this registry knows what is still running and
// how to kill it. Every job dies with the chat or run that started it (closeShellSessions → killAllJobs).
export interface BackgroundJob {
  id: string;
  command: string;
  /** Virtual path of its log (/mnt/user-data/outputs/...). */
  log: string;
  started_at: string;
  status: "running" | "exited" | "killed";
  exit_code?: number;
}

const jobs = new Map<string, { job: BackgroundJob; kill: () => void }>();

export function addJob(job: BackgroundJob, kill: () => void): void {
  jobs.set(job.id, { job, kill });
}

export function jobEnded(id: string, code: number | undefined): void {
  const e = jobs.get(id);
  if (e && e.job.status === "running") {
    e.job.status = "exited";
    if (code !== undefined) e.job.exit_code = code;
  }
}

export function getJob(id: string): BackgroundJob | undefined {
  return jobs.get(id)?.job;
}

/** Kills one job; false when there is no such running job. */
export function killJob(id: string): boolean {
  const e = jobs.get(id);
  if (!e || e.job.status !== "running") return false;
  e.job.status = "killed";
  e.kill();
  return true;
}

export function killAllJobs(): void {
  for (const id of jobs.keys()) killJob(id);
  jobs.clear();
}
