// The command audit's view of a thread: whether bubblewrap confines its commands, and where its folders are on the
// host. Without a sandbox a read-only command's paths are followed through links in each of those folders
// (unconfined-paths.ts): a link a sandboxed run left in outputs/ once read a home credential unasked (A28-11).
import { findBwrap } from "./run-shell.js";
import type { ThreadFolders } from "./unconfined-paths.js";

export interface AuditContext {
  /**
   * The command will run inside bubblewrap. Without it (false), every command that is not known to only read asks
   * (shell-unconfined.ts): the rule table in shell-audit.ts catches mistakes and common shapes, and only a sandbox bounds the rest.
   */
  confined: boolean;
  /** The workspace's host path: without a sandbox, where a read-only command's paths lead is followed there. */
  workspace?: string;
  /** The thread's uploads and outputs folders: a /mnt/user-data path there is followed the same way. */
  folders?: ThreadFolders;
}

/** Where a thread's folders are (ThreadData's record, or the provider's paths); any of them may be unknown. */
export interface KnownThreadPaths {
  workspace_path?: string | null;
  uploads_path?: string | null;
  outputs_path?: string | null;
}

export function auditContextFor(paths: KnownThreadPaths | null | undefined): AuditContext {
  return {
    confined: findBwrap() !== null,
    workspace: paths?.workspace_path ?? undefined,
    folders: { uploads_path: paths?.uploads_path ?? undefined, outputs_path: paths?.outputs_path ?? undefined },
  };
}

/** The thread's folders from the graph state a middleware runs with (ThreadData recorded them there). */
export function auditContextOfState(state: unknown): AuditContext {
  const td = (state as { thread_data?: unknown } | undefined)?.thread_data;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const paths = td && typeof td === "object" ? (td as Record<string, unknown>) : {};
  return auditContextFor({ workspace_path: text(paths.workspace_path), uploads_path: text(paths.uploads_path), outputs_path: text(paths.outputs_path) });
}
