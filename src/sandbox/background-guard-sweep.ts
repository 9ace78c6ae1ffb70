// While a background job runs, the git guards also run every second, not only after each command: a job that
// rewrote a linked worktree's or a nested repository's `commondir` to a git dir with `core.fsmonitor` had the user's
// own `git status` (an IDE's, another terminal's) run it while the run went on (the thirty-eighth pass's A38c-8 and
// A38c-9). Also while a command of the agent runs: a long foreground command (`sleep 600` beside the job) had kept
// every sweep away for its whole length.
// A repair while a job lives (by a sweep, a watcher or the check after a command) stops every background job and
// refuses new ones for the rest of the chat or run: a job that re-planted in a loop won the race against the sweep
// some of the time (the thirty-ninth pass's A39-4 and A39-5); now it gets one window of at most a second, once.
// Ordinary jobs (servers, watchers, a build, commits) change nothing the guards repair. What a sweep repairs is said
// with the next command's output (git-redirect-guard.ts), and the stop is said to the user too.
import { sayWithNextCommand, sweepGitGuards } from "./git-redirect-guard.js";
import { toUser } from "./repair-lines.js";

/** How often the guards run while a background job lives. */
export const SWEEP_MS = 1000;

/**
 * The live background jobs and how to kill each (undefined until its start returns). A job ended twice, or after the
 * run's end, changes nothing.
 */
const jobs = new Map<symbol, (() => void) | undefined>();
/** Jobs stopped before their start returned how to kill them: killed as soon as it does. */
const stoppedEarly = new Set<symbol>();
/**
 * Jobs stopped and not ended yet: the sweeps go on until each has, and look once more as it does. A confined job that
 * stopped the sandbox's supervisor lives until the host ends the sandbox (run-shell.ts STOP_GRACE_MS), and what it
 * planted meanwhile (nine new repositories with a core.fsmonitor, in the forty-first pass's A41c-1) stayed until the
 * run's end: the sweeps had stopped with the stop.
 */
const stopping = new Set<symbol>();
let timer: NodeJS.Timeout | undefined;
/** Why background jobs are off for the rest of the chat or run (undefined: they are not). */
let offBecause: string | undefined;

/** The guards' check while jobs run; what it repairs stops the jobs (`aJobEnded`: one that just ended counts). */
function sweep(aJobEnded = false): void {
  const repairs = sweepGitGuards();
  const line = stopJobsFor(repairs, aJobEnded);
  if (line) sayWithNextCommand(line);
  // After the stop, what a stopped job still plants is repaired as the sweeps find it; the user hears each.
  else if (offBecause !== undefined) for (const r of repairs) toUser.hear(r);
}

/**
 * The guards repaired `repairs` (a sweep, or the check after a command): with background jobs alive (or one that just
 * ended), every one is stopped and no other starts in this chat or run. The line saying so (undefined: no job).
 */
export function stopJobsFor(repairs: string[], aJobEnded = false): string | undefined {
  // Once stopped, a stopped job's end is no new stop (its repairs are said by the sweep).
  if (repairs.length === 0 || (jobs.size === 0 && (!aJobEnded || offBecause !== undefined))) return undefined;
  offBecause = repairs[0]!.replace(/\.$/, "");
  const kills = [...jobs];
  jobs.clear();
  for (const [job] of kills) stopping.add(job);
  for (const [job, kill] of kills) {
    if (kill) kill();
    else stoppedEarly.add(job);
  }
  const line = "deerflow stopped every background job and will start no other in this chat or run: while they ran, git files that make git run programs or hide changes were changed (repaired:";
  toUser.hear(`${line} ${repairs[0]})`);
  return `${line} see above).`;
}

/** A background job started: `killWith` says how to stop it for good, `ended` that it ended (once). */
export function sweepWhileJob(): { ended: () => void; killWith: (kill: () => void) => void } {
  const job = Symbol("job");
  jobs.set(job, undefined);
  timer ??= setInterval(() => sweep(), SWEEP_MS).unref();
  return {
    ended: () => {
      if (!jobs.delete(job) && !stopping.delete(job)) return;
      // One more look as it ends: a job that planted and exited at once, beside a long foreground command, had its
      // plant stay until that command ended (no job left, no sweep); a stopped one may have planted until its end.
      sweep(true);
      if (jobs.size === 0 && stopping.size === 0) stopTimer();
    },
    killWith: (kill) => {
      if (jobs.has(job)) jobs.set(job, kill);
      else if (stoppedEarly.delete(job)) kill();
    },
  };
}

/** Why a background job may not start now (undefined: it may). */
export function backgroundRefusal(): string | undefined {
  if (offBecause === undefined) return undefined;
  return `background jobs are off for the rest of this chat or run: while one ran, git files that make git run programs were changed (${offBecause}). Run the command in the foreground.`;
}

function stopTimer(): void {
  if (timer) clearInterval(timer);
  timer = undefined;
}

/**
 * The end of a chat or run (every job is gone): sweeps stop, and the next chat or run may start jobs again. `midChat`
 * (a rewind: the chat goes on): a stop still holds.
 */
export function endSweeps(midChat = false): void {
  stopTimer();
  jobs.clear();
  stopping.clear();
  stoppedEarly.clear();
  if (!midChat) offBecause = undefined;
}
