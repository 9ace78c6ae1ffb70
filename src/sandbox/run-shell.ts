// One shell command of the bash tool or the TUI's `!cmd`: inside the thread's bubblewrap session when bwrap works
// here (shell-session.ts), else directly on the host (direct-shell.ts) with the virtual /mnt/user-data paths
// mapped to the host and back, and a warning once per chat or run. `sandbox.require: true` refuses instead.
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { execaSync } from "execa";
import { DeerflowError, ExitCode } from "../errors.js";
import { debugLog } from "../model/debug-log.js";
import { killAllJobs } from "./background-jobs.js";
import { hostPath } from "./env-scrub.js";
import { directBackground, killDirect, runDirect } from "./direct-shell.js";
import type { ThreadPaths } from "./provider.js";
import { type RunOptions, type ShellResult, ShellSession } from "./shell-session.js";
import { type ShellSettings, confinedNetwork, defaultShellSettings } from "./shell-settings.js";
import { fromHostPaths, toHostCommand } from "./virtual-paths.js";
import { realOrSelf } from "./real-path.js";
import { recordWritable, sandboxWritable } from "./sandbox-writable.js";
import { endGitRedirectWatch, noteGitRedirect, restoreGitRedirects } from "./git-redirect-guard.js";
import { STOPPED, backgroundRefusal, endSweeps, leftoverEnded, stopJobsFor, sweepWhileJob, watchSandboxesWith } from "./background-guard-sweep.js";
import { takeGuardNotices } from "./nested-repo-guard.js";
import { toUser } from "./repair-lines.js";
import { takeRefusedBinds, withoutPlantedLinks } from "./planted-links.js";
import { replacedFolder } from "./pinned-folders.js";

export { BASH_KILL_GRACE_MS, type ShellResult } from "./shell-session.js";
export { isSecretEnvName, scrubEnv } from "./env-scrub.js";

export const BWRAP_MISSING_WARNING = "bubblewrap (bwrap) is not available: shell commands run UNCONFINED on the host (install the `bubblewrap` package, or set sandbox.require: true to refuse).";

const probed = new Map<string, string | null>();
/** Whether a bwrap binary (by real path) could create a sandbox: the lookup depends on PATH and folders, this does not. */
const works = new Map<string, boolean>();

/** The bwrap binary on PATH that can actually create a sandbox here (cached per PATH and writable folders), or null. */
export function findBwrap(path = process.env.PATH ?? ""): string | null {
  const writable = sandboxWritable();
  const key = JSON.stringify([path, process.cwd(), writable]);
  if (probed.has(key)) return probed.get(key)!;
  let found: string | null = null;
  // Only absolute folders outside the project and every folder a command can write, by real path: with `.` or
  // `./node_modules/.bin` on PATH a repository's own `bwrap` ran on the host and deerflow believed it was confined (the
  // twelfth pass); through a link to the project, or from `~/.local/bin` with `readWrite: ["~/.local"]`, too (the
  // fourteenth's P2, P3). A `bwrap` that is a link into such a folder is skipped the same way.
  for (const dir of hostPath(path, process.cwd(), writable).split(delimiter)) {
    const candidate = join(dir, "bwrap");
    if (existsSync(candidate)) {
      const real = realOrSelf(candidate);
      if (hostPath(dirname(real), process.cwd(), writable) === "") continue;
      // A container without user namespaces has the binary but cannot use it.
      if (!works.has(real)) {
        const r = execaSync(candidate, ["--ro-bind", "/", "/", "--unshare-pid", "--dev", "/dev", "--proc", "/proc", "true"], { reject: false, timeout: 10_000 });
        works.set(real, r.exitCode === 0);
      }
      if (works.get(real)) found = candidate;
      break;
    }
  }
  probed.set(key, found);
  return found;
}

// ---------------------------------------------------------------------------------------------
// sessions: one per thread directories + settings, until closeShellSessions()

const sessions = new Map<string, ShellSession>();
let warn: (msg: string) => void = (msg) => process.stderr.write(`warning: ${msg}\n`);
let warnedOnce = false;

/**
 * What the guards tell the user between commands (a sweep that stopped every job while a long command ran) is said
 * as soon as it is heard, not when that command ends (the forty-first pass's A41c-8); after the current check yields.
 */
let flushing = false;
toUser.onHear(() => {
  if (flushing) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    for (const line of takeGuardNotices()) warn(line);
  });
});

/** Where the "no bwrap" warning goes (the TUI shows it on screen); it is given once until closeShellSessions(). */
export function setShellWarningSink(sink: (msg: string) => void): void {
  warn = sink;
}

function keyOf(paths: ThreadPaths, settings: ShellSettings): string {
  return JSON.stringify([paths.workspace_path, paths.uploads_path, paths.outputs_path, settings]);
}

/** Throws (exit 2) when the settings need bubblewrap and it is not here: checked when a chat or run starts. */
export function assertShellUsable(settings: Pick<ShellSettings, "network" | "require">): void {
  if (settings.network && !settings.require) return;
  if (!findBwrap()) unconfinedRefusal(settings);
}

function unconfinedRefusal(settings: Pick<ShellSettings, "network" | "require">): never {
  if (!settings.network) {
    throw new DeerflowError("sandbox.network is off (or --no-network), which needs bubblewrap (bwrap), and it is not available: refusing to run shell commands.", {
      exitCode: ExitCode.usage,
      hint: "Install the `bubblewrap` package, or turn the network back on.",
    });
  }
  throw new DeerflowError("bubblewrap (bwrap) is not available and sandbox.require is true: refusing to run shell commands.", {
    exitCode: ExitCode.usage,
    hint: "Install the `bubblewrap` package, or set sandbox.require to false in .deerflowrc.",
  });
}

/** The running session for these directories, or null when commands run directly on the host. */
function sessionFor(paths: ThreadPaths, settings: ShellSettings): ShellSession | null {
  // Before the lookup: bwrap never comes from this workspace (a `-w` other than the cwd), nor, later, from any
  // folder a command could write, this run's or an earlier one's (sandbox-writable.ts).
  recordWritable(settings.dataDir, [paths.workspace_path, ...withoutPlantedLinks(settings.readWrite, "sandbox.readWrite", { workspace: paths.workspace_path, dataDir: settings.dataDir })]);
  const bwrap = findBwrap();
  if (!bwrap) {
    if (!settings.network || settings.require) unconfinedRefusal(settings);
    if (!warnedOnce) {
      warnedOnce = true;
      warn(BWRAP_MISSING_WARNING);
    }
    return null;
  }
  const key = keyOf(paths, settings);
  let s = sessions.get(key);
  // A host socket bound since the session started is not covered by its mounts: start afresh while nothing runs
  // (with a background job running, the session is kept: a known limit, see bwrap-args.ts).
  if (s && s.alive && confinedNetwork(settings) && s.idle && s.missesNewSockets()) {
    void s.close();
    s = undefined;
  }
  if (!s || !s.alive) {
    for (const p of [paths.uploads_path, paths.outputs_path]) if (p) mkdirSync(p, { recursive: true });
    sessions.set(key, (s = new ShellSession(paths, settings, bwrap, leftoverEnded)));
  }
  return s;
}

/**
 * Starts the sandbox session for these directories now, in the background: a run's first command then does not wait
 * for bubblewrap and its supervisor to start (0.2-0.3 s), which happens while the model is asked. Only once the run's
 * rewind snapshot is taken (bubblewrap may make mount points in the workspace). Nothing when commands would run on
 * the host; a session that cannot start is reported by the first command, as before.
 */
export function warmShell(paths: ThreadPaths, settings: ShellSettings): void {
  if (!findBwrap()) return;
  try {
    sessionFor(paths, settings);
  } catch {
    // said by the first command
  }
}

/**
 * Ends every sandbox session (and with it every process and background job in it); the end of a chat or run.
 * `midChat`: a rewind within the chat, where a stop of background jobs still holds (the forty-first pass's A41c-10).
 */
export async function closeShellSessions(midChat = false): Promise<void> {
  const all = [...sessions.values()];
  sessions.clear();
  warnedOnce = false;
  killAllJobs();
  killDirect();
  endSweeps(midChat);
  await Promise.all(all.map((s) => s.close()));
  const repaired = endGitRedirectWatch();
  if (repaired) warn(repaired);
  for (const line of [...takeRefusedBinds(), ...takeGuardNotices()]) warn(line);
}

// The editor's file operations over ACP (tools/editor-files.ts) open a path themselves after deerflow checked it: a
// sandboxed process running at the same moment could swap a folder for a link in between (the fifteenth adversarial
// pass wrote ~/.bash_aliases through the editor that way). So the two never overlap: an editor operation runs only
// while no process at all runs in any sandbox but its supervisor (the process tree, sandbox-processes.ts: a job's
// leftover counts, the sixteenth pass's A5), and a command waits for the editor operations in flight.
let editorOps: Promise<unknown> = Promise.resolve();
let editorInFlight = 0;
let sandboxAdmitted = 0;
/** How long an editor operation waits for a command's leftovers (being killed) to go before it uses the disk. */
export const EDITOR_IDLE_WAIT_MS = 500;

/** Why the sandbox is not idle now, or undefined when nothing but the supervisors runs (`tracked`: a command or job). */
function sandboxBusy(): "tracked" | "untracked" | undefined {
  const live = [...sessions.values()].filter((s) => s.alive);
  if (sandboxAdmitted > 0 || live.some((s) => !s.idle)) return "tracked";
  return live.every((s) => s.quiet) ? undefined : "untracked";
}

/**
 * Runs `op` (the editor's `what`) while no sandboxed process runs; undefined (the caller uses deerflow's own
 * race-safe disk read or write) when a command or job runs, or when other processes are still there after
 * EDITOR_IDLE_WAIT_MS. Never waits longer.
 */
export async function whileSandboxIdle<T>(what: string, op: () => Promise<T>): Promise<{ value: T } | undefined> {
  const deadline = Date.now() + EDITOR_IDLE_WAIT_MS;
  for (let busy = sandboxBusy(); busy; busy = sandboxBusy()) {
    if (busy === "tracked" || Date.now() >= deadline) {
      debugLog("editor_fs_on_disk", { op: what, why: busy === "tracked" ? "a sandboxed command or job runs" : "processes a command left still run in the sandbox" });
      return undefined;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  // Synchronously after the last check: a command admitted from here on waits for this operation.
  editorInFlight++;
  const p = op();
  editorOps = Promise.allSettled([editorOps, p]);
  try {
    return { value: await p };
  } finally {
    editorInFlight--;
  }
}

/** Waits out the editor's operations in flight, then counts a sandboxed command in (synchronously after the wait). */
async function admitSandboxed(): Promise<() => void> {
  while (editorInFlight > 0) await editorOps;
  sandboxAdmitted++;
  let done = false;
  return () => {
    if (!done) sandboxAdmitted--;
    done = true;
  };
}

export interface ShellRequest extends RunOptions {
  /** The thread's directories; the command's cwd is the workspace. */
  paths: ThreadPaths;
  settings?: ShellSettings;
}

/** What the git guards watch from the run's first command: the workspace, `readWrite` folders, and the thread's outputs
 *  and uploads, where a sandboxed command can make a repository too (a planted core.fsmonitor there: A29b-4). */
function noteGitGuards(paths: ThreadPaths, settings: ShellSettings): void {
  const readWrite = withoutPlantedLinks(settings.readWrite, "sandbox.readWrite", { workspace: paths.workspace_path, dataDir: settings.dataDir });
  noteGitRedirect(
    paths.workspace_path,
    readWrite,
    [paths.outputs_path, paths.uploads_path].filter((f): f is string => typeof f === "string"),
  );
}

/**
 * The session for a command, claimed at once (a call of the same batch that finds it idle restarts it:
 * missesNewSockets). One whose start failed only for a path that vanished meanwhile is started afresh, twice at most;
 * any other failure is the command's to report.
 */
async function claimedSession(paths: ThreadPaths, settings: ShellSettings): Promise<{ session: ShellSession | null; unclaim?: () => void }> {
  for (let attempt = 0; ; attempt++) {
    const session = sessionFor(paths, settings);
    if (!session) return { session };
    const unclaim = session.claim();
    if (attempt === 2 || (await session.startedOrLostPath())) return { session, unclaim };
    unclaim();
  }
}

export async function runShell(command: string, req: ShellRequest): Promise<ShellResult> {
  refuseReplacedWorkspace(req.paths);
  const settings = req.settings ?? defaultShellSettings();
  const { session, unclaim } = await claimedSession(req.paths, settings);
  noteGitGuards(req.paths, settings);
  const release = session ? await admitSandboxed() : () => undefined;
  const r = await (session
    ? session.run(command, req).finally(() => {
        release();
        unclaim?.();
      })
    : runDirect(toHostCommand(command, req.paths, settings.skillDirs), { ...req, settings }));
  const output = session ? r.output : fromHostPaths(r.output, req.paths, settings.skillDirs);
  const repairs = restoreGitRedirects();
  const stopped = stopJobsFor(repairs);
  const repaired = [...repairs, ...(stopped ? [stopped] : [])].join("\n");
  for (const line of [...takeRefusedBinds(), ...takeGuardNotices()]) warn(line); // a check that could not finish: the user hears it, not only the model
  return { ...r, output: repaired ? `${output}${output.endsWith("\n") || !output ? "" : "\n"}${repaired}\n` : output };
}

/** A workspace whose path now leads elsewhere than the folder the run judged (pinned-folders.ts) runs nothing. */
function refuseReplacedWorkspace(paths: ThreadPaths): void {
  const why = replacedFolder(paths.workspace_path, "The workspace");
  if (why) throw new Error(`${why}.`);
}

// The sweeps' view of the sandboxes (background-guard-sweep.ts): from the host's /proc, not from what a supervisor says.
watchSandboxesWith({
  busy: () => [...sessions.values()].some((s) => s.alive && !s.quiet),
  end: (why) => {
    for (const s of sessions.values()) if (s.alive && !s.quiet) s.terminate(why);
  },
});

/** A background job: its output goes to `logPath`; it lives until killed or until closeShellSessions(). */
export async function startBackground(
  command: string,
  req: Omit<ShellRequest, "timeoutSeconds" | "signal"> & { logPath: string; onEnd: (code: number | undefined) => void },
): Promise<{ kill: () => void }> {
  const refusal = backgroundRefusal();
  if (refusal) throw new Error(refusal);
  refuseReplacedWorkspace(req.paths);
  const settings = req.settings ?? defaultShellSettings();
  const { session, unclaim } = await claimedSession(req.paths, settings);
  noteGitGuards(req.paths, settings);
  const job = sweepWhileJob();
  const { onEnd } = req;
  req = {
    ...req,
    onEnd: (code) => {
      job.ended();
      onEnd(code);
    },
  };
  let handle: { kill: () => void };
  if (session) {
    // Counted in until it is registered as running: from then on the session is not idle.
    const release = await admitSandboxed();
    const id = await session.background(command, req.cwd, req.logPath, req.onEnd).finally(() => {
      release();
      unclaim?.();
    });
    handle = { kill: () => session.kill(id) };
  } else handle = directBackground(toHostCommand(command, req.paths, settings.skillDirs), { ...req, settings });
  // The stop (background-guard-sweep.ts) ends a confined job's whole sandbox from the host at once, the commands beside
  // it too: a job can stop the supervisor or take the request out of its input (A40c-3), and can make the supervisor
  // say it ended (ptrace, the forty-second pass's A42c-3), so nothing the supervisor says or does is waited for.
  const stop = session ? () => session.terminate(STOPPED) : handle.kill;
  job.killWith(stop);
  return handle;
}
