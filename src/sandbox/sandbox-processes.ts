// Whether anything but deerflow's own supervisor lives in a bubblewrap sandbox, read from the host's /proc. Every
// process in the sandbox is a descendant of the bwrap process deerflow started: bwrap's reaper is pid 1 of the
// sandbox's PID namespace and the supervisor its only child (pid 2 inside); a process whose parent exits (a `setsid`
// or `&` child a job left behind) is re-parented to that reaper, never out of the tree. The supervisor's own list of
// commands and jobs misses such leftovers (the sixteenth adversarial pass: a job that exited at once left a link
// swapper running while the editor wrote), the process tree does not.
import { readFileSync, readdirSync } from "node:fs";

interface Proc {
  pid: number;
  ppid: number;
}

function readProc(pid: number): Proc | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces or ")": the fields after the last ")" are fixed.
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]) };
  } catch {
    // Gone between the listing and the read: it no longer runs.
    return undefined;
  }
}

/** The process's pid in its innermost PID namespace (the last NSpid field), or undefined. */
function innermostPid(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^NSpid:\s*(.*)$/m)?.[1];
    const last = line?.trim().split(/\s+/).at(-1);
    return last ? Number(last) : undefined;
  } catch {
    return undefined;
  }
}

/** Every live process below `root` (zombies included: a zombie leader may still have running threads). */
export function descendantsOf(root: number): Proc[] {
  const children = new Map<number, Proc[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const p = readProc(Number(name));
    if (!p) continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: Proc[] = [];
  const queue = [root];
  for (let q = queue.pop(); q !== undefined; q = queue.pop()) {
    for (const c of children.get(q) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/**
 * True when the sandbox started as `bwrapPid` holds exactly bwrap's reaper and the supervisor (pid 2 inside) and
 * nothing else. Anything unexpected or unreadable counts as running (fails closed).
 */
export function onlySupervisorRuns(bwrapPid: number | undefined): boolean {
  if (bwrapPid === undefined) return false;
  try {
    const below = descendantsOf(bwrapPid);
    if (below.length !== 2) return false;
    const reaper = below.find((p) => p.ppid === bwrapPid);
    const supervisor = below.find((p) => p !== reaper);
    return reaper !== undefined && supervisor !== undefined && supervisor.ppid === reaper.pid && innermostPid(supervisor.pid) === 2;
  } catch {
    return false;
  }
}
