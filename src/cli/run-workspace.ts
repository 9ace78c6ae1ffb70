// `deerflow run`'s workspace: a new thread binds the current directory (or -w, or a fresh folder with --scratch);
// a continued thread (--thread, --continue) keeps its own, and one line on stderr says so when that is elsewhere.
import { homedir } from "node:os";
import { UsageError } from "../errors.js";
import type { RunEvent } from "../runtime/events.js";
import { type StartWorkspace, chooseStartWorkspace, continuingNotice } from "../sandbox/start-workspace.js";
import { assertSafeWorkspace } from "../sandbox/workspace-check.js";

export interface RunWorkspaceFlags {
  thread?: string;
  continue?: boolean;
  workspace?: string;
  scratch?: boolean;
  allowDangerousWorkspace?: boolean;
}

/** What the run's request binds (undefined: the thread's own or a fresh folder), plus the start notice. */
export function runWorkspace(opts: RunWorkspaceFlags, dataDir: string, cwd = process.cwd()): StartWorkspace {
  const userHome = process.env.HOME ?? homedir();
  if (opts.thread || opts.continue) {
    if (opts.scratch)
      throw new UsageError("--scratch starts a new thread in a fresh folder; it does not go with --thread or --continue.", "Drop --scratch to continue the thread in its own workspace.");
    // -w with a thread still checks that it is the thread's own (open-thread.ts); the current directory is not bound.
    assertSafeWorkspace(opts.workspace, { userHome, dataDir, allow: opts.allowDangerousWorkspace });
    return { workspace: opts.workspace };
  }
  return chooseStartWorkspace({ explicit: opts.workspace, scratch: opts.scratch, cwd, allowDangerous: opts.allowDangerousWorkspace, userHome, dataDir });
}

/**
 * Writes the start notice now and returns the run's event hook: the first run.started of a continued thread whose
 * workspace is not the current directory writes one line naming it (goal mode starts several runs; said once).
 */
export function workspaceNotices(start: StartWorkspace, write: (line: string) => void, cwd = process.cwd()): (e: RunEvent) => void {
  if (start.notice) write(start.notice);
  let said = false;
  return (e) => {
    if (said || e.type !== "run.started") return;
    said = true;
    const line = !e.new_thread && e.workspace ? continuingNotice(e.thread_id, e.workspace, cwd) : undefined;
    if (line) write(line);
  };
}
