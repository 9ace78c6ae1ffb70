// Workspaces deerflow refuses to bind (unless --allow-dangerous-workspace): the whole disk, a system directory,
// the home directory itself, or any directory holding deerflow's data directory. Tools and the shell get the
// workspace read-write, so each of these would hand the model the machine, every project or other threads.
import { realpathSync } from "node:fs";
import { UsageError } from "../errors.js";
import { isInside } from "./paths.js";

/** Refused as they are (the places many things live under). */
const SYSTEM_ROOTS = ["/", "/home", "/var", "/opt", "/tmp", "/mnt", "/media", "/srv", "/root", "/Users", "/private", "/Volumes"];
/** Refused with everything inside them. */
const SYSTEM_TREES = ["/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/proc", "/sys", "/dev", "/run", "/System", "/Library"];

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Why `dir` is a dangerous workspace, or undefined. */
export function dangerousWorkspaceReason(dir: string, ctx: { userHome: string; dataDir: string }): string | undefined {
  const ws = real(dir);
  if (SYSTEM_ROOTS.includes(ws) || SYSTEM_TREES.some((t) => isInside(ws, t))) return `${ws} is a system directory`;
  if (ws === real(ctx.userHome)) return `${ws} is your home directory`;
  if (isInside(real(ctx.dataDir), ws)) return `${ws} contains deerflow's data directory (${real(ctx.dataDir)})`;
  return undefined;
}

/** Throws a usage error (exit 2) for a dangerous workspace unless the user allowed it. */
export function assertSafeWorkspace(dir: string | undefined, ctx: { userHome: string; dataDir: string; allow?: boolean }): void {
  if (!dir || ctx.allow) return;
  const why = dangerousWorkspaceReason(dir, ctx);
  if (why) {
    throw new UsageError(
      `Refusing --workspace ${dir}: ${why}; the agent would get all of it read-write.`,
      "Point --workspace at a project directory, or pass --allow-dangerous-workspace if you mean it.",
    );
  }
}
