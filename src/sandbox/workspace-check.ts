// Workspaces deerflow refuses to bind (unless --allow-dangerous-workspace): the whole disk, a system directory,
// the home directory itself or a directory holding it, or any directory holding deerflow's data directory. Tools and the shell get the
// workspace read-write, so each of these would hand the model the machine, every project or other threads.
// Refused always, flag or not: a directory inside deerflow's data directory (memory/, threads/, skills/: the
// model's shell would write its own memory database and other threads) or inside a secret directory (~/.ssh:
// the keys themselves). The flag exists for broad but ordinary places the sandbox can still hide secrets inside;
// here the secret is the workspace itself, so there is nothing the user could mean by it that is safe.
import { homedir } from "node:os";
import { ConfigError, UsageError } from "../errors.js";
import { hostSecretReason } from "./host-secrets.js";
import { applicationFolders } from "./secret-locations.js";
import { isInside } from "./paths.js";
import { realOrSelf as real } from "./real-path.js";
import { plantedLinkProblem, writableFolders } from "./planted-links.js";
import { notePastWorkspaces, sandboxWritable } from "./sandbox-writable.js";

/** Refused as they are (the places many things live under). */
const SYSTEM_ROOTS = ["/", "/home", "/var", "/opt", "/tmp", "/mnt", "/media", "/srv", "/root", "/Users", "/private", "/Volumes"];
/** Refused with everything inside them. */
const SYSTEM_TREES = ["/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/proc", "/sys", "/dev", "/run", "/System", "/Library"];

/** Why `dir` is a dangerous workspace, or undefined. */
export function dangerousWorkspaceReason(dir: string, ctx: { userHome: string; dataDir: string }): string | undefined {
  const ws = real(dir);
  if (SYSTEM_ROOTS.includes(ws) || SYSTEM_TREES.some((t) => isInside(ws, t))) return `${ws} is a system directory`;
  const home = real(ctx.userHome);
  if (ws === home) return `${ws} is your home directory`;
  if (isInside(real(ctx.dataDir), ws)) return `${ws} contains deerflow's data directory (${real(ctx.dataDir)})`;
  // A folder above the home holds all of it (a home under /data/users/<name> with the data directory elsewhere: the
  // sixteenth pass's W1 read ~/.someapp and wrote ~/.profile): refused as the home is.
  if (isInside(home, ws)) return `${ws} contains your home directory (${home})`;
  // The home's application folders hold every app's settings and logins, most on no list: bound whole, they undo the
  // home's allow list (the thirty-eighth pass's A38a-6 read an age key, a glab token and registry logins under
  // `-w ~/.config`). One app's folder inside (`~/.config/nvim`) is an ordinary workspace.
  const apps = appDataFolders(home).find((d) => isInside(d, ws));
  if (apps) return `${ws} ${apps === ws ? "is" : "contains"} ${apps}, where your applications keep their settings and logins`;
  return undefined;
}

/** The home's application folders and those the XDG variables move elsewhere (real paths). */
function appDataFolders(home: string): string[] {
  const { own, moved } = applicationFolders(home);
  return [...own, ...moved].map(real);
}

/**
 * Why auto-approval (`--yes`, yolo) is refused with `dir` as the workspace, or undefined. On a dangerous workspace the
 * user allowed (their home, a system directory) everything in it is the agent's to change or delete: `rm -rf ./*`
 * under yolo emptied a home in the fourteenth adversarial pass. Guarded commands there wait for a person.
 */
export function autoApprovalWorkspaceProblem(dir: string | undefined, ctx: { userHome: string; dataDir: string }): string | undefined {
  const why = dir ? dangerousWorkspaceReason(dir, ctx) : undefined;
  return why ? `the workspace ${why.replace(/^\S+ /, "")}, so with --yes or yolo the agent could change or delete anything in it unasked: refusing.` : undefined;
}

/** Throws the refusal (exit 2) when auto-approval is asked for on a dangerous workspace: every front end and a
 *  continued thread's run (whose workspace is the thread's, known only once it is opened) use this one. */
export function assertAutoApprovalWorkspace(dir: string | null | undefined, dataDir: string, auto: boolean): void {
  const problem = auto ? autoApprovalWorkspaceProblem(dir ?? undefined, { userHome: process.env.HOME ?? homedir(), dataDir }) : undefined;
  if (problem) throw new UsageError(problem, "Leave out --yes / yolo (deerflow then asks, or a headless run denies, guarded commands), or use a project directory.");
}

/** Throws a usage error (exit 2) for a secret workspace, and for a dangerous one unless the user allowed it. */
export function assertSafeWorkspace(dir: string | undefined, ctx: { userHome: string; dataDir: string; allow?: boolean }): void {
  if (!dir) return;
  const secret = hostSecretReason(dir, ctx);
  if (secret) {
    throw new UsageError(
      `Refusing --workspace ${dir}: it ${secret}; the agent would get it read-write.`,
      "Point --workspace at a project directory (--allow-dangerous-workspace does not unlock this).",
    );
  }
  if (ctx.allow) return;
  const why = dangerousWorkspaceReason(dir, ctx);
  if (why) {
    throw new UsageError(
      `Refusing --workspace ${dir}: ${why}; the agent would get all of it read-write.`,
      "Point --workspace at a project directory, or pass --allow-dangerous-workspace if you mean it.",
    );
  }
}

/**
 * Why a `sandbox.readWrite` entry is refused, or undefined: the places a workspace may not be (above), and anything
 * inside deerflow's data directory (the database, memory, other threads). WHY refuse rather than drop: "/" bound
 * read-write also covers the sandbox's own /dev, /proc and /tmp, so every command failed while nothing said why.
 */
export function readWriteProblem(dir: string, ctx: { userHome: string; dataDir: string }): string | undefined {
  const why = dangerousWorkspaceReason(dir, ctx);
  if (why) return why;
  const rw = real(dir);
  if (isInside(rw, real(ctx.dataDir))) return `${rw} is inside deerflow's data directory`;
  return undefined;
}

/** The sandbox's own mounts: a read-only bind of the host's copy over them (or of "/", which holds them) would show
 * the host's /proc — deerflow's own environment with the API key — to commands. */
const SANDBOX_OWN = ["/proc", "/sys", "/dev"];

/** Why a `sandbox.readOnly` entry is refused, or undefined. */
export function readOnlyProblem(dir: string): string | undefined {
  const ro = real(dir);
  if (ro === "/" || SANDBOX_OWN.some((t) => isInside(ro, t))) return `${ro} would cover the sandbox's own /proc, /sys or /dev with the host's`;
  return undefined;
}

/** One line per refused `sandbox.readWrite` / `sandbox.readOnly` entry (empty when all are fine). */
export function sandboxPathProblems(sandbox: { readWrite: readonly string[]; readOnly: readonly string[] }, ctx: { userHome: string; dataDir: string }): string[] {
  return [
    ...sandbox.readWrite.flatMap((d) => {
      const why = readWriteProblem(d, ctx);
      return why ? [`sandbox.readWrite ${JSON.stringify(d)} is refused: ${why}, and commands would get all of it read-write.`] : [];
    }),
    ...sandbox.readOnly.flatMap((d) => {
      const why = readOnlyProblem(d);
      return why ? [`sandbox.readOnly ${JSON.stringify(d)} is refused: ${why}.`] : [];
    }),
    ...plantedLinkProblems(sandbox, ctx.dataDir),
  ];
}

/**
 * Entries an earlier run's commands could have redirected: a link on the way in a folder a sandbox could write then
 * (the ledger of sandbox-writable.ts). A sandbox would not bind them (planted-links.ts); a start refuses them first.
 */
function plantedLinkProblems(sandbox: { readWrite: readonly string[]; readOnly: readonly string[] }, dataDir: string): string[] {
  notePastWorkspaces(dataDir);
  const writable = sandboxWritable().length ? writableFolders({ workspace: "", dataDir }) : [];
  if (writable.length === 0) return [];
  return (["readWrite", "readOnly"] as const).flatMap((key) =>
    sandbox[key].flatMap((d) => {
      const why = plantedLinkProblem(d, writable);
      return why ? [`sandbox.${key} ${JSON.stringify(d)} is refused: ${why} (remove the link, or list the real folder).`] : [];
    }),
  );
}

/** Throws a configuration error (exit 2) naming the first refused sandbox path. */
export function assertSafeSandboxPaths(sandbox: { readWrite: readonly string[]; readOnly: readonly string[] }, ctx: { userHome: string; dataDir: string }): void {
  const [first] = sandboxPathProblems(sandbox, ctx);
  if (first) throw new ConfigError(first, { hint: "List project directories only (not /, a system directory, your home or deerflow's data directory) in .deerflowrc." });
}
