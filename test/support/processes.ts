// Finds live processes by a marker in their command line (/proc), to prove no orphan survives a kill.
import { readFileSync, readdirSync } from "node:fs";

export function processesMatching(marker: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        const own = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        // A process whose main thread exited shows an empty one there, its other threads the real one (A42c-2).
        return own ? own.includes(marker) : readdirSync(`/proc/${pid}/task`).some((t) => readFileSync(`/proc/${pid}/task/${t}/cmdline`, "utf8").includes(marker));
      } catch {
        return false; // exited while we looked
      }
    });
}

/**
 * SIGKILLs every process whose command line holds `marker`, stopping them all first, round after round until none is
 * left: a process that keeps re-forking outruns a plain kill of what one look saw (and then runs on under PID 1).
 */
export function killAllMatching(marker: string): void {
  for (let round = 0; round < 100; round++) {
    const pids = processesMatching(marker).filter((p) => Number(p) !== process.pid);
    if (pids.length === 0) return;
    for (const signal of ["SIGSTOP", "SIGKILL"] as const) {
      for (const pid of pids) {
        try {
          process.kill(Number(pid), signal);
        } catch {
          // gone
        }
      }
    }
  }
}

/** Signal 9's bit in /proc/<pid>/status's SigPnd/ShdPnd masks, and PF_EXITING in /proc/<pid>/stat's flags. */
const SIGKILL_BIT = 1n << 8n;
const PF_EXITING = 0x4;

/**
 * The processes matching `marker` that can still run code: one of its threads is not a zombie, not exiting, and has no
 * SIGKILL pending. A process a clean-up has just killed takes a moment to go on a busy machine, but it never returns
 * to its program. Judged thread by thread: a process whose main thread exited reads "Z", with an empty command line,
 * while its other threads run on (A42c-2).
 */
export function runningProcessesMatching(marker: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((pid) => {
      try {
        return readdirSync(`/proc/${pid}/task`).some((tid) => threadRuns(`/proc/${pid}/task/${tid}`, marker));
      } catch {
        return false; // gone while we looked
      }
    });
}

function threadRuns(dir: string, marker: string): boolean {
  try {
    if (!readFileSync(`${dir}/cmdline`, "utf8").includes(marker)) return false;
    const status = readFileSync(`${dir}/status`, "utf8");
    const stat = readFileSync(`${dir}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const killed = ["SigPnd", "ShdPnd"].some((k) => (BigInt(`0x${new RegExp(`^${k}:\\s*([0-9a-f]+)`, "m").exec(status)?.[1] ?? "0"}`) & SIGKILL_BIT) !== 0n);
    return !/^[ZX]/.test(fields[0] ?? "") && (Number(fields[6]) & PF_EXITING) === 0 && !killed;
  } catch {
    return false; // gone while we looked
  }
}
