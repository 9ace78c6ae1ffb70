// One bubblewrap sandbox per thread and chat/run, started lazily on the first command and stopped by
// closeShellSessions() at the end (or by the kernel with deerflow: --die-with-parent, and the PID namespace dies
// with its pid 1). Commands go to the supervisor inside (supervisor-source.ts) over its stdin.
// WHY a long-lived session instead of one bwrap per command: starting bwrap + bash costs several times a plain
// `bash -c` (numbers in docs/security.md, the end of The shell sandbox); a command sent into a running session costs about the same as
// spawning bash directly.
import { existsSync, type Stats, statSync } from "node:fs";
import { execa, type ResultPromise } from "execa";
import { bwrapArgs, hiddenDirsOf, socketsToHide } from "./bwrap-args.js";
import { scrubEnv } from "./env-scrub.js";
import { type NetworkProxy, sessionProxy } from "./network-proxy.js";
import type { ThreadPaths } from "./provider.js";
import { type ShellSettings, confinedNetwork } from "./shell-settings.js";
import { descendantsOf, onlySupervisorRuns } from "./sandbox-processes.js";
import { isPinnedFolder } from "./pinned-folders.js";
import { SKILLS_VIRTUAL_ROOT, VIRTUAL_ROOT } from "./paths.js";
import { SUPERVISOR_SOURCE } from "./supervisor-source.js";
import { HIDDEN_PLACE_VARS } from "./secret-locations.js";

/** Time between SIGTERM and SIGKILL to the process group. */
export const BASH_KILL_GRACE_MS = 2_000;
/** After the SIGKILL, how long the supervisor has to report the end before the whole sandbox is killed. */
const SUPERVISOR_GRACE_MS = 3_000;
/** Silence from the supervisor (it beats every second while a command runs) after which the sandbox is ended. */
const SUPERVISOR_SILENCE_MS = 15_000;
/** How long a process may stay in a sandbox where nothing runs (a leftover being killed) before the sandbox is ended. */
export const LEFTOVER_GRACE_MS = 1_000;
/** bwrap's words for a mount whose source or target is not there when it makes it (inside, a target is under /newroot). */
const MISSING_MOUNT_PATH = /^bwrap: Can't (?:mkdir parents for|create file at|find source path) (?:\/newroot)?(\/.*?): [^:]*$/;

export interface ShellResult {
  /** stdout and stderr interleaved. */
  output: string;
  exitCode: number | undefined;
  signal: string | undefined;
  /** Set when deerflow stopped the command. */
  stoppedBy: "timeout" | "abort" | undefined;
  isMaxBuffer: boolean;
}

export interface RunOptions {
  cwd: string;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

interface Pending {
  out: string[];
  onEnd: (m: { code?: number | null; signal?: string | null; max?: boolean }) => void;
}

/**
 * Sandboxes ended from the host (terminate): begun, and whose bwrap has exited since. A killed sandbox's processes
 * outlive its end by a little (the kernel tears its PID namespace down after bwrap exits), and one can write once
 * more: the sweeps must not lay that on a sandbox started since (background-guard-sweep.ts).
 */
const hostEnds = { begun: 0, done: 0 };
/** A mark that changes whenever a sandbox is ended from the host: NaN (equal to nothing) while one is ending. */
export function hostEndsMark(): number {
  return hostEnds.begun === hostEnds.done ? hostEnds.done : Number.NaN;
}

export class ShellSession {
  private readonly child: ResultPromise;
  private readonly pending = new Map<string, Pending>();
  private readonly ready: Promise<void>;
  private next = 0;
  private claims = 0;
  private dead: string | undefined;
  /** Why deerflow ended the sandbox from the host (it is no longer used from then on). */
  private ending: string | undefined;
  private leftoverLook: NodeJS.Timeout | undefined;
  private started = false;
  /** The sandbox did not start because a path its mounts name went away after they were computed. */
  private lostMountPath = false;
  private buf = "";
  private lastHeard = Date.now();
  private readonly heartbeat: NodeJS.Timeout;
  /** The host sockets this session's mounts cover (network off or proxied); one bound later is not (see missesNewSockets). */
  private readonly hiddenSockets: Set<string>;
  /**
   * The folders this session's mounts emptied when it started. Kept, not computed again before each command: finding
   * the secret places (a realpath each) cost ~5 ms a command, and a folder hidden only later covers nothing here.
   */
  private readonly hiddenDirs: string[];
  /** The session's way out with the proxied network (network-proxy.ts); undefined with none or the host's. */
  private readonly proxy: NetworkProxy | undefined;

  constructor(
    private readonly paths: ThreadPaths,
    private readonly settings: ShellSettings,
    bwrap: string,
    /** The sandbox was ended because a process stayed after everything deerflow ran in it had ended (said in `why`). */
    private readonly onLeftover: (why: string) => void = () => {},
  ) {
    this.hiddenDirs = confinedNetwork(settings) ? hiddenDirsOf(settings) : []; // the sockets are cut only then
    this.hiddenSockets = new Set(socketsToHide(paths, settings, this.hiddenDirs));
    const env = scrubEnv(process.env, { passEnv: settings.passEnv, secretValues: settings.secretValues, project: paths.workspace_path });
    // A variable naming a place the sandbox hides (secret-locations.ts) points at nothing there: git given the hidden
    // GIT_CONFIG_GLOBAL failed, and reads the sandbox's own ~/.gitconfig (your identity only) without it.
    for (const name of HIDDEN_PLACE_VARS) delete env[name];
    const network = sessionProxy(settings);
    this.proxy = network?.proxy;
    // The program travels in the environment (the supervisor deletes it at once) so `ps` stays readable.
    const loader = "const s = process.env.DEERFLOW_SUPERVISOR; delete process.env.DEERFLOW_SUPERVISOR; eval(s);";
    this.child = execa(bwrap, bwrapArgs(paths, settings, [process.execPath, "-e", loader], this.proxy?.dir), {
      env: { ...env, ...network?.env, DEERFLOW_SUPERVISOR: SUPERVISOR_SOURCE },
      extendEnv: false,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      reject: false,
      buffer: false,
      // Not execa's exit clean-up: its signal handler re-raises SIGINT when it is the last listener, which would
      // kill deerflow before a run can stop cleanly (exit 130). --die-with-parent ends the sandbox with us anyway.
      cleanup: false,
    });
    let stderr = "";
    this.child.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString("utf8");
    });
    const started = new Promise<void>((resolve, reject) => {
      this.child.stdout?.setEncoding("utf8");
      this.child.stdout?.on("data", (d: string) => {
        this.buf += d;
        let i: number;
        while ((i = this.buf.indexOf("\n")) >= 0) {
          const line = this.buf.slice(0, i);
          this.buf = this.buf.slice(i + 1);
          this.onLine(line, resolve);
        }
      });
      void this.child.then((r) => {
        if (this.ending) hostEnds.done++;
        const missing = MISSING_MOUNT_PATH.exec(stderr.trim().split("\n")[0] ?? "")?.[1];
        this.lostMountPath = !this.started && missing !== undefined && !existsSync(missing);
        this.dead = this.ending ? `deerflow ended the sandbox: ${this.ending}` : `the sandbox ended (${r.signal ?? `exit ${r.exitCode}`})${stderr.trim() ? `: ${stderr.trim().split("\n")[0]}` : ""}`;
        reject(new Error(`The shell sandbox could not start: ${this.dead}`));
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.out.push(`\n[${this.dead}; its processes are gone]\n`);
          p.onEnd({ code: null, signal: "SIGKILL" });
        }
      });
    });
    // A proxy that cannot listen ends the sandbox too: its commands would have no way out.
    const proxyReady = this.proxy?.ready.catch((e: Error) => {
      this.child.kill("SIGKILL");
      throw e;
    });
    this.ready = proxyReady ? Promise.all([started, proxyReady]).then(() => {}) : started;
    this.ready.catch(() => {});
    this.heartbeat = setInterval(() => {
      const waiting = [...this.pending.keys()].some((id) => id.startsWith("c"));
      if (waiting && Date.now() - this.lastHeard > SUPERVISOR_SILENCE_MS) this.child.kill("SIGKILL");
    }, 1_000);
    this.heartbeat.unref();
    void this.child.finally(() => {
      clearInterval(this.heartbeat);
      this.proxy?.close();
    });
  }

  /** One JSON line of the supervisor: ready, a command's output, or its end. */
  private onLine(line: string, ready: () => void): void {
    this.lastHeard = Date.now();
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (m.ready === true) {
      const replaced = this.mountsReplaced();
      // Ended before any command runs; its end rejects the start with this reason.
      if (replaced) return this.terminate(replaced);
      this.started = true;
      return ready();
    }
    const p = typeof m.id === "string" ? this.pending.get(m.id) : undefined;
    if (!p) return;
    if (typeof m.out === "string") p.out.push(m.out);
    if (m.end === true) {
      this.pending.delete(m.id as string);
      p.onEnd(m as never);
      this.lookForLeftovers();
    }
  }

  /**
   * Why the sandbox's own mounts may not be used (undefined: they may): the workspace or a skill folder it bound is not
   * the folder deerflow judged (pinned-folders.ts), so a link was put in its place before bwrap bound it. Read from the
   * host through a sandboxed process's /proc root, after the mounts are made: nothing can swap them any more.
   */
  private mountsReplaced(): string | undefined {
    const inside = this.child.pid === undefined ? undefined : descendantsOf(this.child.pid)[0];
    if (!inside) return undefined;
    const root = `/proc/${inside.pid}/root`;
    const mounts: [string, string, string][] = [
      ["The workspace", this.paths.workspace_path, `${VIRTUAL_ROOT}/workspace`],
      ...Object.entries(this.settings.skillDirs ?? {}).map(([name, dir]): [string, string, string] => [`The skill folder of ${name}`, dir, `${SKILLS_VIRTUAL_ROOT}/${name}`]),
    ];
    for (const [what, host, at] of mounts) {
      let seen: Stats | undefined;
      try {
        seen = statSync(root + at, { throwIfNoEntry: false });
      } catch {
        return undefined; // this host cannot look into the sandbox (/proc hidden): the checks at each use still hold
      }
      if (seen && !isPinnedFolder(host, seen)) return `${what} ${host} was replaced before the sandbox bound it (moved away, or a link put in its place)`;
    }
    return undefined;
  }

  get alive(): boolean {
    return this.dead === undefined && this.ending === undefined;
  }

  /**
   * Once nothing runs in the sandbox, nothing may stay in it: the supervisor's clean-up ended what the last command or
   * job left, and says so in its end, but a command can stop the supervisor, or make it write an end (ptrace: the
   * forty-second pass's A42c-3), or evade its look at /proc (A42c-2). So the host looks itself, in its own /proc, and
   * ends the sandbox when a process is still there after LEFTOVER_GRACE_MS. Nothing deerflow runs is lost: no command
   * or job runs in it, and the next command starts a new one.
   */
  private lookForLeftovers(): void {
    if (this.leftoverLook || !this.started || !this.idle || !this.alive) return;
    const deadline = Date.now() + LEFTOVER_GRACE_MS;
    const look = () => {
      this.leftoverLook = undefined;
      if (!this.idle || !this.alive || onlySupervisorRuns(this.child.pid)) return;
      if (Date.now() < deadline) {
        this.leftoverLook = setTimeout(look, 100);
        this.leftoverLook.unref();
        return;
      }
      const why = "a process was still running in it after every command and background job had ended";
      this.terminate(why);
      this.onLeftover(why);
    };
    this.leftoverLook = setTimeout(look, 20);
    this.leftoverLook.unref();
  }

  /**
   * Resolves to false when the sandbox could not start only because a path its mounts name went away meanwhile: a
   * host socket removed between being listed and being covered (another program's short-lived socket; CI saw it
   * beside a test removing its own). Such a start is worth one more try; any other outcome resolves true.
   */
  async startedOrLostPath(): Promise<boolean> {
    try {
      await this.ready;
    } catch {
      return !this.lostMountPath;
    }
    return true;
  }

  /**
   * Marks a command as on its way to this session (it may still wait for the sandbox to start or for the editor):
   * until the release, the session is not idle, so a concurrent call of the same batch cannot restart it under it.
   */
  claim(): () => void {
    this.claims++;
    let done = false;
    return () => {
      if (!done) this.claims--;
      done = true;
      this.lookForLeftovers();
    };
  }

  /** Nothing runs in it or is on its way: no command, no background job (restarting it would lose nothing). */
  get idle(): boolean {
    return this.pending.size === 0 && this.claims === 0;
  }

  /** No process at all in the sandbox but the supervisor (read from /proc: a job's leftovers count too). */
  get quiet(): boolean {
    return this.idle && onlySupervisorRuns(this.child.pid);
  }

  /** With the network off or proxied: a host socket was bound since the start, which this session's mounts do not cover. */
  missesNewSockets(): boolean {
    return socketsToHide(this.paths, this.settings, this.hiddenDirs).some((f) => !this.hiddenSockets.has(f));
  }

  private send(req: Record<string, unknown>): void {
    if (this.dead) return;
    this.child.stdin?.write(JSON.stringify(req) + "\n");
  }

  /** Runs `bash -c command` in the sandbox; everything it started is gone when this resolves. */
  async run(command: string, opts: RunOptions): Promise<ShellResult> {
    await this.ready;
    // Cancelled while the sandbox was starting: the command never runs.
    if (opts.signal?.aborted) return { output: "", exitCode: undefined, signal: undefined, stoppedBy: "abort", isMaxBuffer: false };
    const id = `c${++this.next}`;
    let stoppedBy: ShellResult["stoppedBy"];
    let killTimer: NodeJS.Timeout | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    const stop = (why: "timeout" | "abort") => {
      if (stoppedBy) return;
      stoppedBy = why;
      this.send({ op: "kill", id, signal: "SIGTERM" });
      killTimer = setTimeout(() => this.send({ op: "kill", id, signal: "SIGKILL" }), BASH_KILL_GRACE_MS);
      // A supervisor that does not answer (a command stopped it with ptrace or SIGSTOP) takes the whole sandbox
      // with it: the call ends whatever happens inside.
      watchdog = setTimeout(() => this.child.kill("SIGKILL"), BASH_KILL_GRACE_MS + SUPERVISOR_GRACE_MS);
    };
    const timer = setTimeout(() => stop("timeout"), opts.timeoutSeconds * 1000);
    const onAbort = () => stop("abort");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const out: string[] = [];
      const end = await new Promise<{ code?: number | null; signal?: string | null; max?: boolean }>((resolve) => {
        this.pending.set(id, { out, onEnd: resolve });
        this.lastHeard = Math.max(this.lastHeard, Date.now());
        this.send({ op: "run", id, cmd: command, cwd: opts.cwd });
        if (this.dead) resolve({ code: null, signal: "SIGKILL" });
      });
      return {
        output: out.join(""),
        exitCode: typeof end.code === "number" ? end.code : undefined,
        signal: end.signal ?? undefined,
        stoppedBy,
        isMaxBuffer: end.max === true,
      };
    } finally {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (watchdog) clearTimeout(watchdog);
      opts.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Starts a background job (output appended to `logPath`); `onEnd` gets its exit code. Returns its id. */
  async background(command: string, cwd: string, logPath: string, onEnd: (code: number | undefined) => void): Promise<string> {
    await this.ready;
    const id = `b${++this.next}`;
    this.pending.set(id, { out: [], onEnd: (m) => onEnd(typeof m.code === "number" ? m.code : undefined) });
    this.send({ op: "run", id, cmd: command, cwd, log: logPath });
    return id;
  }

  /** Kills a background job's process group. */
  kill(id: string): void {
    this.send({ op: "kill", id, signal: "SIGKILL" });
  }

  /**
   * Ends the sandbox at once from the host: bwrap is killed, and with it (--die-with-parent, the PID namespace) every
   * process in it, even one that stopped the supervisor (a job's `kill -STOP 2` outlived a kill request: A40c-3). From
   * now on it is not alive: the next command starts a new sandbox. `why` is what its running commands are told.
   */
  terminate(why: string): void {
    if (this.dead || this.ending) return;
    this.ending = why;
    hostEnds.begun++;
    this.child.kill("SIGKILL");
  }

  /** Ends the sandbox and every process in it. */
  async close(): Promise<void> {
    if (this.dead) return;
    this.child.stdin?.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), 1_000);
    await this.child;
    clearTimeout(t);
  }
}
