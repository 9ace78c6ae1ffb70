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
