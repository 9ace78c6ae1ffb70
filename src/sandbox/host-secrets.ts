// Host places that hold credentials or deerflow's own state, as the user's side of the sandbox sees them: the
// secret directories and files the sandbox hides (their one list lives with the sandbox, bwrap-args.ts), every
// .deerflowrc, and deerflow's data directory. Used where a host path enters a thread without passing the sandbox:
// an attachment (`--upload`, `@path`) is copied into uploads/, and a --workspace is bound read-write.
// A path check alone misses a HARD link (`ln ~/.ssh/id_rsa notes.txt`): it has its own name and no link to follow.
// So a file with more than one link is compared by (device, inode) with the secret files that exist.
import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { secretLocations } from "./secret-locations.js";
import { HOME_SECRET_DIRS, HOME_SECRET_FILES, SYSTEM_SECRET_FILES } from "../vocabulary/secret-paths.js";
import { isInside } from "./paths.js";

export interface HostSecretContext {
  /** The user's home directory (where ~/.ssh and friends live). */
  userHome: string;
  /** deerflow's data directory (the database, threads, memory, skills). */
  dataDir: string;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * Why `path` is a secret place, or undefined. Checked on the path as given and on its real path, so a symlink in
 * a project (`key -> ~/.ssh/id_rsa`) is caught as well as the file itself.
 */
export function hostSecretReason(path: string, ctx: HostSecretContext): string | undefined {
  const home = real(ctx.userHome);
  const data = real(ctx.dataDir);
  const moved = secretLocations(home);
  for (const p of new Set([resolve(path), real(path)])) {
    if (basename(p) === ".deerflowrc") return "is a deerflow configuration file (it can hold API keys)";
    if (isInside(p, data) || isInside(p, resolve(ctx.dataDir))) return "is inside deerflow's data directory (its database, threads and memory)";
    const dir = HOME_SECRET_DIRS.find((d) => isInside(p, real(join(home, d))));
    if (dir) return `is inside ~/${dir}, where credentials live (the sandbox hides it)`;
    const file = HOME_SECRET_FILES.find((f) => p === real(join(home, f)));
    if (file) return `is ~/${file}, a credentials file (the sandbox hides it)`;
    // The same places moved by a variable (XDG_CONFIG_HOME, DOCKER_CONFIG, …) or reached through a link (A38a-3)
    if (moved.dirs.some((d) => isInside(p, d)) || moved.files.includes(p)) return "is where credentials are kept (the sandbox hides it)";
  }
  return hardLinkReason(path, home, data);
}

/** How many entries a hard-link search reads at most (a huge ~/.mozilla must not stall every attachment). */
const WALK_LIMIT = 20_000;

/** Regular files under `dir` (symlinks not followed), depth-first, until `budget` entries have been read. */
function* filesUnder(dir: string, budget: { left: number }): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (--budget.left < 0) return;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p, budget);
    else if (e.isFile()) yield p;
  }
}

/** The secret file `path` is another name of (same device and inode), described as a reason, or undefined. */
function hardLinkReason(path: string, home: string, data: string): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.nlink < 2) return undefined; // one name: the path checks above saw the only one
  const budget = { left: WALK_LIMIT };
  const candidates = function* (): Generator<[string, string]> {
    for (const f of [...HOME_SECRET_FILES, ".deerflowrc"]) yield [join(home, f), `~/${f}, a credentials file`];
    for (const f of SYSTEM_SECRET_FILES) yield [f, `${f}, a credentials file`];
    for (const d of HOME_SECRET_DIRS) for (const f of filesUnder(join(home, d), budget)) yield [f, `${f.replace(home, "~")}, inside ~/${d} where credentials live`];
    for (const f of filesUnder(data, budget)) yield [f, `${f}, inside deerflow's data directory`];
  };
  for (const [file, what] of candidates()) {
    try {
      const other = statSync(file); // a secret that is itself a symlink: its target
      if (other.isFile() && other.dev === st.dev && other.ino === st.ino) return `is a hard link to ${what} (the same file under another name)`;
    } catch {
      // not on this machine
    }
  }
  return undefined;
}
