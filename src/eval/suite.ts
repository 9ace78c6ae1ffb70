// A suite run: every (task, attempt) pair through a small worker pool (--parallel), results in a fixed order
// (task id, then attempt) whatever order they finished in, so two reports of the same suite line up.
import type { AttemptResult, EvalContext } from "./run-task.js";
import { runAttempt } from "./run-task.js";
import type { EvalTask } from "./task.js";

export interface EvalReport {
  /** The report format; --compare refuses another. */
  version: 1;
  model: string;
  started_at: string;
  finished_at: string;
  repeat: number;
  summary: { attempts: number; passed: number; pass_rate: number; turns: number; total_tokens: number; wall_ms: number };
  results: AttemptResult[];
}

export interface SuiteOptions {
  repeat: number;
  parallel: number;
  /** Called as each attempt finishes (progress on stderr). */
  onResult?: (r: AttemptResult) => void;
}

export async function runSuite(tasks: readonly EvalTask[], ctx: EvalContext, opts: SuiteOptions): Promise<EvalReport> {
  const started = new Date();
  const jobs = tasks.flatMap((task) => Array.from({ length: opts.repeat }, (_, i) => ({ task, attempt: i + 1 })));
  const results: AttemptResult[] = [];
  let next = 0;
  // An endpoint that fails before the model ever answered (down, key or model refused) would fail every attempt the
  // same way, each after its retries: the suite stops instead of spending them all. Later flaky failures do not.
  let reached = false;
  let dead = false;
  const worker = async () => {
    while (next < jobs.length && !ctx.signal?.aborted && !dead) {
      const job = jobs[next++]!;
      const r = await runAttempt(job.task, job.attempt, ctx);
      if (!r) continue; // interrupted: the report covers the attempts that finished
      if (r.turns > 0) reached = true;
      else if (r.endpoint_error && !reached) dead = true;
      results.push(r);
      opts.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel, jobs.length)) }, worker));
  results.sort((a, b) => (a.task === b.task ? a.attempt - b.attempt : a.task < b.task ? -1 : 1));
  return { version: 1, model: ctx.model.name, started_at: started.toISOString(), finished_at: new Date().toISOString(), repeat: opts.repeat, summary: summarize(results), results };
}

export function summarize(results: readonly AttemptResult[]): EvalReport["summary"] {
  const passed = results.filter((r) => r.pass).length;
  const sum = (f: (r: AttemptResult) => number) => results.reduce((n, r) => n + f(r), 0);
  return {
    attempts: results.length,
    passed,
    pass_rate: results.length ? passed / results.length : 0,
    turns: sum((r) => r.turns),
    total_tokens: sum((r) => r.tokens.total_tokens),
    wall_ms: sum((r) => r.wall_ms),
  };
}
