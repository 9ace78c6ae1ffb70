// Host places that hold credentials or deerflow's own state, as the user's side of the sandbox sees them: the
// secret directories and files the sandbox hides (their one list lives with the sandbox, bwrap-args.ts), every
// .deerflowrc, and deerflow's data directory. Used where a host path enters a thread without passing the sandbox:
// an attachment (`--upload`, `@path`) is copied into uploads/, and a --workspace is bound read-write.
import { realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { HOME_SECRET_DIRS, HOME_SECRET_FILES } from "./bwrap-args.js";
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
  for (const p of new Set([resolve(path), real(path)])) {
    if (basename(p) === ".deerflowrc") return "is a deerflow configuration file (it can hold API keys)";
    if (isInside(p, data) || isInside(p, resolve(ctx.dataDir))) return "is inside deerflow's data directory (its database, threads and memory)";
    const dir = HOME_SECRET_DIRS.find((d) => isInside(p, real(join(home, d))));
    if (dir) return `is inside ~/${dir}, where credentials live (the sandbox hides it)`;
    const file = HOME_SECRET_FILES.find((f) => p === real(join(home, f)));
    if (file) return `is ~/${file}, a credentials file (the sandbox hides it)`;
  }
  return undefined;
}
