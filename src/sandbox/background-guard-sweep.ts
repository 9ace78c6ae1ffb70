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
import { endFolderWatch, startFolderWatch, takeVanishedPlants } from "./folder-watch.js";
import { hostEndsMark } from "./shell-session.js";

/** How often, on average, the guards run while a background job lives. */
export const SWEEP_MS = 1000;
/** The longest wait between two sweeps. */
const SWEEP_MAX_MS = 5 * SWEEP_MS;

/**
 * The wait before the next sweep: drawn afresh each time from an exponential distribution (a Poisson process), which
 * has no memory. A job can see each sweep (inotify on a folder it reads) and a fixed beat told it when the next would
 * come: it planted a fresh nested repository right after one sweep and removed it before the next, for the whole run
 * (the forty-second pass's A42c-1). Now a sweep is as likely in the next instant however long ago the last one was, so
 * a plant is found after SWEEP_MS on average whenever it is made.
 */
export function nextSweepIn(random = Math.random()): number {
  return Math.min(SWEEP_MAX_MS, Math.round(-Math.log(1 - random) * SWEEP_MS));
}

/**
 * The sandboxes as the host sees them (run-shell.ts): whether any process runs in one (`busy`), tracked or not, and a
 * way to end every such sandbox from the host (`end`). A job whose end the host was told of may still run: a process
 * in the sandbox can make its supervisor say anything (ptrace, A42c-3).
 */
let sandboxes: { busy: () => boolean; end: (why: string) => void } = { busy: () => false, end: () => {} };
export function watchSandboxesWith(hooks: typeof sandboxes): void {
  sandboxes = hooks;
}

/**
 * The live background jobs and how to kill each (undefined until its start returns). A job ended twice, or after the
 * run's end, changes nothing.
 */
const jobs = new Map<symbol, (() => void) | undefined>();
/** Jobs stopped before their start returned how to kill them: killed as soon as it does. */
const stoppedEarly = new Set<symbol>();
/**
 * Jobs stopped and not ended yet: the sweeps go on until each has, and look once more as it does. What a stopped job
 * planted before its end (nine new repositories with a core.fsmonitor, in the forty-first pass's A41c-1) stayed until
 * the run's end when the sweeps stopped with the stop.
 */
const stopping = new Set<symbol>();
let timer: NodeJS.Timeout | undefined;
/** Why background jobs are off for the rest of the chat or run (undefined: they are not). */
let offBecause: string | undefined;

/** hostEndsMark() at the last sweep. */
let endsAtLastSweep = Number.NaN;

/** The guards' check while jobs run; what it repairs stops the jobs (`aJobEnded`: one that just ended counts). */
function sweep(aJobEnded = false): void {
  // A sandbox ended from the host since the last sweep (or ending still) may be what planted: its processes outlive
  // its end by a little. Then the sandboxes running now are not taken for its leftovers (CI saw the next command's
  // new sandbox ended for a stopped job's last write).
  const mark = hostEndsMark();
  const noEndSince = mark === endsAtLastSweep;
  endsAtLastSweep = mark;
  // Plants seen made and already gone first: the guards' repairs below would hide which were gone before any check.
  const vanished = takeVanishedPlants();
  for (const line of vanished) sayWithNextCommand(line);
  const repairs = [...vanished, ...sweepGitGuards()];
  const line = stopJobsFor(repairs, aJobEnded, noEndSince);
  if (line) sayWithNextCommand(line);
  // After the stop, what a stopped job still plants is repaired as the sweeps find it; the user hears each.
  else if (offBecause !== undefined) for (const r of repairs) toUser.hear(r);
}

/**
 * The guards repaired `repairs` (a sweep, or the check after a command): with background jobs alive (or one that just
 * ended), every one is stopped and no other starts in this chat or run. The line saying so (undefined: no job).
 * `bySweep`: a sweep found them, and no sandbox was ended from the host since the one before.
 */
export function stopJobsFor(repairs: string[], aJobEnded = false, bySweep = false): string | undefined {
  if (repairs.length === 0) return undefined;
  // A sweep's repair while a process the host tracks as no job runs in a sandbox: its end was forged, or it escaped a
  // clean-up. That sandbox ends with the jobs.
  const untracked = bySweep && jobs.size === 0 && sandboxes.busy();
  // Once stopped, a stopped job's end is no new stop (its repairs are said by the sweep).
  if (jobs.size === 0 && !untracked && (!aJobEnded || offBecause !== undefined)) return undefined;
  const first = offBecause === undefined;
  offBecause = repairs[0]!.replace(/\.$/, "");
  const kills = [...jobs];
  jobs.clear();
  for (const [job] of kills) stopping.add(job);
  for (const [job, kill] of kills) {
    if (kill) kill();
    else stoppedEarly.add(job);
  }
  if (untracked) sandboxes.end(STOPPED);
  const line = "deerflow stopped every background job and will start no other in this chat or run: while they ran, git files that make git run programs or hide changes were changed (repaired:";
  // Said once: a second stop (a process of the first that planted on) is in its repair lines (A42c-4: five of them).
  if (first) toUser.hear(`${line} ${repairs[0]})`);
  return `${line} see above).`;
}

/** What the commands that ran beside a stopped job are told when their sandbox ends with it. */
export const STOPPED = "deerflow stopped every background job, and ended the sandbox they ran in, because git files that make git run programs were changed while they ran";

/** A background job started: `killWith` says how to stop it for good, `ended` that it ended (once). */
export function sweepWhileJob(): { ended: () => void; killWith: (kill: () => void) => void } {
  const job = Symbol("job");
  jobs.set(job, undefined);
  if (!timer) scheduleSweep();
  return {
    ended: () => {
      if (!jobs.delete(job) && !stopping.delete(job)) return;
      // One more look as it ends: a job that planted and exited at once, beside a long foreground command, had its
      // plant stay until that command ended (no job left, no sweep); a stopped one may have planted until its end.
      sweep(true);
      if (nothingToWatch()) stopTimer();
    },
    killWith: (kill) => {
      if (jobs.has(job)) jobs.set(job, kill);
      else if (stoppedEarly.delete(job)) kill();
    },
  };
}

/**
 * A sandbox was ended from the host because a process stayed in it after everything deerflow ran there had ended
 * (shell-session.ts): the user and the model hear it, and the guards look at once (what it planted stops the jobs).
 */
export function leftoverEnded(why: string): void {
  const line = `deerflow ended the shell sandbox: ${why}. Whatever a command left behind is gone; the next command starts a new sandbox.`;
  toUser.hear(line);
  sayWithNextCommand(line);
  sweep(true);
}

/** Why a background job may not start now (undefined: it may). */
export function backgroundRefusal(): string | undefined {
  if (offBecause === undefined) return undefined;
  return `background jobs are off for the rest of this chat or run: while one ran, git files that make git run programs were changed (${offBecause}). Run the command in the foreground.`;
}

/** No job, no stopped one, and no process in any sandbox: the sweeps may stop. */
function nothingToWatch(): boolean {
  return jobs.size === 0 && stopping.size === 0 && !sandboxes.busy();
}

function scheduleSweep(): void {
  const first = !timer;
  timer = setTimeout(() => {
    sweep();
    // After the last job's end the sweeps go on while anything runs in a sandbox: what the host was told ended may not
    // have (A42c-3), and a long foreground command beside it had kept the after-command check away.
    if (nothingToWatch()) stopTimer();
    else if (timer) scheduleSweep();
  }, nextSweepIn());
  timer.unref();
  if (first) {
    endsAtLastSweep = hostEndsMark();
    startFolderWatch(soon);
    soon(); // a walk now: it is what starts the watches
  }
}

/** The least time between two sweeps a new folder brings forward (`npm install` makes thousands in a burst). */
const SOON_GAP_MS = 100;
let soonPending = false;
let lastSoon = 0;

/** A new folder or `.git` entry in the workspace while jobs run (folder-watch.ts): the next sweep is now. */
function soon(): void {
  if (soonPending || !timer) return;
  soonPending = true;
  setTimeout(
    () => {
      soonPending = false;
      if (!timer) return;
      lastSoon = Date.now();
      sweep();
    },
    Math.max(0, lastSoon + SOON_GAP_MS - Date.now()),
  ).unref();
}

function stopTimer(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  endFolderWatch();
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
