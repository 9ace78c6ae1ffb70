// While a background job runs, the git guards also run every second, not only after each command: a job that
// rewrote a linked worktree's or a nested repository's `commondir` to a git dir with `core.fsmonitor` had the user's
// own `git status` (an IDE's, another terminal's) run it while the run went on (the thirty-eighth pass's A38c-8 and
// A38c-9). Not while a command of the agent is running: its own work is judged when it ends, as before. What a sweep
// repairs is said with the next command's output (git-redirect-guard.ts).
import { sweepGitGuards } from "./git-redirect-guard.js";

/** How often the guards run while a background job lives. */
export const SWEEP_MS = 1000;

/** The live background jobs (one token each: a job ended twice, or after the run's end, changes nothing). */
const jobs = new Set<symbol>();
let commands = 0;
let timer: NodeJS.Timeout | undefined;

function sweep(): void {
  if (commands === 0) sweepGitGuards();
}

/** A background job started; the returned function says it ended (once). */
export function sweepWhileJob(): () => void {
  const job = Symbol("job");
  jobs.add(job);
  timer ??= setInterval(sweep, SWEEP_MS).unref();
  return () => {
    if (jobs.delete(job) && jobs.size === 0) stopSweeps();
  };
}

/** A foreground command runs until the returned function is called: no sweep meanwhile. */
export function commandRunning(): () => void {
  commands++;
  let ended = false;
  return () => {
    if (!ended) commands--;
    ended = true;
  };
}

/** The end of a chat or run (every job is gone). */
export function stopSweeps(): void {
  if (timer) clearInterval(timer);
  timer = undefined;
  jobs.clear();
}
