// The host's bound Unix socket paths, which a confined network covers with /dev/null (bwrap-args.ts). /proc/net/unix
// names each socket as it was bound: an absolute path, an abstract name ("@…": the network namespace cuts those), or a
// relative name, as gunicorn's `--bind unix:app.sock`, uwsgi's `socket = app.sock` and node's `listen("app.sock")`
// bind. A relative one is in the folder its service bound it from, which the table does not say: it is looked for in
// the working folder of every process this user can see (the fortieth pass's A40b-2 reached such a service's admin API
// from the sandbox, also under --no-network). Known limits: a socket renamed or hard-linked after it was bound keeps
// its old name in the table, and a service that changed folder since hides where its relative one is.
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { isAbsolute, join } from "node:path";

function readProcNetUnix(): string {
  try {
    return readFileSync("/proc/net/unix", "utf8");
  } catch {
    return "";
  }
}

/** The working folder of each process this user may look at (others' are refused, and skipped). */
function processFolders(): string[] {
  const out = new Set<string>();
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  for (const pid of pids) {
    try {
      out.add(readlinkSync(`/proc/${pid}/cwd`));
    } catch {
      // gone, or another user's
    }
  }
  return [...out];
}

const isSocket = (p: string) => lstatSync(p, { throwIfNoEntry: false })?.isSocket() ?? false;

/** The paths of the host's bound Unix sockets (not abstract ones), from /proc/net/unix; `folders` for relative names. */
export function hostSocketPaths(table = readProcNetUnix(), folders: () => string[] = processFolders): string[] {
  const out = new Set<string>();
  const relative = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path — the path is the rest of the line (it may hold spaces).
    const m = /^\s*\S+:\s+(?:\S+\s+){5}\S+\s+(\S.*)$/.exec(line);
    if (!m || m[1]!.startsWith("@")) continue;
    if (isAbsolute(m[1]!)) out.add(m[1]!);
    else relative.add(m[1]!);
  }
  if (relative.size > 0) for (const dir of folders()) for (const name of relative) if (isSocket(join(dir, name))) out.add(join(dir, name));
  return [...out];
}
