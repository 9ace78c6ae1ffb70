// Where a NEW thread works: the directory deerflow was started in (as every peer does), `-w <dir>` when given, or a
// fresh per-thread folder with `--scratch`. The current directory is never bound when the workspace check would
// refuse it as a `-w` (/, $HOME, a system directory, the data home, a secret directory): deerflow then uses a fresh
// folder and says so in one line, rather than refusing to start or binding it silently. A thread that already
// exists keeps its own workspace whatever the current directory is (see `continuingNotice`).
import { UsageError } from "../errors.js";
import { hostSecretReason } from "./host-secrets.js";
import { assertSafeWorkspace, dangerousWorkspaceReason } from "./workspace-check.js";
import { realOrSelf as real } from "./real-path.js";
import { replaceableBy } from "./replaceable-folders.js";

export interface StartWorkspaceRequest {
  /** -w / --workspace */
  explicit?: string;
  /** --scratch */
  scratch?: boolean;
  /** The directory deerflow was started in. */
  cwd: string;
  /** --allow-dangerous-workspace: a broad current directory (not a secret one) is bound as `-w` would bind it. */
  allowDangerous?: boolean;
  userHome: string;
  dataDir: string;
}

export interface StartWorkspace {
  /** The directory a new thread binds; undefined: its fresh per-thread folder. */
  workspace?: string;
  /** One line for the user when the current directory was not bound although nothing asked for a fresh folder. */
  notice?: string;
}

/** Throws a usage error (exit 2) for conflicting flags or a refused `-w`; never for the current directory. */
export function chooseStartWorkspace(req: StartWorkspaceRequest): StartWorkspace {
  if (req.explicit !== undefined && req.scratch) throw new UsageError("Use either --workspace <dir> or --scratch, not both.");
  const ctx = { userHome: req.userHome, dataDir: req.dataDir };
  if (req.explicit !== undefined) {
    assertSafeWorkspace(req.explicit, { ...ctx, allow: req.allowDangerous });
    return { workspace: req.explicit };
  }
  if (req.scratch) return {};
  const why = cwdRefusal(req.cwd, ctx, req.allowDangerous);
  if (!why) return { workspace: req.cwd };
  return { notice: `Not working in ${req.cwd}: ${why}. This thread works in a fresh folder (cd into a project, or pass -w <dir>).` };
}

function cwdRefusal(cwd: string, ctx: { userHome: string; dataDir: string }, allowDangerous?: boolean): string | undefined {
  const secret = hostSecretReason(cwd, ctx);
  if (secret) return `it ${secret}`;
  // Never bound either, whatever the flags: another user could put a link to your files in its place (A45a-1).
  const replaceable = replaceableBy(cwd);
  if (replaceable) return `another user could replace it (${replaceable})`;
  if (allowDangerous) return undefined;
  const why = dangerousWorkspaceReason(cwd, ctx);
  return why ? why.replace(/^\S+ /, "it ") : undefined;
}

/** One line when a continued thread works somewhere other than the current directory (undefined when the same). */
export function continuingNotice(threadId: string, workspace: string, cwd: string): string | undefined {
  if (real(workspace) === real(cwd)) return undefined;
  return `Thread ${threadId} works in ${workspace} (its own workspace), not in the current directory.`;
}
