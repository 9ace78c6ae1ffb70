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
let timer: NodeJS.Timeout | undefined;
/** Why background jobs are off for the rest of the chat or run (undefined: they are not). */
let offBecause: string | undefined;

/** The guards' check while jobs run; what it repairs stops the jobs (`aJobEnded`: one that just ended counts). */
function sweep(aJobEnded = false): void {
  const line = stopJobsFor(sweepGitGuards(), aJobEnded);
  if (line) sayWithNextCommand(line);
}

/**
 * The guards repaired `repairs` (a sweep, or the check after a command): with background jobs alive (or one that just
 * ended), every one is stopped and no other starts in this chat or run. The line saying so (undefined: no job).
 */
export function stopJobsFor(repairs: string[], aJobEnded = false): string | undefined {
  if (repairs.length === 0 || (jobs.size === 0 && !aJobEnded)) return undefined;
  offBecause = repairs[0]!.replace(/\.$/, "");
  const kills = [...jobs];
  stopSweeps();
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
      if (!jobs.delete(job)) return;
      // One more look as it ends: a job that planted and exited at once, beside a long foreground command, had its
      // plant stay until that command ended (no job left, no sweep).
      sweep(true);
      if (jobs.size === 0) stopTimer();
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

/** No sweep any more and no job tracked (the jobs die with their session or by the caller). */
function stopSweeps(): void {
  stopTimer();
  jobs.clear();
}

/** The end of a chat or run (every job is gone): sweeps stop, and the next chat or run may start jobs again. */
export function endSweeps(): void {
  stopSweeps();
  stoppedEarly.clear();
  offBecause = undefined;
}
