// Finds live processes by a marker in their command line (/proc), to prove no orphan survives a kill.
import { readFileSync, readdirSync } from "node:fs";

export function processesMatching(marker: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
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
