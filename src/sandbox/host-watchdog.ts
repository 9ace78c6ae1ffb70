// What deerflow starts on the host outside bubblewrap (shell commands without bwrap, unconfined MCP servers) must not
// outlive it, however it dies. Each such program runs under a small watchdog shell started as
//   setpriv --pdeathsig USR1 -- /bin/sh -c HOST_WATCHDOG deerflow-watchdog <token> <program> <args…>
// in its own session and process group (the caller spawns it detached / under setsid):
//   - the kernel sends the watchdog SIGUSR1 when deerflow dies, even by SIGKILL; the watchdog then SIGKILLs every
//     process whose initial environment carries DEERFLOW_SHELL_RUN=<token> (what left the group with setsid or a
//     double fork) and then its whole group, itself included;
//   - the program, and everything it starts, inherits that token; the watchdog's own environment does not have it;
//   - SIGTERM (a stop from deerflow, the MCP SDK's close) is passed to the program and the watchdog waits on;
//   - the watchdog exits with the program's status, and dies by the same signal when the program did.
//   - the watchdog is a child subreaper (prctl PR_SET_CHILD_SUBREAPER, set by perl before it execs the shell): a
//     descendant that leaves the group AND clears its environment (`setsid env -i …`, the twenty-fourth pass's A24-8)
//     is re-parented to the watchdog when its parent exits, not to PID 1; when the program ends or deerflow dies, the
//     watchdog kills its remaining children round by round (each kill hands it the victim's own children).
// WHY a shell and not node: it costs a few milliseconds per command, not a second node start.
// WHY the token in the environment: every descendant inherits it and /proc/<pid>/environ shows the INITIAL block, so
// a command cannot hide it by unsetting the variable; one that exec's with a cleared environment is caught by the
// subreaper instead (where perl or the prctl is missing, the token and the group are all there is: the limit).
// The program's parent is the watchdog, whose environment is the scrubbed one: /proc/$PPID/environ shows no secret
// of deerflow's (deerflow's own block is still one level up; docs/security.md says so).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { onHostPath } from "./env-scrub.js";

export const RUN_TOKEN_VAR = "DEERFLOW_SHELL_RUN";

/** A fresh token for one command, job or server. */
export function newRunToken(): string {
  return randomBytes(8).toString("hex");
}

/** The watchdog program (POSIX sh; `grep -z` is GNU/busybox: without it the group kill still happens). */
export const HOST_WATCHDOG = [
  "t=$1; shift",
  // Its children: /proc's list of them (a read, no process started), else a scan of every process's parent.
  `kids() { ks=; if [ -r /proc/$$/task/$$/children ]; then read -r ks 2>/dev/null < /proc/$$/task/$$/children; else for f in $(grep -lx "PPid:[[:space:]]*$$" /proc/[0-9]*/status 2>/dev/null); do f=\${f#/proc/}; ks="$ks \${f%/status}"; done; fi; }`,
  // Stops each process of the trees under $1, each before its children are read: a process with SIGSTOP pending
  // cannot finish a fork (the kernel restarts it after the stop), so the list read after is complete; bounded.
  `freeze() { todo=$1; all=; m=0; while [ -n "$todo" ] && [ $m -lt 5000 ]; do next=; for p in $todo; do m=$((m + 1)); kill -STOP "$p" 2>/dev/null || continue; all="$all $p"; for t in /proc/$p/task/*/children; do c=; read -r c 2>/dev/null < "$t"; next="$next $c"; done; done; todo=$next; done; }`,
  // Kills the watchdog's live children (its program's orphans, adopted as subreaper) with everything under them,
  // frozen first, round after round while a live one is seen; bounded. A hopper that re-forks under setsid with a
  // cleared environment and exits at once outran killing what a scan had seen (the twenty-seventh pass's A27-2).
  // The state is the 3rd field of /proc/<pid>/stat, read after the last ") " (a command name may hold one).
  // A process whose main thread exited reads Z while its other threads run (setsid + pthread_exit, the forty-second
  // pass's A42c-2): it is live while any of its threads is.
  `runs() { for s in /proc/$1/task/*/stat; do st=; read -r st 2>/dev/null < "$s" || continue; st=\${st##*) }; case $st in Z*|X*) ;; *) return 0 ;; esac; done; return 1; }`,
  `reap() { n=0; while [ $n -lt 200 ]; do n=$((n + 1)); live=; kids; for p in $ks; do runs "$p" && live="$live $p"; done; [ -n "$live" ] || break; freeze "$live"; kill -KILL $all 2>/dev/null; done; }`,
  // Each thread's environ too: a process whose main thread exited shows an empty one at /proc/<pid>/environ.
  `sweep() { grep -lzxF "${RUN_TOKEN_VAR}=$t" /proc/[0-9]*/environ /proc/[0-9]*/task/[0-9]*/environ 2>/dev/null | while read -r f; do p=\${f#/proc/}; kill -KILL "\${p%%/*}" 2>/dev/null; done; reap; kill -KILL 0; }`,
  "trap sweep USR1 HUP",
  "trap 'kill -TERM $c 2>/dev/null' TERM",
  // A background command's stdin would be /dev/null: hand the program ours (an MCP server's requests).
  "exec 3<&0",
  `${RUN_TOKEN_VAR}=$t "$@" <&3 3<&- &`,
  "c=$!",
  "exec 3<&-",
  // `wait` returns early when a trapped signal arrives: wait again while the program lives.
  "while :; do wait $c; s=$?; kill -0 $c 2>/dev/null || break; done",
  "reap",
  // A program killed by a signal is reported killed by it. Only signals 1-15 (each ends a process) are raised again: an exit
  // status of 147 is also how a program says 147, and `kill -19 $$` stopped the watchdog for good (the twenty-eighth
  // pass's A28-4: `jq -n 'halt_error(147)'`); 255 made `kill -127` an error line.
  "if [ $s -gt 128 ] && [ $s -le 143 ]; then trap - TERM USR1 HUP; kill -$((s - 128)) $$; fi",
  "exit $s",
].join("\n");

/**
 * The command line that runs `program args…` under the watchdog, or undefined where it cannot (no setpriv, no
 * /proc: macOS): the caller then runs the program as before, in its own group only.
 */
export function watchdogLine(token: string, program: string, args: string[]): { command: string; args: string[] } | undefined {
  const setpriv = onHostPath("setpriv");
  if (!setpriv || !existsSync("/proc/self/environ")) return undefined;
  const watched = ["--pdeathsig", "USR1", "--", ...subreaperPrefix(), "/bin/sh", "-c", HOST_WATCHDOG, "deerflow-watchdog", token, program, ...args];
  const ns = pidNamespace();
  // unshare dies with deerflow (KILL), and its --kill-child then ends the namespace's first process, the watchdog,
  // which takes every process of the namespace with it.
  return ns ? { command: setpriv, args: ["--pdeathsig", "KILL", "--", ...ns, "--", setpriv, ...watched] } : { command: setpriv, args: watched };
}

/**
 * `unshare` with its flags for a user and PID namespace with its own /proc, where this machine allows one (probed once;
 * null where not: no unshare, or user namespaces turned off). Inside, the watchdog is the namespace's first process,
 * which no process of the namespace can kill or stop (the kernel ignores SIGKILL and SIGSTOP sent to it from inside):
 * a command that walked up its parents and SIGKILLed the watchdog left its `setsid -f env -i` child running after
 * deerflow exited (the thirty-eighth pass's A38b-2). Its own /proc also hides deerflow, and its environment, from
 * the commands. Without it, the watchdog is a process of yours like any other.
 */
function pidNamespace(): string[] | null {
  const unshare = onHostPath("unshare");
  if (!unshare) return null;
  const flags = ["--user", "--map-current-user", "--pid", "--fork", "--mount-proc", "--kill-child"];
  // Probed once per program found (the PATH, and so the program, can differ between calls in one process)
  let works = probed.get(unshare);
  if (works === undefined) {
    try {
      execFileSync(unshare, [...flags, "true"], { stdio: "ignore", timeout: 5000 });
      works = true;
    } catch {
      works = false; // not allowed here: the watchdog alone
    }
    probed.set(unshare, works);
  }
  return works ? [unshare, ...flags] : null;
}
const probed = new Map<string, boolean>();

/** prctl's system call number per architecture (PR_SET_CHILD_SUBREAPER is 36 on every one). */
const PRCTL: Partial<Record<string, number>> = { x64: 157, arm64: 167, riscv64: 167, ia32: 172, arm: 172 };

/** `perl -e <set subreaper, exec the rest>` where perl is on the host (Debian's perl-base is essential), else nothing. */
function subreaperPrefix(): string[] {
  const nr = PRCTL[process.arch];
  const perl = onHostPath("perl");
  if (nr === undefined || !perl) return [];
  // The attribute survives execve; a failing prctl (seccomp) leaves the token and the group, as before.
  return [perl, "-e", `syscall(${nr}, 36, 1, 0, 0, 0); exec { $ARGV[0] } @ARGV or exit 127`];
}

/** SIGKILLs every process (but deerflow) whose initial environment carries `token`. */
export function killByToken(token: string): void {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return; // no /proc (macOS): the process group is all we have
  }
  const needle = `${RUN_TOKEN_VAR}=${token}`;
  const environ = (file: string) => {
    try {
      return readFileSync(file, "latin1");
    } catch {
      return ""; // gone, or not ours
    }
  };
  // A process whose main thread exited shows an empty environ there; its live threads still show the block (A42c-2).
  const threads = (pid: string) => {
    try {
      return readdirSync(`/proc/${pid}/task`).map((t) => environ(`/proc/${pid}/task/${t}/environ`));
    } catch {
      return [];
    }
  };
  for (const pid of pids) {
    const own = environ(`/proc/${pid}/environ`);
    if (!(own === "" ? threads(pid) : [own]).some((e) => e.split("\0").includes(needle))) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** The child's ends of its stdout and stderr ("socket:[…]"/"pipe:[…]"), read right after spawn while it surely exists. */
export function outputPipesOf(pid: number | undefined): string[] {
  const out: string[] = [];
  for (const fd of [1, 2]) {
    try {
      if (pid) out.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // gone already, or no /proc
    }
  }
  return out;
}

/**
 * SIGKILLs every process (but deerflow) that holds one of these pipes open: a command's leftover that escaped its
 * group and the token (`setsid env -i …`) but still writes to the command's output, which would keep it "running".
 */
export function killPipeHolders(pipes: readonly string[]): void {
  if (pipes.length === 0) return;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid && p !== "1");
  } catch {
    return;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours
    }
    const holds = fds.some((fd) => {
      try {
        return pipes.includes(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (holds) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}
